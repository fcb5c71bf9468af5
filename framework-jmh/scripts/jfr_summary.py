#!/usr/bin/python3
"""Summarizes a SetupRatePeer flight recording (setup-rate-vm.sh with SETUP_RATE_JFR=1) as Markdown, round by round.

Usage: jfr_summary.py FILE.jfr [TOP]   (TOP: how many methods each list shows, 12 unless told)

Uses JDK 17's `jfr print --json` ($JFR, else $JAVA_HOME/bin/jfr, else /usr/lib/jvm/java-17-openjdk-amd64/bin/jfr).
Samples are split by the dev.rdmafutures.jmh.SetupRateRound events SetupRatePeer records: for each round, the Java
(jdk.ExecutionSample, every 1 ms) and native (jdk.NativeMethodSample, every 20 ms) samples of each thread, how many of
the Java samples of the runtime's threads (setup-rate-*) had an interpreted top frame (code the JIT had not compiled
yet), and what the JIT, the collector and safepoints did during the round. Then, for the runtime's threads over the
warm-up rounds and over the last rounds: the top methods by self samples, by inclusive samples within our code
(dev.rdmafutures.*), and the native methods the thread sat in.
"""
import collections
import json
import os
import re
import subprocess
import sys
from datetime import datetime

EVENTS = ("jdk.ExecutionSample", "jdk.NativeMethodSample", "dev.rdmafutures.jmh.SetupRateRound", "jdk.Compilation",
          "jdk.GarbageCollection", "jdk.SafepointBegin", "jdk.ClassLoadingStatistics")
RUNTIME_THREADS = "setup-rate"


def jfr_tool():
    if os.environ.get("JFR"):
        return os.environ["JFR"]
    home = os.environ.get("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")
    return os.path.join(home, "bin", "jfr")


def nanos(stamp):
    """ISO-8601 instant with up to 9 fractional digits -> nanoseconds since the epoch."""
    m = re.fullmatch(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z", stamp)
    whole = datetime.fromisoformat(m.group(1) + "+00:00").timestamp()
    return int(whole) * 10**9 + int((m.group(2) or "0").ljust(9, "0")[:9])


def duration_nanos(value):
    """ISO-8601 duration (PT0.001234S, PT1M2.5S) -> nanoseconds."""
    if value is None:
        return 0
    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", value)
    if not m:
        return 0
    h, mi, s = m.groups()
    return int((int(h or 0) * 3600 + int(mi or 0) * 60) * 10**9 + float(s or 0) * 10**9)


def frame_name(frame):
    method = frame["method"]
    return method["type"]["name"].replace("/", ".") + "." + method["name"]


def load(path):
    out = subprocess.run([jfr_tool(), "print", "--json", "--events", ",".join(EVENTS), path], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["recording"]["events"]


def short(name):
    return re.sub(r"^(dev\.rdmafutures\.|com\.ibm\.disni\.|java\.util\.concurrent\.|java\.)", "", name)


def main(path, top):
    events = load(path)
    rounds = sorted(({"index": e["values"]["index"], "connections": e["values"]["connections"],
                      "start": nanos(e["values"]["startTime"]),
                      "end": nanos(e["values"]["startTime"]) + duration_nanos(e["values"].get("duration"))}
                     for e in events if e["type"] == "dev.rdmafutures.jmh.SetupRateRound"), key=lambda r: r["start"])

    def round_of(t):
        for r in rounds:
            if r["start"] <= t <= r["end"]:
                return r["index"]
        return None

    per_round = collections.defaultdict(lambda: {
        "java": collections.Counter(), "native": collections.Counter(), "interpreted": 0, "runtimeJava": 0,
        "compilations": 0, "compileMs": 0.0, "gcs": 0, "gcMs": 0.0, "safepoints": 0})
    # runtime threads' samples by phase: "warm-up" (every round but the last two) and "last rounds"
    self_java = {p: collections.Counter() for p in ("early", "late")}
    ours_java = {p: collections.Counter() for p in ("early", "late")}
    native = {p: collections.Counter() for p in ("early", "late")}
    late_from = rounds[-2]["index"] if len(rounds) >= 2 else 0
    for e in events:
        v = e["values"]
        t = nanos(v["startTime"])
        index = round_of(t)
        if index is None:
            continue
        stats = per_round[index]
        phase = "late" if index >= late_from else "early"
        if e["type"] in ("jdk.ExecutionSample", "jdk.NativeMethodSample"):
            thread = (v.get("sampledThread") or {}).get("javaName") or "?"
            frames = (v.get("stackTrace") or {}).get("frames") or []
            java = e["type"] == "jdk.ExecutionSample"
            stats["java" if java else "native"][thread] += 1
            if not thread.startswith(RUNTIME_THREADS) or not frames:
                continue
            if java:
                stats["runtimeJava"] += 1
                if frames[0].get("type") == "Interpreted":
                    stats["interpreted"] += 1
                self_java[phase][short(frame_name(frames[0]))] += 1
                seen = set()
                for f in frames:
                    name = frame_name(f)
                    if name.startswith("dev.rdmafutures.") and name not in seen:
                        seen.add(name)
                        ours_java[phase][short(name)] += 1
            else:
                # the top frame is the native method; the first of our frames below says who called it
                caller = next((short(frame_name(f)) for f in frames[1:]
                               if frame_name(f).startswith("dev.rdmafutures.")), "?")
                native[phase][short(frame_name(frames[0])) + " <- " + caller] += 1
        elif e["type"] == "jdk.Compilation":
            stats["compilations"] += 1
            stats["compileMs"] += duration_nanos(v.get("duration")) / 1e6
        elif e["type"] == "jdk.GarbageCollection":
            stats["gcs"] += 1
            stats["gcMs"] += duration_nanos(v.get("duration")) / 1e6
        elif e["type"] == "jdk.SafepointBegin":
            stats["safepoints"] += 1

    print(f"### {os.path.basename(path)}\n")
    print("| round | connections | ms | runtime-thread Java samples (1 ms) | of them interpreted | "
          "native samples (20 ms), runtime threads | other threads' Java samples | compilations (ms) | GCs (ms) | "
          "safepoints |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rounds:
        s = per_round[r["index"]]
        rt_native = sum(c for t, c in s["native"].items() if t.startswith(RUNTIME_THREADS))
        other = sum(c for t, c in s["java"].items() if not t.startswith(RUNTIME_THREADS))
        others = ", ".join(f"{t} {c}" for t, c in s["java"].most_common(4) if not t.startswith(RUNTIME_THREADS))
        print(f"| {r['index']} | {r['connections']} | {(r['end'] - r['start']) / 1e6:.0f} | {s['runtimeJava']} | "
              f"{s['interpreted']} | {rt_native} | {other} ({others}) | {s['compilations']} ({s['compileMs']:.0f}) | "
              f"{s['gcs']} ({s['gcMs']:.0f}) | {s['safepoints']} |")
    for phase, label in (("early", f"rounds before {late_from}"), ("late", f"rounds {late_from} on")):
        total = sum(self_java[phase].values())
        print(f"\n**Runtime threads, {label}: top self methods** ({total} Java samples)\n")
        for name, c in self_java[phase].most_common(top):
            print(f"- {c} ({100 * c / max(1, total):.0f}%) {name}")
        print(f"\n**Runtime threads, {label}: our methods, inclusive**\n")
        for name, c in ours_java[phase].most_common(top):
            print(f"- {c} ({100 * c / max(1, total):.0f}%) {name}")
        ntotal = sum(native[phase].values())
        print(f"\n**Runtime threads, {label}: native methods (and our caller)** ({ntotal} native samples)\n")
        for name, c in native[phase].most_common(top):
            print(f"- {c} ({100 * c / max(1, ntotal):.0f}%) {name}")
    print()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12)
