#!/usr/bin/python3
"""Turns one bin/bench run (OUT/raw) into OUT/results.json, OUT/README.md and the PNG plots.

Every ratio compares two numbers from the same run. Latencies are means in microseconds (JMH's average time,
perftest's t_avg, sockperf's round trip); throughputs are MiB/s (perftest's MB is 2^20 bytes).
"""
import glob
import json
import os
import re
import sys

from netty_report import allocation_markdown as netty_allocation_markdown
from netty_report import allocation_targets as netty_allocation_targets
from netty_report import device_markdown, grpc_markdown, grpc_targets, load as load_json
from kv_report import kv_markdown
from msgrate_report import msgrate_markdown, plot_msgrate, plot_vm_msgrate, vm_msgrate, vm_msgrate_markdown
from scale_report import (parallel_baselines, plot_pollers, plot_scale, poller_markdown, poller_targets,
                          scale_markdown, scale_targets, setup_rate_markdown, setup_rate_targets)

MIB = 1 << 20
# The RDMA VM's devices (bin/bench runs bench-vm.sh on each): files raw/*-DEV.json are theirs.
VM_DEVICES = ("rxe0", "siw0")


def jmh_rows(path, suite):
    rows = []
    for r in json.load(open(path)):
        bench = r["benchmark"].rsplit(".", 2)
        cls, method = bench[-2], bench[-1]
        params = r.get("params", {})
        m = r["primaryMetric"]
        alloc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
        alloc_rate = r.get("secondaryMetrics", {}).get("gc.alloc.rate", {}).get("score")
        size = int(params.get("size", 65536))
        if m["scoreUnit"] == "ops/ms":
            value, error, metric = m["score"] * 1000 * size / MIB, m["scoreError"] * 1000 * size / MIB, "MiB/s"
        else:
            value, error, metric = m["score"], m["scoreError"], "us"
        system = {"nioPingPong": "java-nio", "nioStream": "java-nio", "tcpConnectRoundTrip": "java-nio"}.get(method)
        if system is None:
            system = {"JucxGetBenchmark": "jucx", "DisniReadBenchmark": "disni"}.get(cls, params.get("provider", "?"))
        rows.append({"suite": suite, "system": system, "benchmark": cls + "." + method, "params": params,
                     "metric": metric, "value": value, "error": error if error == error else None,
                     "alloc_bytes_per_op": alloc, "alloc_mb_per_s": alloc_rate})
    return rows


def native_rows(raw):
    rows = []
    for path in glob.glob(os.path.join(raw, "sockperf-[0-9]*.log")):
        m = re.search(r"Round trip is ([0-9.]+) usec", open(path).read())
        size = re.search(r"sockperf-(\d+)\.log", path).group(1)
        if m:
            rows.append({"suite": "host", "system": "sockperf", "benchmark": "sockperf ping-pong (TCP, busy poll)",
                         "params": {"size": size}, "metric": "us", "value": float(m.group(1))})
    iperf = os.path.join(raw, "iperf3.json")
    if os.path.exists(iperf):
        bps = json.load(open(iperf))["end"]["sum_received"]["bits_per_second"]
        rows.append({"suite": "host", "system": "iperf3", "benchmark": "iperf3 (TCP, one stream)",
                     "params": {}, "metric": "MiB/s", "value": bps / 8 / MIB})
    clients = lambda pattern: [p for p in glob.glob(os.path.join(raw, pattern)) if not p.endswith(".server.log")]
    # ib_read_lat ran right before and (.after) right after the verbs latency run of its size: the baseline is the
    # mean of the two t_avg values, both kept.
    lat = {}
    for path in clients("perftest-lat-*.log"):
        dev, size = re.search(r"perftest-lat-(\w+)-(\d+)(?:\.after)?\.log$", path).groups()
        for line in open(path):
            f = line.split()
            if len(f) >= 6 and f[0] == size and f[1].isdigit():
                lat.setdefault((dev, size), []).append((float(f[5]), float(f[4])))
    for (dev, size), runs in sorted(lat.items()):
        rows.append({"suite": dev, "system": "perftest", "benchmark": "ib_read_lat", "params": {"size": size},
                     "metric": "us", "value": sum(r[0] for r in runs) / len(runs),
                     "runs_t_avg": [r[0] for r in runs], "typical": sum(r[1] for r in runs) / len(runs)})
    for path in clients("perftest-bw-*.log"):
        dev, window = re.search(r"perftest-bw-(\w+)-(\d+)\.log$", path).groups()
        for line in open(path):
            f = line.split()
            if len(f) >= 4 and f[0] == "65536" and f[1].isdigit():
                rows.append({"suite": dev, "system": "perftest", "benchmark": "ib_read_bw",
                             "params": {"size": "65536", "window": window}, "metric": "MiB/s", "value": float(f[3])})
    return rows


def find(rows, suite, system, benchmark, **params):
    for r in rows:
        if r["suite"] == suite and r["system"] == system and r["benchmark"].endswith(benchmark) \
                and all(str(r["params"].get(k)) == str(v) for k, v in params.items()):
            return r
    return None


def targets(rows):
    out = []
    suites = {r["suite"] for r in rows}

    def ratio(name, goal, num, den, le):
        goal_text = ("<= " if le else ">= ") + f"{goal:g}x"
        if num and den:
            value = num["value"] / den["value"]
            met = value <= goal if le else value >= goal
            out.append({"target": name, "goal": goal_text, "ratio": round(value, 3),
                        "measured": f"{num['value']:.2f} vs {den['value']:.2f} {num['metric']}", "met": met})
        elif (name.split()[1] if name.startswith("verbs ") else "host") in suites:
            # The part of the run that measures this target ran, yet a result is missing: not met, and said so.
            out.append({"target": name, "goal": goal_text, "ratio": None, "met": False,
                        "measured": "no result: " + " and ".join(
                            side for side, row in (("ours", num), ("baseline", den)) if row is None) + " missing"})

    soft = lambda size, api: find(rows, "host", "soft", "ReadLatencyBenchmark.read", size=size, api=api,
                                  driver="INVOKED")
    for api in ("FUTURE", "CALLBACK"):
        ratio(f"soft 8 B READ round trip ({api}) vs sockperf busy-poll TCP ping-pong (32 B)", 1.15,
              soft(8, api), find(rows, "host", "sockperf", "busy poll)", size=32), True)
        ratio(f"soft 8 B READ round trip ({api}) vs JUCX GET 8 B over TCP", 1.0, soft(8, api),
              find(rows, "host", "jucx", "getLatency", size=8), True)
    soft_bw = find(rows, "host", "soft", "ThroughputBenchmark.rdma", op="READ", size=65536, window=16,
                   driver="INVOKED")
    ratio("soft 64 KiB READ throughput (window 16) vs iperf3 one stream", 0.8, soft_bw,
          find(rows, "host", "iperf3", "one stream)"), False)
    ratio("soft 64 KiB READ throughput (window 16) vs JUCX GET (window 16)", 1.5, soft_bw,
          find(rows, "host", "jucx", "getThroughput", size=65536, window=16), False)
    # What the demo prints (ReadComparison): the same set-up against a Java NIO busy-polling peer. Not targets of
    # an issue; the goals are the demo's verdict lines (READ no slower than the round trip, no less than a stream).
    ratio("soft 8 B READ round trip (FUTURE) vs Java NIO busy-poll ping-pong (the demo's comparison)", 1.0,
          soft(8, "FUTURE"), find(rows, "host", "java-nio", "ReadLatencyBenchmark.nioPingPong", size=8), True)
    ratio("soft 64 KiB READ throughput (window 16) vs Java NIO stream (the demo's comparison)", 1.0, soft_bw,
          find(rows, "host", "java-nio", "nioStream", size=65536), False)
    for dev in sorted({r["suite"] for r in rows if r["suite"] != "host"}):
        # The sizes this run measured on the device (quick: 8 B only); a size whose run failed failed the bench.
        for size in sorted({int(r["params"]["size"]) for r in rows if r["suite"] == dev
                            and r["system"] == "perftest" and r["benchmark"] == "ib_read_lat"}):
            for api in ("FUTURE", "CALLBACK"):
                ratio(f"verbs {dev} {size} B READ latency ({api}) vs ib_read_lat t_avg", 1.10,
                      find(rows, dev, "verbs", "ReadLatencyBenchmark.read", size=size, api=api),
                      find(rows, dev, "perftest", "ib_read_lat", size=size), True)
        ratio(f"verbs {dev} 64 KiB READ throughput (window 16) vs ib_read_bw (16 outstanding)", 0.9,
              find(rows, dev, "verbs", "ThroughputBenchmark.rdma", op="READ", window=16),
              find(rows, dev, "perftest", "ib_read_bw", window=16), False)
    return out


def allocation_targets(checks):
    """Issue 6's allocation targets, judged from AllocationCheck's exact per-thread counts. Any object is at least
    16 bytes, so under 1 B/op more than the budget means no object per operation beyond it."""
    out = []
    for suite, check in sorted(checks.items()):
        budget = check["futureBudgetBytes"]
        for api, refused, goal, limit in (
                ("CALLBACK", False, "0 B/op (< 1 B/op: no object per operation)", 1.0),
                ("CALLBACK", True, "0 B/op: a refused post returns its status and builds no exception", 1.0),
                ("FUTURE", False, f"<= one future and its Completion ({budget:.0f} B here) + < 1 B", budget + 1.0)):
            results = [r for r in check["results"]
                       if r["api"] == api and r["op"].endswith("_REFUSED") == refused]
            if not results:
                continue
            client = max(r["clientBytesPerOp"] for r in results)
            server = max(r["serverBytesPerOp"] for r in results)
            ops = "/".join(dict.fromkeys(r["op"] for r in results))
            sizes = ",".join(dict.fromkeys(str(r["size"]) for r in results))
            path = "refused callback post" if refused else f"{api.lower()} path"
            out.append({"target": f"{path} allocation, {suite} {check['provider']} ({ops}, {sizes} B)",
                        "goal": goal, "ratio": None,
                        "measured": f"posting thread {client:.3f} B/op, server poller {server:.3f} B/op (largest)",
                        "met": client < limit and server < 1.0})
    return out


def plot(rows, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    suites = ["host"] + sorted({r["suite"] for r in rows if r["suite"] != "host"})
    suites = [s for s in suites if any(r["suite"] == s for r in rows)]
    series_lat = [("soft", "ReadLatencyBenchmark.read", {"api": "FUTURE", "driver": "INVOKED"}, "soft READ (future)"),
                  ("soft", "ReadLatencyBenchmark.read", {"api": "CALLBACK", "driver": "INVOKED"},
                   "soft READ (callback)"),
                  ("java-nio", "ReadLatencyBenchmark.nioPingPong", {}, "Java NIO ping-pong"),
                  ("jucx", "getLatency", {}, "JUCX GET (TCP)"),
                  ("sockperf", "busy poll)", {}, "sockperf ping-pong"),
                  ("verbs", "ReadLatencyBenchmark.read", {"api": "FUTURE"}, "verbs READ (future)"),
                  ("verbs", "ReadLatencyBenchmark.read", {"api": "CALLBACK"}, "verbs READ (callback)"),
                  ("disni", "readLatency", {}, "DiSNI endpoint READ"),
                  ("perftest", "ib_read_lat", {}, "ib_read_lat")]
    series_bw = [("soft", "ThroughputBenchmark.rdma", {"op": "READ", "driver": "INVOKED"}, "soft READ"),
                 ("soft", "ThroughputBenchmark.rdma", {"op": "WRITE", "driver": "INVOKED"}, "soft WRITE"),
                 ("jucx", "getThroughput", {}, "JUCX GET (TCP)"),
                 ("verbs", "ThroughputBenchmark.rdma", {"op": "READ"}, "verbs READ"),
                 ("verbs", "ThroughputBenchmark.rdma", {"op": "WRITE"}, "verbs WRITE"),
                 ("disni", "readThroughput", {}, "DiSNI endpoint READ"),
                 ("perftest", "ib_read_bw", {}, "ib_read_bw")]
    flat_bw = [("iperf3", "one stream)", "iperf3 one stream"), ("java-nio", "nioStream", "Java NIO stream")]

    def select(suite, system, bench, params):
        return [r for r in rows if r["suite"] == suite and r["system"] == system and r["benchmark"].endswith(bench)
                and all(str(r["params"].get(k)) == str(v) for k, v in params.items())]

    for name, series, key, xlabel, ylabel, logy in (
            ("latency.png", series_lat, "size", "bytes", "mean round trip, us", True),
            ("throughput.png", series_bw, "window", "operations in flight (64 KiB each)", "MiB/s", False)):
        fig, axes = plt.subplots(1, len(suites), figsize=(6 * len(suites), 4.5), squeeze=False)
        for ax, suite in zip(axes[0], suites):
            for system, bench, params, label in series:
                pts = sorted((int(r["params"].get(key, 0)), r["value"]) for r in select(suite, system, bench, params)
                             if key in r["params"])
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
            if name == "throughput.png":
                for system, bench, label in flat_bw:
                    for r in select(suite, system, bench, {}):
                        ax.axhline(r["value"], linestyle="--", linewidth=1, label=label, color="gray"
                                   if system == "java-nio" else "black")
            ax.set_xscale("log", base=2)
            if logy:
                ax.set_yscale("log")
            ax.set_title(suite if suite != "host" else "host loopback (soft)")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, name), dpi=110)
        plt.close(fig)


def placement_markdown(path):
    """bin/bench's core-to-core probes (raw/placement.txt: STEP before|after NANOSECONDS near|far) as a table."""
    if not os.path.exists(path):
        return []
    steps = {}
    for line in open(path):
        step, when, nanos, mode = line.split()
        steps.setdefault(step, {})[when] = f"{float(nanos):.0f} ns ({mode})"
    lines = ["## vCPU placement", "",
             "A cache line's round trip between the two vCPUs (CoreToCore) before and after each host step. The host "
             "moves them near (about 100 ns) or far (about 500 ns) apart every few tens of seconds, and a loopback "
             "round trip, TCP's or soft's, is about 40% slower far: ratios across steps that ran in different "
             "placements compare the host too.", "", "| step | before | after |", "|---|---|---|"]
    for step, probe in steps.items():
        lines.append(f"| {step} | {probe.get('before', '')} | {probe.get('after', '')} |")
    return lines + [""]


def markdown(out_dir, machine, rows, goals, checks, scale, pollers, rates, msgrate, vm_rates):
    lines = [f"# Benchmark run {os.path.basename(out_dir)}", "", "Produced by `bin/bench` (see docs/benchmarks/README.md).",
             "Ratios compare numbers from this one run; the VM's RDMA is emulated (TCG), so only its ratios mean "
             "anything.", "", "```", machine.strip(), "```", "", "## Targets (issues 6, 16 and 26)", "",
             "| target | goal | ratio | measured | met |", "|---|---|---|---|---|"]
    for g in goals:
        lines.append(f"| {g['target']} | {g['goal']} | {'' if g['ratio'] is None else g['ratio']} | "
                     f"{g['measured']} | {'yes' if g['met'] else '**no**'} |")
    lines.append("")
    if rows:
        lines += ["![latency](latency.png)", "", "![throughput](throughput.png)", ""]
    lines += placement_markdown(os.path.join(out_dir, "raw", "placement.txt"))
    lines += scale_markdown(scale)
    lines += poller_markdown(pollers)
    lines += msgrate_markdown(msgrate)
    lines += vm_msgrate_markdown(vm_rates)
    lines += setup_rate_markdown(rates)
    lines += kv_markdown(os.path.join(out_dir, "raw", "kv-host.json"))
    lines += grpc_markdown(load_json(os.path.join(out_dir, "raw", "grpc-host.json")))
    for dev in VM_DEVICES:
        grpc_run = load_json(os.path.join(out_dir, "raw", f"grpc-{dev}.json"))
        lines += grpc_markdown(grpc_run, dev)
        lines += device_markdown(os.path.join(out_dir, "raw"), dev, grpc_run)
    lines += netty_allocation_markdown(load_json(os.path.join(out_dir, "raw", "netty-alloc-host.json")))
    lines += ["## Allocation per operation (AllocationCheck)", "",
              "Exact bytes allocated in steady state by the thread that posts and completes the operations (an "
              "application-driven runtime) and by the server's poller thread. The B/op column of the results below "
              "is JMH's `-prof gc`, which spreads every thread's background allocation over the operations.", "",
              "| suite | op | api | size | operations | posting thread B/op | server poller B/op |",
              "|---|---|---|---|---|---|---|"]
    for suite, check in sorted(checks.items()):
        for r in check["results"]:
            lines.append(f"| {suite} | {r['op']} | {r['api']} | {r['size']} | {r['operations']} | "
                         f"{r['clientBytesPerOp']:.3f} | {r['serverBytesPerOp']:.3f} |")
    lines += ["", "## All results", "",
              "| suite | system | benchmark | parameters | value | B/op |", "|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["suite"], r["benchmark"], r["system"], json.dumps(r["params"]))):
        params = ", ".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
        err = f" ± {r['error']:.2f}" if r.get("error") else ""
        alloc = "" if r.get("alloc_bytes_per_op") is None else f"{r['alloc_bytes_per_op']:.1f}"
        lines.append(f"| {r['suite']} | {r['system']} | {r['benchmark']} | {params} | "
                     f"{r['value']:.2f}{err} {r['metric']} | {alloc} |")
    open(os.path.join(out_dir, "README.md"), "w").write("\n".join(lines) + "\n")


def main(out_dir):
    raw = os.path.join(out_dir, "raw")
    rows = []
    checks = {}
    scale = None
    pollers = None
    rates = {}  # setup-rate-<device>.json (setup-rate-vm.sh); its other raw files are logs
    msgrate = []  # msgrate-host-c<N>.json, one MessageRate run each
    vm_msgrate_rows = {}  # msgrate-<device>.json (bench-vm.sh): verbs, compared with perftest, not with NIO
    for path in sorted(glob.glob(os.path.join(raw, "*.json"))):
        name = os.path.basename(path)
        if name.startswith(("iperf3", "kv-", "grpc-", "netty-")):  # kv_report and netty_report read their own
            continue
        if name == "pollers-host.json":
            pollers = {"results": json.load(open(path)), **parallel_baselines(raw)}
            continue
        if name.startswith("setup-rate-"):
            m = re.fullmatch(r"setup-rate-((?:rxe|siw)\d+)\.json", name)
            if m:
                rates[m.group(1)] = json.load(open(path))
            continue
        if name.startswith("msgrate-"):
            m = re.fullmatch(r"msgrate-((?:rxe|siw)\d+)\.json", name)
            if m:
                vm_msgrate_rows[m.group(1)] = json.load(open(path))
            else:
                msgrate += json.load(open(path))
            continue
        if name == "scale-host.json":
            scale = json.load(open(path))
            continue
        if name.startswith("alloc-"):
            checks[name[len("alloc-"):-len(".json")]] = json.load(open(path))
            continue
        m = re.search(r"-((?:rxe|siw)\d+)\.json$", path)
        rows += jmh_rows(path, m.group(1) if m else "host")
    rows += native_rows(raw)
    vm_rates = vm_msgrate(raw, vm_msgrate_rows)
    grpc = load_json(os.path.join(raw, "grpc-host.json"))
    grpc_vm = {dev: load_json(os.path.join(raw, f"grpc-{dev}.json")) for dev in VM_DEVICES}
    netty_allocation = load_json(os.path.join(raw, "netty-alloc-host.json"))
    goals = (targets(rows) + allocation_targets(checks) + scale_targets(scale) + poller_targets(pollers)
             + setup_rate_targets(rates) + grpc_targets(grpc) + netty_allocation_targets(netty_allocation)
             + [t for dev, run in grpc_vm.items() for t in grpc_targets(run, dev)])
    machine = open(os.path.join(out_dir, "machine.txt")).read()
    json.dump({"machine": machine, "targets": goals, "results": rows, "allocation": checks, "scale": scale,
               "pollers": pollers, "setupRate": rates, "messageRate": msgrate, "vmMessageRate": vm_rates,
               "grpc": grpc, "grpcVm": grpc_vm, "nettyAllocation": netty_allocation},
              open(os.path.join(out_dir, "results.json"), "w"), indent=1)
    if rows:
        plot(rows, out_dir)
    if scale:
        plot_scale(scale, out_dir)
    if pollers:
        plot_pollers(pollers, out_dir)
    if msgrate:
        plot_msgrate(msgrate, out_dir)
    if vm_rates:
        plot_vm_msgrate(vm_rates, out_dir)
    markdown(out_dir, machine, rows, goals, checks, scale, pollers, rates, msgrate, vm_rates)
    for g in goals:
        print(f"{'ok ' if g['met'] else 'GAP'} {g['target']}: {g['measured']}"
              + ("" if g["ratio"] is None else f" ({g['ratio']}x, goal {g['goal']})"))


if __name__ == "__main__":
    main(sys.argv[1])
