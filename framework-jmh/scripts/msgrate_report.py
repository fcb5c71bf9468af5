"""The message rate sections of a bin/bench report (issue 23), as Markdown and plots: on the host MessageRate's rows
(raw/msgrate-host-c<N>.json), RDMA beside its pipelined NIO baseline, in msgrate.png; in the VM the verbs provider's
rows (raw/msgrate-<device>.json) beside perftest's message rate at the same op, size and window on the same device
(raw/perftest-rate-<device>-<op>-<size>-<window>.log, bench-vm.sh), in msgrate-vm.png."""
import glob
import os
import re

OPS = ("READ", "WRITE", "SEND")


def order(row):
    return row["connections"], OPS.index(row["op"]), row["size"], row["window"]


def msgrate_markdown(rows):
    if not rows:
        return []
    first = rows[0]
    driver = "this thread polls it" if first["driver"] == "INVOKED" else f"a {first['driver']} poller thread"
    shapes = ", ".join(f"{op} {size} B: {req} B / {resp} B" for op, size, req, resp in sorted(
        {(r["op"], r["size"], r["nio_request_bytes"], r["nio_response_bytes"]) for r in rows},
        key=lambda s: (OPS.index(s[0]), s[1])))
    lines = ["## Message rate (MessageRate)", "",
             f"Operations per second with `window` operations in flight on each connection, {first['provider']} "
             f"(client runtime: {driver}; server: one busy-spinning poller in a second JVM), each re-posted "
             "from its completion callback; a SEND lands in one of the 512 receives (ib_send_bw's receive depth) the "
             "server pre-posted and re-posts from its completion. NIO: the same number of connections and requests in flight over TCP, one busy-polling "
             "thread per side (the server in a second JVM), each reading all a socket has and writing all it owes in "
             "one call per pass, as a pipelining server does. Request / response bytes of the baseline (soft's FPDU "
             f"sizes): {shapes}. RDMA WRITE and SEND complete without a reply, while each baseline request waits for "
             "its 8 B acknowledgement: there the baseline is disfavoured and the ratio flatters RDMA. CPU: each "
             "process's CPU time (user and system, all threads, spinning included) per operation, client + server; "
             "Linux counts it in 10 ms ticks. Ratio: RDMA / NIO rate, same run.", "",
             "| op | size | window | connections | RDMA ops/s | NIO ops/s | ratio | RDMA CPU us/op (client + server) | "
             "NIO CPU us/op (client + server) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=order):
        lines.append(f"| {r['op']} | {r['size']} | {r['window']} | {r['connections']} | {r['rdma_ops_per_s']:.0f} | "
                     f"{r['nio_ops_per_s']:.0f} | {r['ratio']:.2f} | {r['rdma_client_cpu_us_per_op']:.2f} + "
                     f"{r['rdma_server_cpu_us_per_op']:.2f} | {r['nio_client_cpu_us_per_op']:.2f} + "
                     f"{r['nio_server_cpu_us_per_op']:.2f} |")
    return lines + ["", "![message rate](msgrate.png)", ""]


def plot_msgrate(rows, out_dir):
    """Rate against window, one panel per connection count: RDMA solid, NIO dashed, a colour per op and size."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    counts = sorted({r["connections"] for r in rows})
    fig, axes = plt.subplots(1, len(counts), figsize=(6 * len(counts), 4.5), squeeze=False)
    shapes = sorted({(r["op"], r["size"]) for r in rows}, key=lambda s: (OPS.index(s[0]), s[1]))
    colours = {s: f"C{i}" for i, s in enumerate(shapes)}
    for ax, n in zip(axes[0], counts):
        for op, size in shapes:
            pts = sorted((r["window"], r["rdma_ops_per_s"], r["nio_ops_per_s"]) for r in rows
                         if r["connections"] == n and r["op"] == op and r["size"] == size)
            if not pts:
                continue
            windows = [p[0] for p in pts]
            ax.plot(windows, [p[1] for p in pts], marker="o", color=colours[(op, size)], label=f"{op} {size} B RDMA")
            ax.plot(windows, [p[2] for p in pts], marker="s", linestyle="--", color=colours[(op, size)],
                    label=f"{op} {size} B NIO")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{n} connection{'s' if n > 1 else ''}")
        ax.set_xlabel("operations in flight per connection")
        ax.set_ylabel("operations per second (all connections)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "msgrate.png"), dpi=110)
    plt.close(fig)


def vm_msgrate(raw, rows):
    """{device: rows}: the verbs rate of each point in rows ({device: MessageRate's rows}) beside perftest's rate at
    the same op, size and window on that device (its MsgRate column, Mpps) and their ratio; a point only one of them
    measured has None in the other's place."""
    perftest = {}
    for path in glob.glob(os.path.join(raw, "perftest-rate-*.log")):
        m = re.search(r"perftest-rate-(\w+?)-(read|write|send)-(\d+)-(\d+)\.log$", path)
        if not m:
            continue  # the server's log (.server.log)
        dev, op, size, window = m.groups()
        for line in open(path):
            f = line.split()
            if len(f) >= 5 and f[0] == size and f[1].isdigit():
                perftest[(dev, op.upper(), int(size), int(window))] = float(f[4]) * 1e6
    out = {}
    for dev in sorted({k[0] for k in perftest} | set(rows)):
        verbs = {(r["op"], r["size"], r["window"]): r["rdma_ops_per_s"] for r in rows.get(dev, [])}
        keys = verbs.keys() | {k[1:] for k in perftest if k[0] == dev}
        out[dev] = []
        for op, size, window in sorted(keys, key=lambda k: (OPS.index(k[0]), k[1], k[2])):
            v, p = verbs.get((op, size, window)), perftest.get((dev, op, size, window))
            out[dev].append({"op": op, "size": size, "window": window, "verbs_ops_per_s": v, "perftest_ops_per_s": p,
                             "ratio": v / p if v and p else None})
    return out


def vm_msgrate_markdown(vm):
    if not vm:
        return []
    lines = ["## Message rate in the VM (MessageRate, verbs, beside perftest)", "",
             "Operations per second on one connection with `window` operations in flight, on each device in its own "
             "VM boot (emulated: only the ratios mean anything). RdmaFutures: MessageRate with the verbs provider, "
             "each operation re-posted from its completion callback (the client runtime polled by the measuring "
             "thread; the server's poller, in a second JVM, sleeps for READ and WRITE, which the device answers, and "
             "busy-spins for SEND, re-posting its 512 receives, as perftest's servers do, and granting the sender its "
             "Sends by a WRITE per 64, which perftest's server does not). perftest: `ib_read_bw`, "
             "`ib_write_bw` and `ib_send_bw` at the same size, `-t` (and `-o` for READ) the window and `-Q 1`, a "
             "completion for every operation; its MsgRate column. Ratio: RdmaFutures / perftest, same boot. An empty "
             "cell: that side did not run the point (bench-vm.sh says why).", ""]
    for dev, rows in vm.items():
        lines += [f"### {dev}", "", "| op | size | window | RdmaFutures verbs ops/s | perftest ops/s | ratio |",
                  "|---|---|---|---|---|---|"]
        for r in rows:
            cell = lambda x, fmt: "" if x is None else format(x, fmt)
            lines.append(f"| {r['op']} | {r['size']} | {r['window']} | {cell(r['verbs_ops_per_s'], '.0f')} | "
                         f"{cell(r['perftest_ops_per_s'], '.0f')} | {cell(r['ratio'], '.3g')} |")
        lines.append("")
    return lines + ["![message rate in the VM](msgrate-vm.png)", ""]


def plot_vm_msgrate(vm, out_dir):
    """Rate against window, one panel per device: verbs solid, perftest dashed, a colour per op and size."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(vm), figsize=(6 * len(vm), 4.5), squeeze=False)
    for ax, (dev, rows) in zip(axes[0], vm.items()):
        shapes = sorted({(r["op"], r["size"]) for r in rows}, key=lambda s: (OPS.index(s[0]), s[1]))
        for i, (op, size) in enumerate(shapes):
            pts = [r for r in rows if r["op"] == op and r["size"] == size]
            for key, style, marker, who in (("verbs_ops_per_s", "-", "o", "RdmaFutures"),
                                             ("perftest_ops_per_s", "--", "s", "perftest")):
                xy = [(r["window"], r[key]) for r in pts if r[key] is not None]
                if xy:
                    ax.plot([p[0] for p in xy], [p[1] for p in xy], linestyle=style, marker=marker, color=f"C{i}",
                            label=f"{op} {size} B {who}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{dev} (verbs, one connection)")
        ax.set_xlabel("operations in flight")
        ax.set_ylabel("operations per second")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "msgrate-vm.png"), dpi=110)
    plt.close(fig)
