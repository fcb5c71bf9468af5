#!/usr/bin/python3
"""Turns setup-rate-vm.sh's raw logs for one device into OUT/setup-rate-DEV.json.

Usage: setup_rate_json.py DEV "WARM_UP" "COUNTS" OUT   (WARM_UP: the warm-up rounds' counts, COUNTS the measured
ones, each space-separated)

For every pair and count: connections per second of the connect step (cmtime's client: from the first rdma_connect
to the last connection established, every connect in flight at once) and of the whole set-up (create id through
connect; for the verbs connector, from its first connect to its last established, which includes resolving and
creating its queue pairs), cmtime's per-step breakdown, and what SetupRatePeer measured on its side. Exits 1 if a
log is missing a step or a round: the shell script has already refused logs that report a failed connection.
"""
import json
import os
import re
import sys

# cmtime v44 (rdma-core 44): "%-13s: %11.2f%11.2f%11.2f%11.2f" = step, total ms, max ms, min us, us per connection
STEP = re.compile(r"^(create id|bind addr|resolve addr|resolve route|create qp|connect|disconnect|destroy)\s*:"
                  r"\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")
SETUP_STEPS = ("create id", "resolve addr", "resolve route", "create qp", "connect")
PAIRS = (("cmtime", "cmtime"), ("cmtime", "soft"), ("cmtime", "verbs"), ("verbs", "cmtime"))


def cmtime_steps(path):
    steps = {}
    for line in open(path):
        m = STEP.match(line)
        if m:
            steps[m.group(1)] = {"totalMs": float(m.group(2)), "maxMs": float(m.group(3)),
                                 "minUs": float(m.group(4)), "usPerConnection": float(m.group(5))}
    missing = [s for s in SETUP_STEPS + ("disconnect", "destroy") if s not in steps]
    if missing:
        sys.exit(f"setup_rate_json: {path} lacks the steps {missing}")
    return steps


def peer_rounds(path, counts, warm_up):
    rounds = json.load(open(path))["rounds"]
    if [r["connections"] for r in rounds] != warm_up + counts:
        sys.exit(f"setup_rate_json: {path} has rounds {[r['connections'] for r in rounds]}, not {warm_up + counts}")
    return {r["connections"]: r for r in rounds[len(warm_up):]}


def main(dev, warm_up, counts, out):
    prefix = os.path.join(out, f"setup-rate-{dev}")
    results = []
    for client, listener in PAIRS:
        name = f"{client}-{listener}"
        if listener == "soft" and not dev.startswith("siw"):
            continue
        peer = None
        if "cmtime" != listener or "cmtime" != client:
            peer = peer_rounds(f"{prefix}-{name}.peer.json", counts, warm_up)
        for n in counts:
            row = {"client": client, "listener": listener, "connections": n}
            if client == "cmtime":
                steps = cmtime_steps(f"{prefix}-{name}-{n}.log")
                row["steps"] = steps
                row["connectsPerSecond"] = n / (steps["connect"]["totalMs"] / 1000)
                row["setupPerSecond"] = n / (sum(steps[s]["totalMs"] for s in SETUP_STEPS) / 1000)
                row["disconnectMs"] = steps["disconnect"]["totalMs"]
            else:
                row["setupPerSecond"] = peer[n]["connectsPerSecond"]
                row["disconnectMs"] = peer[n]["disconnectSeconds"] * 1000
            if peer:
                row["peer"] = peer[n]
            results.append(row)
    json.dump({"device": dev, "warmUp": warm_up[0] if len(warm_up) == 1 else warm_up, "counts": counts,
               "results": results}, open(f"{prefix}.json", "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1], [int(w) for w in sys.argv[2].split()], [int(c) for c in sys.argv[3].split()], sys.argv[4])
