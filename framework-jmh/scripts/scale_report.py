"""The scale sections of a bin/bench report (issue 16): connection scale (ConnectionScale) and poller scaling
(PollerScaling beside iperf3 -P N and sockperf over N sockets), their targets, Markdown and plots."""
import glob
import json
import os
import re

MIB = 1 << 20


def scale_targets(scale):
    """Issue 16's targets, judged from ConnectionScale: each ratio compares two numbers of the same run."""
    if not scale:
        return []
    rows = sorted(scale["results"], key=lambda r: r["connections"])
    out = []
    largest = rows[-1]
    n = largest["connections"]
    if n >= 10000:  # quick runs stop short of it: not measured there
        out.append({"target": "10,000 idle soft connections in one runtime pair", "goal": ">= 10000 established",
                    "ratio": None, "measured": f"{n} established in {largest['establishSeconds']:.2f} s", "met": True})
    mem = largest["memoryBytesPerConnection"]
    out.append({"target": f"memory per idle soft connection at {n} (heap + direct, client and server end)",
                "goal": "<= 32 KiB", "ratio": None,
                "measured": f"{mem / 1024:.1f} KiB (heap {largest['heapBytesPerConnection'] / 1024:.1f}, "
                            f"direct {largest['directBytesPerConnection'] / 1024:.1f})", "met": mem <= 32 * 1024})
    one = next((r for r in rows if r["connections"] == 1), None)
    if one and n > 1:
        value = largest["readIdle"]["p50Us"] / one["readIdle"]["p50Us"]
        places = f"; vCPUs {placement(largest)} vs {placement(one)}" if "placement" in one else ""
        out.append({"target": f"8 B READ p50 with {n} connections (the rest idle) vs 1 connection", "goal": "<= 1.2x",
                    "ratio": round(value, 3), "met": value <= 1.2,
                    "measured": f"{largest['readIdle']['p50Us']:.2f} vs {one['readIdle']['p50Us']:.2f} us{places}"})
    for r in scale["setupRate"]:
        out.append({"target": f"soft connect+accept per second, {r['connectors']} connector(s), vs TCP connect + "
                              "1-byte round trip", "goal": ">= 0.8x", "ratio": round(r["ratio"], 3),
                    "measured": f"{r['softPerSecond']:.0f} vs {r['tcpPerSecond']:.0f} /s", "met": r["ratio"] >= 0.8})
    return out


def placement(row):
    """Where the host had the two vCPUs around a row (ConnectionScale's core-to-core probe): near, far or changed."""
    p = row.get("placement")
    return "" if not p else f"{p['mode']} ({p['beforeNs']:.0f}/{p['afterNs']:.0f} ns)"


def plot_scale(scale, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted(scale["results"], key=lambda r: r["connections"])
    n = [r["connections"] for r in rows]
    fig, (mem, setup, read) = plt.subplots(1, 3, figsize=(16, 4.5))
    for key, label in (("memoryBytesPerConnection", "heap + direct"), ("heapBytesPerConnection", "heap"),
                       ("directBytesPerConnection", "direct")):
        mem.plot(n, [r[key] / 1024 for r in rows], marker="o", label=label)
    mem.axhline(32, linestyle="--", color="gray", linewidth=1, label="target 32 KiB")
    mem.set_ylabel("KiB per connection (both ends)")
    setup.plot(n, [r["establishSeconds"] for r in rows], marker="o", label=f"all N, {scale['inFlight']} in flight")
    setup.set_yscale("log")
    setup.set_ylabel("seconds to establish N")
    read.plot(n, [r["readIdle"]["p50Us"] for r in rows], marker="o", label="p50, the rest idle")
    busy = [(r["connections"], r["readBusy"]["p50Us"]) for r in rows if r.get("readBusy")]
    if busy:
        read.plot([b[0] for b in busy], [b[1] for b in busy], marker="o", label="p50, a tenth busy")
    read.set_yscale("log")
    read.set_ylabel("8 B READ round trip, us")
    save(fig, ((mem, "memory per idle connection"), (setup, "set-up time"), (read, "READ on one connection")), 10,
         os.path.join(out_dir, "scale.png"))


def scale_markdown(scale):
    if not scale:
        return []
    rows = sorted(scale["results"], key=lambda r: r["connections"])
    one = next((r for r in rows if r["connections"] == 1), None)
    ratio = lambda r, key: "" if not one or not r.get(key) else f"{r[key]['p50Us'] / one['readIdle']['p50Us']:.2f}x"
    lines = ["## Connection scale (ConnectionScale, soft on loopback)", "",
             f"N connections between one client runtime (application-driven, this thread polls) and one server "
             f"runtime (one busy-spinning poller) in a second JVM, listening on 127.0.0.1..k (one listener per "
             f"{scale['perListener']} connections), {scale['inFlight']} connects in flight. Memory: heap after a "
             "full GC plus direct buffers of both JVMs, after minus before, per connection (a client end and a "
             "server end); the resident set's growth beside it; kernel socket memory is in neither. READ: 8 B, "
             "callback API, on one connection while the rest are idle, and while a tenth of them each keep one "
             "READ outstanding on the same runtimes (the probe queues behind theirs). Ratios are to N = 1. vCPUs: "
             "a cache line's round trip between the two CPUs before and after the row, near (about 100 ns) or far "
             "(about 500 ns); the host moves them, and a loopback round trip is about 40% slower far. A row whose "
             "placement differed from the first row's was measured again (attempt: which one this is).", "",
             "| N | set-up time | connects/s | memory/conn | heap | direct | RSS | READ p50 idle | p99 | ratio | "
             "READ p50 10% busy | p99 | ratio | busy READs/s | vCPUs | attempt |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b = r.get("readBusy")
        busy = (f"{b['p50Us']:.1f} us | {b['p99Us']:.1f} us | {ratio(r, 'readBusy')} | {b['busyReadsPerSecond']:.0f}"
                if b else " | | | ")
        lines.append(f"| {r['connections']} | {r['establishSeconds'] * 1000:.1f} ms | {r['connectsPerSecond']:.0f} | "
                     f"{r['memoryBytesPerConnection'] / 1024:.1f} KiB | {r['heapBytesPerConnection'] / 1024:.1f} KiB | "
                     f"{r['directBytesPerConnection'] / 1024:.1f} KiB | {r['rssBytesPerConnection'] / 1024:.1f} KiB | "
                     f"{r['readIdle']['p50Us']:.1f} us | {r['readIdle']['p99Us']:.1f} us | {ratio(r, 'readIdle')} | "
                     f"{busy} | {placement(r)} | {r.get('attempt', '')} |")
    lines += ["", "Set-up rate: threads that each connect, wait until established and close, against a one-poller "
                  "server (soft; both runtimes back off) or a one-thread NIO echo server (TCP: blocking connect, a "
                  "1-byte round trip, close).", "",
              "CPU/connect: the process's CPU time (user and system, every thread, idle spinning included) per connect "
              "while connects were counted.", "",
              "| connectors | soft connect+accept/s | TCP connect+round trip/s | ratio | soft CPU/connect | "
              "TCP CPU/connect | vCPUs |", "|---|---|---|---|---|---|---|"]
    cpu = lambda r, key: f"{r[key]:.0f} us" if key in r else ""
    for r in scale["setupRate"]:
        lines.append(f"| {r['connectors']} | {r['softPerSecond']:.0f} | {r['tcpPerSecond']:.0f} | {r['ratio']:.2f} | "
                     f"{cpu(r, 'softCpuMicrosPerConnect')} | {cpu(r, 'tcpCpuMicrosPerConnect')} | {placement(r)} |")
    return lines + ["", "![scale](scale.png)", ""]


def parallel_baselines(raw):
    """The baselines beside PollerScaling, by connection count N: "iperf3" (raw/iperf3-P<N>.json, N streams' received
    MiB/s) and "sockperf" (raw/sockperf-P<N>.log, round trips per second of the busy-poll ping-pong over N sockets)."""
    iperf3, sockperf = {}, {}
    for path in glob.glob(os.path.join(raw, "iperf3-P*.json")):
        n = int(re.search(r"iperf3-P(\d+)\.json$", path).group(1))
        iperf3[n] = json.load(open(path))["end"]["sum_received"]["bits_per_second"] / 8 / MIB
    for path in glob.glob(os.path.join(raw, "sockperf-P*.log")):
        n = int(re.search(r"sockperf-P(\d+)\.log$", path).group(1))
        m = re.search(r"\[Valid Duration\] RunTime=([0-9.]+) sec;.*ReceivedMessages=(\d+)", open(path).read())
        if m:
            sockperf[n] = int(m.group(2)) / float(m.group(1))
    return {"iperf3": iperf3, "sockperf": sockperf}


def poller_targets(pollers):
    """2 pollers and 16 connections: aggregate 64 KiB READ throughput against iperf3 -P 16, same run."""
    if not pollers:
        return []
    row = next((r for r in pollers["results"] if r["pollers"] == 2 and r["connections"] == 16
                and r["load"] == "READ_64K"), None)
    tcp = pollers["iperf3"].get(16)
    if not row or not tcp:
        return []
    value = row["mib_per_s"] / tcp
    return [{"target": "soft 64 KiB READ throughput, 2 pollers x 16 connections, vs iperf3 -P 16", "goal": ">= 0.9x",
             "ratio": round(value, 3), "measured": f"{row['mib_per_s']:.0f} vs {tcp:.0f} MiB/s", "met": value >= 0.9}]


def poller_markdown(pollers):
    if not pollers:
        return []
    lines = ["## Poller scaling (PollerScaling, soft on loopback)", "",
             "P pollers in each of two runtimes, N connections spread over them round robin (both sides), 16 "
             "operations in flight on each, re-posted from their callbacks. Busiest / idlest: the share of "
             "operations the most and the least served connection got, against an even share (1.00 = even). "
             "iperf3 -P N: N TCP streams in one iperf3 run. sockperf over N: busy-poll TCP ping-pong of 32 B "
             "messages over N sockets, bursts of 16 x N spread round robin, so 16 requests in flight on each socket "
             "as on each connection here; its rate counts round trips, one per READ. Same machine, same run.", "",
             "| pollers | connections | 64 KiB READ MiB/s | vs iperf3 -P N | 64 KiB WRITE MiB/s | 8 B READs/s | "
             "vs sockperf over N | busiest / idlest (READ 64 KiB) | iperf3 -P N MiB/s | sockperf over N round trips/s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    by = {(r["pollers"], r["connections"], r["load"]): r for r in pollers["results"]}
    for p, n in sorted({(r["pollers"], r["connections"]) for r in pollers["results"]}):
        read, write, small = by.get((p, n, "READ_64K")), by.get((p, n, "WRITE_64K")), by.get((p, n, "READ_8B"))
        tcp, pings = pollers["iperf3"].get(n), pollers.get("sockperf", {}).get(n)
        versus = f"{read['mib_per_s'] / tcp:.2f}x" if tcp else ""
        versus_pings = f"{small['ops_per_s'] / pings:.2f}x" if pings else ""
        lines.append(f"| {p} | {n} | {read['mib_per_s']:.0f} | {versus} | {write['mib_per_s']:.0f} | "
                     f"{small['ops_per_s']:.0f} | {versus_pings} | {read['busiest_share']:.2f} / "
                     f"{read['idlest_share']:.2f} | {f'{tcp:.0f}' if tcp else ''} | {f'{pings:.0f}' if pings else ''} |")
    return lines + ["", "![pollers](pollers.png)", ""]


def plot_pollers(pollers, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (bw, rate) = plt.subplots(1, 2, figsize=(12, 4.5))
    for p in sorted({r["pollers"] for r in pollers["results"]}):
        for ax, load, key in ((bw, "READ_64K", "mib_per_s"), (rate, "READ_8B", "ops_per_s")):
            pts = sorted((r["connections"], r[key]) for r in pollers["results"] if r["pollers"] == p and r["load"] == load)
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=f"{p} poller(s)")
    if pollers["iperf3"]:
        pts = sorted(pollers["iperf3"].items())
        bw.plot([x for x, _ in pts], [y for _, y in pts], marker="s", linestyle="--", color="gray", label="iperf3 -P N")
    if pollers.get("sockperf"):
        pts = sorted(pollers["sockperf"].items())
        rate.plot([x for x, _ in pts], [y for _, y in pts], marker="s", linestyle="--", color="gray",
                  label="sockperf over N sockets")
    bw.set_ylabel("64 KiB READ, MiB/s (all connections)")
    rate.set_ylabel("8 B READs per second (all connections)")
    save(fig, ((bw, "throughput"), (rate, "operation rate")), 2, os.path.join(out_dir, "pollers.png"))


def save(fig, panels, log_base, path):
    """Connections on a log x axis (base 10 or 2) for every (axes, title) panel; writes the figure to path."""
    import matplotlib.pyplot as plt
    for ax, title in panels:
        ax.set_xscale("log", base=log_base)
        ax.set_xlabel("connections")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def setup_rate_targets(rates):
    """Issue 16: cmtime's client (Linux siw) gets its connections accepted by a soft listener at >= the rate of siw's
    own listener (cmtime's server), the connect step, in the same VM boot."""
    siw = rates.get("siw0")
    if not siw:
        return []
    by = {(r["client"], r["listener"], r["connections"]): r for r in siw["results"]}
    out = []
    for n in siw["counts"]:
        soft, kernel = by[("cmtime", "soft", n)]["connectsPerSecond"], by[("cmtime", "cmtime", n)]["connectsPerSecond"]
        value = soft / kernel
        out.append({"target": f"soft listener vs siw's own listener accepting cmtime (siw) connections, {n} at once "
                              "(VM, emulated)", "goal": ">= 1.0x", "ratio": round(value, 3),
                    "measured": f"{soft:.0f} vs {kernel:.0f} connects/s", "met": value >= 1.0})
    return out


def setup_rate_markdown(rates):
    if not rates:
        return []
    lines = ["## VM set-up rate (cmtime, emulated RDMA)", "",
             "librdmacm's `cmtime` (rdma-core 44) on one device, every pair in the same VM boot, after a warm-up "
             "round. Its client resolves all N addresses and routes, creates N queue pairs (depth 1), then has all N "
             "connects in flight: *connect* is that step's rate (first `rdma_connect` to last established), *set-up* "
             "the rate of create id through connect. The listener is cmtime's server (the kernel's rdma_cm listener: "
             "siw's or rxe's), a `soft` listener (siw0 only: soft speaks iWARP) or a `verbs` listener; the `verbs` "
             "connector starts all N connects at once against a cmtime server (its set-up includes resolving and "
             "creating its queue pairs). Ratios are to cmtime against cmtime on the same device. N stays at most 48: "
             "siw's queue keys are page offsets and libsiw (rdma-core 44) takes page 144's for a failed mapping, so a "
             "process with 144 queue pages mapped can create no further CQ or QP (cmtime's 72nd QP, at 2 pages each; "
             "a verbs connection's 49th, at 3). TCG emulation: compare ratios only.", "",
             "| device | N | client → listener | connect/s | ratio | set-up/s | ratio | disconnect ms | "
             "cmtime steps ms (resolve addr / route / create qp / connect) |", "|---|---|---|---|---|---|---|---|---|"]
    for dev, rate in sorted(rates.items()):
        by = {(r["client"], r["listener"], r["connections"]): r for r in rate["results"]}
        for r in rate["results"]:
            base = by[("cmtime", "cmtime", r["connections"])]
            connect = r.get("connectsPerSecond")
            versus = "" if connect is None else f"{connect / base['connectsPerSecond']:.2f}"
            steps = r.get("steps")
            breakdown = "" if not steps else " / ".join(
                f"{steps[s]['totalMs']:.0f}" for s in ("resolve addr", "resolve route", "create qp", "connect"))
            lines.append(f"| {dev} | {r['connections']} | {r['client']} → {r['listener']} | "
                         f"{'' if connect is None else f'{connect:.0f}'} | {versus} | {r['setupPerSecond']:.0f} | "
                         f"{r['setupPerSecond'] / base['setupPerSecond']:.2f} | {r['disconnectMs']:.0f} | "
                         f"{breakdown} |")
    return lines + [""]
