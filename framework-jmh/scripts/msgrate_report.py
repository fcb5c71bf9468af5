"""The message rate section of a bin/bench report (issue 23): MessageRate's rows (raw/msgrate-*.json), RDMA beside
its pipelined NIO baseline, as Markdown and msgrate.png."""
import os

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
             "from its completion callback; a SEND lands in a receive the server pre-posted and re-posts from its "
             "completion. NIO: the same number of connections and requests in flight over TCP, one busy-polling "
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
