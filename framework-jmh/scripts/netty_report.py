"""The Netty transport's sections of a bin/bench report (issue 26): GrpcBench's raw/grpc-host.json, gRPC-java over the
Netty transport on soft beside the same program over Netty's NIO and epoll transports (medians of rounds taken in
turns), and NettyAllocationCheck's raw/netty-alloc-host.json, bytes the event loops allocate per echoed message."""
import json
import os


def load(path):
    return json.load(open(path)) if os.path.exists(path) else None


def by_transport(run):
    return {t["transport"]: t for t in run["transports"]}


def grpc_targets(run):
    """Issue 26's targets: unary 1 KiB round trip <= 1.0x NIO's, streaming throughput >= 1.0x NIO's."""
    if run is None:
        return []
    t = by_transport(run)
    rdma, nio = t.get("rdma-soft"), t.get("nio")
    out = []
    for name, goal, key, field, le, unit in (
            ("gRPC unary 1 KiB round trip (mean), soft vs Netty NIO", 1.0, "unary", "meanMicros", True, "us"),
            ("gRPC server-streaming 1 KiB messages per second, soft vs Netty NIO", 1.0, "stream",
             "messagesPerSecond", False, "msg/s")):
        goal_text = ("<= " if le else ">= ") + f"{goal:g}x"
        if rdma and nio:
            value = rdma[key][field] / nio[key][field]
            out.append({"target": name, "goal": goal_text, "ratio": round(value, 3), "met": value <= goal if le
                        else value >= goal, "measured": f"{rdma[key][field]:.1f} vs {nio[key][field]:.1f} {unit}"})
        else:
            out.append({"target": name, "goal": goal_text, "ratio": None, "met": False,
                        "measured": "no result: " + " and ".join(n for n, x in (("soft", rdma), ("nio", nio))
                                                                 if x is None) + " missing"})
    return out


def grpc_markdown(run):
    if run is None:
        return []
    t = by_transport(run)
    lines = ["## gRPC over the Netty transport (GrpcBench)", "",
             f"gRPC-java (byte-array marshaller, direct executors, one event loop thread for the server and one for "
             f"the client) in one JVM on loopback: unary calls of {run['size']} B each way, one at a time, and "
             f"server-streaming calls of {run['streamMessages']:,} messages of {run['size']} B under gRPC's flow "
             f"control. Each transport measured {run['seconds']:g} s per benchmark in each of {run['rounds']} rounds "
             "taken in turns (the order reversed every other round); the figures are medians of the rounds. CPU: "
             "the whole process's user and system time (client and server) per call or message.", "",
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
    rdma = t.get("rdma-soft")
    for base in ("nio", "epoll"):
        if rdma and base in t:
            b = t[base]
            lines.append(f"| soft/{base} | {rdma['unary']['meanMicros'] / b['unary']['meanMicros']:.2f}x | "
                         f"{rdma['unary']['p50Micros'] / b['unary']['p50Micros']:.2f}x | "
                         f"{rdma['unary']['p99Micros'] / b['unary']['p99Micros']:.2f}x | | "
                         f"{rdma['unary']['cpuMicrosPerCall'] / b['unary']['cpuMicrosPerCall']:.2f}x | "
                         f"{rdma['stream']['messagesPerSecond'] / b['stream']['messagesPerSecond']:.2f}x | | "
                         f"{rdma['stream']['cpuMicrosPerMessage'] / b['stream']['cpuMicrosPerMessage']:.2f}x | | |")
    for skipped in run.get("skipped", []):
        lines.append(f"\nNot measured: {skipped}")
    return lines + ["", "soft/base: for latency and CPU lower is better, for messages per second higher.", ""]


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
