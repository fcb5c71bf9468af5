"""The KV service section of a bin/bench report (issue 23): bin/kv's own table (raw/kv-host.json, written by
`bin/kv --json`), so that the report and bin/kv print the same numbers and ratios."""
import json
import os


def fmt(value, digits):
    return "" if value is None else f"{value:.{digits}f}"


def kv_markdown(path):
    if not os.path.exists(path):
        return []
    kv = json.load(open(path))
    lines = ["## KV service (bin/kv)", "",
             f"`bin/kv {' '.join(kv['args'])}` (KvBench): a remote-memory key-value service over soft on loopback, "
             "a GET one-sided READs of the key's index neighbourhood, or of its slot once the client knows it (and "
             "of the record when its value is not inline), a PUT a Send into a shared receive queue, beside its "
             "TCP twin (Java NIO) serving the same table; the two ran one after the other. Its header (the load, "
             "the GET path, each service's client and server thread and how each waits) and its table, as bin/kv "
             "printed them:", "",
             "```", *kv["header"], "```", "",
             "| service | ops/s | p50 us | p99 us | p99.9 us | GETs | trips/GET | PUTs | torn reads |",
             "|---|---|---|---|---|---|---|---|---|"]
    for s in kv["services"]:
        lines.append(f"| {s['service']} | {fmt(s['ops_per_s'], 0)} | {fmt(s['p50_us'], 1)} | {fmt(s['p99_us'], 1)} | "
                     f"{fmt(s['p99_9_us'], 1)} | {s['gets']} | {fmt(s['trips_per_get'], 3)} | {s['puts']} | "
                     f"{s['torn_reads']} |")
    r = kv["ratios"]  # null unless both services ran
    if r:
        lines += [f"| RDMA/TCP | {fmt(r['ops_per_s'], 2)}x | {fmt(r['p50'], 2)}x | {fmt(r['p99'], 2)}x | "
                  f"{fmt(r['p99_9'], 2)}x | | | | |", "",
                  "RDMA/TCP: for throughput higher is better, for latency lower."]
    lines.append("")
    for s in kv["services"]:
        lines.append(f"- {s['service']}: " + ("every value read was checked: OK" if s["ok"]
                                              else f"**FAILED**: {s['failure']}"))
    return lines + [""]
