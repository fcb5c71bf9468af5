"""The Netty transport's sections of a bin/bench report (issue 26): GrpcBench's raw/grpc-host.json, gRPC-java over the
Netty transport on soft beside the same program over Netty's NIO and epoll transports (medians of rounds taken in
turns), and raw/grpc-DEV.json, the same on verbs beside NIO in the RDMA VM (DEV rxe0 or siw0); and
NettyAllocationCheck's raw/netty-alloc-host.json, bytes the event loops allocate per echoed message."""
import json
import os
import re
import statistics

MIB = 1 << 20
# bench-vm.sh runs each perftest pair of its device step at these operation counts.
SHORT_RUN, LONG_RUN = 2000, 20000
MEASURED = LONG_RUN - SHORT_RUN


def load(path):
    return json.load(open(path)) if os.path.exists(path) else None


def by_transport(run):
    return {t["transport"]: t for t in run["transports"]}


def grpc_side(where):
    """GrpcBench's label for our transport, and its name in a report: soft on the host, verbs on a VM device."""
    return ("rdma-soft", "soft") if where == "host" else ("rdma-verbs", f"verbs {where}")


def paired_ratios(ours, base, key):
    """Each round's ratio of our figure to the baseline's, both measured in that round one after the other: the host's
    slow and fast phases, which move a median of rounds, move both sides of one round less. None when the rounds do
    not pair up."""
    rounds = "roundsMeanMicros" if key == "unary" else "roundsMessagesPerSecond"
    a, b = ours[key].get(rounds), base[key].get(rounds)
    if not a or not b or len(a) != len(b):
        return None
    return [x / y for x, y in zip(a, b)]


def paired_text(ratios):
    """The per-round ratios' median and range, for a target's "measured" column."""
    if not ratios:
        return ""
    return f"; per round {statistics.median(ratios):.2f}x median, {min(ratios):.2f}-{max(ratios):.2f}x"


def rounds_text(ratios):
    return ", ".join(f"{r:.2f}x" for r in ratios) if ratios else ""


def grpc_targets(run, where="host"):
    """Issue 26's targets: unary 1 KiB round trip <= 1.0x NIO's, streaming throughput >= 1.0x NIO's (on a VM device:
    beside NIO in the same boot). The ratio judged is that of the two medians of rounds, as GrpcBench states; the
    per-round ratios beside it show how far the host's phases move it."""
    if run is None:
        return []
    label, ours_name = grpc_side(where)
    t = by_transport(run)
    ours, nio = t.get(label), t.get("nio")
    out = []
    for name, goal, key, field, le, unit in (
            (f"gRPC unary 1 KiB round trip (mean), {ours_name} vs Netty NIO", 1.0, "unary", "meanMicros", True, "us"),
            (f"gRPC server-streaming 1 KiB messages per second, {ours_name} vs Netty NIO", 1.0, "stream",
             "messagesPerSecond", False, "msg/s")):
        goal_text = ("<= " if le else ">= ") + f"{goal:g}x"
        if ours and nio:
            value = ours[key][field] / nio[key][field]
            out.append({"target": name, "goal": goal_text, "ratio": round(value, 3), "met": value <= goal if le
                        else value >= goal, "measured": f"{ours[key][field]:.1f} vs {nio[key][field]:.1f} {unit}"
                                    + paired_text(paired_ratios(ours, nio, key))})
        else:
            out.append({"target": name, "goal": goal_text, "ratio": None, "met": False,
                        "measured": "no result: " + " and ".join(n for n, x in ((ours_name, ours), ("nio", nio))
                                                                 if x is None) + " missing"})
    return out


def warm_up(run):
    """How the run's warm-up ended (runs before GrpcBench measured it have no such fields)."""
    if "warmUpSeconds" not in run:
        return ""
    share = 100 * run["warmUpJitShare"]
    settled = run.get("warmUpSettled")  # GrpcBench's verdict; runs of daa6d56 recorded only the share
    end = "" if settled is None else (": the JIT had settled" if settled
                                      else ": its limit ended it before the JIT settled")
    return (f" Warm-up: {run['warmUpSeconds']:g} s in {run['warmUpPasses']} passes, the JIT compiling for {share:.1f}% "
            f"of the last pass's time{end}.")


def grpc_markdown(run, where="host"):
    if run is None:
        return []
    label, ours_name = grpc_side(where)
    t = by_transport(run)
    if where == "host":
        title, place = "## gRPC over the Netty transport (GrpcBench)", "in one JVM on loopback"
    else:
        title = f"## gRPC over the Netty transport on verbs, {where} in the VM (GrpcBench)"
        place = (f"in one JVM inside the RDMA VM, every transport at eth0's address ({where} is bound to it); under "
                 "emulation only the ratios mean something")
    lines = [title, "",
             f"gRPC-java (byte-array marshaller, direct executors, one event loop thread for the server and one for "
             f"the client) {place}: unary calls of {run['size']} B each way, one at a time, and "
             f"server-streaming calls of {run['streamMessages']:,} messages of {run['size']} B under gRPC's flow "
             f"control. Each transport measured {run['seconds']:g} s per benchmark in each of {run['rounds']} rounds "
             "taken in turns (the order reversed every other round); the figures are medians of the rounds. CPU: "
             "the whole process's user and system time (client and server) per call or message." + warm_up(run), "",
             "| transport | unary mean us | p50 us | p99 us | calls/s | CPU us/call | stream msg/s | MB/s | "
             "CPU us/msg | unary means by round | stream rates by round |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in t.items():
        u, s = r["unary"], r["stream"]
        lines.append(f"| {name} | {u['meanMicros']:.1f} | {u['p50Micros']:.1f} | {u['p99Micros']:.1f} | "
                     f"{u['callsPerSecond']:.0f} | {u['cpuMicrosPerCall']:.1f} | {s['messagesPerSecond']:.0f} | "
                     f"{s['megabytesPerSecond']:.1f} | {s['cpuMicrosPerMessage']:.2f} | "
                     f"{', '.join(f'{v:.1f}' for v in u['roundsMeanMicros'])} | "
                     f"{', '.join(f'{v:.0f}' for v in s['roundsMessagesPerSecond'])} |")
    for ours_label in [x for x in t if x == label or x.startswith(label + "-")]:  # the default, then "-blocking"
        ours = t[ours_label]
        short = ours_name.split()[0] + ours_label[len(label):]
        for base in ("nio", "epoll"):
            if base not in t:
                continue
            b = t[base]
            lines.append(f"| {short}/{base} | {ours['unary']['meanMicros'] / b['unary']['meanMicros']:.2f}x | "
                         f"{ours['unary']['p50Micros'] / b['unary']['p50Micros']:.2f}x | "
                         f"{ours['unary']['p99Micros'] / b['unary']['p99Micros']:.2f}x | | "
                         f"{ours['unary']['cpuMicrosPerCall'] / b['unary']['cpuMicrosPerCall']:.2f}x | "
                         f"{ours['stream']['messagesPerSecond'] / b['stream']['messagesPerSecond']:.2f}x | | "
                         f"{ours['stream']['cpuMicrosPerMessage'] / b['stream']['cpuMicrosPerMessage']:.2f}x | "
                         f"{rounds_text(paired_ratios(ours, b, 'unary'))} | "
                         f"{rounds_text(paired_ratios(ours, b, 'stream'))} |")
    for skipped in run.get("skipped", []):
        lines.append(f"\nNot measured: {skipped}")
    variants = ""
    if label + "-blocking" in t:  # a run without the variant says nothing of idle strategies
        variants = (f" {ours_name.split()[0]}: the group's default idle strategy (BACKOFF: a loop polls for a few "
                    "hundred turns before it blocks); -blocking: loops that block as soon as they are idle, as "
                    "Netty's own do.")
    return lines + ["", "ours/base: for latency and CPU lower is better, for messages per second higher; the last two "
                     "columns give each round's ratio (both sides measured in that round), in round order." + variants,
                    ""]


# Bytes per message the transport may allocate beyond the least of Netty's own transports: the counters are exact,
# and this leaves room only for a stray object over the hundreds of thousands of messages counted.
ALLOCATION_SLACK = 0.5


def allocation_targets(check):
    """Issue 26: the channel's steady-state path allocates nothing per message beyond what Netty itself allocates."""
    if check is None:
        return []
    r = {x["transport"]: x for x in check["results"]}
    rdma, epoll = r.get("rdma-soft"), r.get("epoll")
    name = "Netty echo, bytes allocated per message by both event loops, soft vs Netty epoll"
    if rdma is None or epoll is None:  # NIO alone allocates tens of bytes a message: no yardstick for "nothing"
        return [{"target": name, "goal": f"<= +{ALLOCATION_SLACK} B", "ratio": None, "met": False,
                 "measured": "no result: " + " and ".join(n for n, x in (("soft", rdma), ("epoll", epoll))
                                                          if x is None) + " missing"}]
    ours = rdma["clientBytesPerMessage"] + rdma["serverBytesPerMessage"]
    least = epoll["clientBytesPerMessage"] + epoll["serverBytesPerMessage"]
    return [{"target": name, "goal": f"<= +{ALLOCATION_SLACK} B", "ratio": None, "met": ours <= least + ALLOCATION_SLACK,
             "measured": f"{ours:.2f} vs {least:.2f} B/msg"}]


def allocation_markdown(check):
    if check is None:
        return []
    lines = ["## Netty echo allocation (NettyAllocationCheck)", "",
             f"Exact bytes each event loop thread allocated per echoed message of {check['size']} B, "
             f"{check['window']} in flight, pooled buffers of the channel's allocator, Netty's leak detector off.", "",
             "| transport | messages | client loop B/msg | server loop B/msg |", "|---|---|---|---|"]
    for x in check["results"]:
        lines.append(f"| {x['transport']} | {x['messages']} | {x['clientBytesPerMessage']:.2f} | "
                     f"{x['serverBytesPerMessage']:.2f} |")
    for skipped in check.get("skipped", []):
        lines.append(f"\nNot measured: {skipped}")
    return lines + [""]


def perftest_result(path, first_two):
    """The fields of a perftest log's result line, the one that starts with {@code first_two} (size, iterations)."""
    for line in open(path):
        fields = line.split()
        if fields[:2] == first_two:
            return fields
    raise ValueError(f"{path}: no result line for {' '.join(first_two)}")


def found(pattern, text, what):
    """The first group of pattern's match in text; ValueError naming what when it is not there."""
    m = re.search(pattern, text)
    if m is None:
        raise ValueError(f"no {what}")
    return m.group(1)


def device_baseline(raw, dev):
    """bench-vm.sh's device step on dev: its SEND round trip and 16 KiB throughput beside TCP's in the same boot, with
    machine CPU per operation (a perftest tool's from the difference of its 20,000- and 2,000-operation runs, so its
    start-up cancels out). None when the step did not run; OSError, KeyError, ValueError or ZeroDivisionError when a
    tool's output is missing or incomplete (bench-vm.sh left that tool out)."""
    cpu_path = os.path.join(raw, f"device-{dev}.cpu")
    if not os.path.exists(cpu_path):
        return None
    ticks = dict((name, int(value)) for name, value in (line.split() for line in open(cpu_path)))
    seconds = lambda name: ticks[name] / 100.0  # /proc/stat counts 100 ticks a second
    log = lambda name: os.path.join(raw, f"device-{name}-{dev}.log")
    sockperf = open(log("sockperf")).read()
    iperf = json.load(open(os.path.join(raw, f"iperf3-device-{dev}.json")))["end"]["sum_received"]
    mib = MEASURED * 16384 / MIB
    return {
        # perftest's send_lat t_avg and sockperf's avg-latency are each half a round trip.
        "rtDevice": 2 * float(perftest_result(log(f"send-lat-{LONG_RUN}"), ["1024", str(LONG_RUN)])[5]),
        "rtTcp": 2 * float(found(r"avg-latency=([\d.]+)", sockperf, "sockperf latency")),
        "cpuRtDevice": (seconds(f"send-lat-{LONG_RUN}") - seconds(f"send-lat-{SHORT_RUN}")) / MEASURED * 1e6,
        "cpuRtTcp": seconds("sockperf")
        / int(found(r"\[Total Run\].*ReceivedMessages=(\d+)", sockperf, "sockperf round trips")) * 1e6,
        "mibDevice": float(perftest_result(log(f"send-bw-{LONG_RUN}"), ["16384", str(LONG_RUN)])[3]),
        "mibTcp": iperf["bits_per_second"] / 8 / MIB,
        "cpuMibDevice": (seconds(f"send-bw-{LONG_RUN}") - seconds(f"send-bw-{SHORT_RUN}")) * 1e3 / mib,
        "cpuMibTcp": seconds("iperf3") * 1e3 / (iperf["bytes"] / MIB),
    }


def device_markdown(raw, dev, grpc_run):
    title = f"## {dev} beside TCP, in the boot of the gRPC step"
    try:
        d = device_baseline(raw, dev)
    except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
        return [title, "", f"Not measured: a tool's output is missing or incomplete ({e}).", ""]
    if d is None:
        return []
    lines = [title, "",
             "The device's own SEND round trip and throughput beside TCP's over the same address, both sides "
             "event-driven as blocking event loops are: ib_send_lat -e of 1 KiB against sockperf ping-pong of 1 KiB, "
             "ib_send_bw -e of 16 KiB with 16 in flight against one iperf3 stream of 16 KiB writes. CPU is the "
             "machine's, kernel included, per operation.", "",
             "| | device | TCP | device / TCP |", "|---|---|---|---|",
             f"| 1 KiB round trip, us | {d['rtDevice']:.1f} | {d['rtTcp']:.1f} | {d['rtDevice'] / d['rtTcp']:.2f}x |",
             f"| CPU per round trip, us | {d['cpuRtDevice']:.1f} | {d['cpuRtTcp']:.1f} | "
             f"{d['cpuRtDevice'] / d['cpuRtTcp']:.2f}x |",
             f"| 16 KiB messages, MiB/s | {d['mibDevice']:.1f} | {d['mibTcp']:.1f} | "
             f"{d['mibDevice'] / d['mibTcp']:.2f}x |",
             f"| CPU per MiB, ms | {d['cpuMibDevice']:.2f} | {d['cpuMibTcp']:.2f} | "
             f"{d['cpuMibDevice'] / d['cpuMibTcp']:.2f}x |", ""]
    transports = by_transport(grpc_run) if grpc_run else {}
    nio = transports.get("nio")
    if nio is not None:
        # gRPC's own work is the same over both; only the transport under it changes.
        nio_ms = nio["stream"]["cpuMicrosPerMessage"] * (MIB / grpc_run["size"]) / 1e3
        stream_cap = nio_ms / (nio_ms - d["cpuMibTcp"] + d["cpuMibDevice"])
        unary_time = (nio["unary"]["meanMicros"] + d["rtDevice"] - d["rtTcp"]) / nio["unary"]["meanMicros"]
        unary_cpu = ((nio["unary"]["cpuMicrosPerCall"] + d["cpuRtDevice"] - d["cpuRtTcp"])
                     / nio["unary"]["cpuMicrosPerCall"])
        lines += [f"What the device alone leaves for gRPC over it, were the transport to cost what NIO's path does "
                  f"(an estimate: gRPC's CPU is the JVM's, the device's and TCP's the machine's): "
                  f"NIO's stream spends {nio_ms:.1f} ms of CPU per MiB, of which TCP's share is the "
                  f"{d['cpuMibTcp']:.2f} above, so a CPU-bound stream over {dev} reaches at most "
                  f"**{stream_cap:.2f}x** NIO's rate, and a unary call over loops that block at once takes at least "
                  f"**{unary_time:.2f}x** NIO's time and {unary_cpu:.2f}x its CPU."]
        ours = transports.get("rdma-verbs")
        if ours is not None:
            stream = ours["stream"]["messagesPerSecond"] / nio["stream"]["messagesPerSecond"]
            lines[-1] += (f" Measured above, the stream over verbs ran at {stream:.2f}x NIO's rate, "
                          f"{stream / stream_cap:.2f} of that cap")
            blocking = transports.get("rdma-verbs-blocking")
            if blocking is not None:
                unary = blocking["unary"]["meanMicros"] / nio["unary"]["meanMicros"]
                lines[-1] += (f", and the unary call over blocking loops took {unary:.2f}x NIO's time, where the "
                              f"device alone would make it {unary_time:.2f}x")
            lines[-1] += "."
        lines.append("")
    return lines
