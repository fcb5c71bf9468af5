#!/usr/bin/python3
"""Where a flight recording's threads spent their samples: for each thread whose name matches a pattern, the methods
most often on top of its samples (self), and the frames most often anywhere in its stacks (inclusive). Java samples
(jdk.ExecutionSample) and native ones (jdk.NativeMethodSample: a thread inside a system call or JNI) count alike, so a
thread's total is its time on CPU or in the kernel; record with both periods short (1 ms) for a useful count.

Usage: jfr_top.py FILE.jfr THREAD_REGEX [TOP]   (TOP: rows per list, 15 unless told)

Reads both events with JDK 17's `jfr print --json` ($JFR, else $JAVA_HOME/bin/jfr, else the Debian JDK 17's).
A sample's stack is cut at JFR's default depth of 64 frames; inclusive counts each frame once per sample.
"""
import collections
import json
import os
import re
import subprocess
import sys


def jfr_tool():
    if os.environ.get("JFR"):
        return os.environ["JFR"]
    home = os.environ.get("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")
    return os.path.join(home, "bin", "jfr")


def frame_name(frame):
    method = frame["method"]
    return method["type"]["name"].rsplit(".", 1)[-1] + "." + method["name"]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    path, pattern = sys.argv[1], re.compile(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) == 4 else 15
    out = subprocess.run([jfr_tool(), "print", "--json", "--events", "jdk.ExecutionSample,jdk.NativeMethodSample", path],
                         check=True, capture_output=True, text=True).stdout
    threads = collections.defaultdict(lambda: (collections.Counter(), collections.Counter(), [0]))
    for event in json.loads(out)["recording"]["events"]:
        values = event["values"]
        name = (values.get("sampledThread") or {}).get("javaName") or "?"
        if not pattern.search(name):
            continue
        frames = (values.get("stackTrace") or {}).get("frames") or []
        if not frames:
            continue
        self_counts, inclusive, total = threads[re.sub(r"\d+$", "N", name)]
        total[0] += 1
        self_counts[frame_name(frames[0])] += 1
        for f in set(frame_name(f) for f in frames):
            inclusive[f] += 1
    for name, (self_counts, inclusive, total) in sorted(threads.items()):
        print(f"## {name}: {total[0]} samples\n\nself | % | method\n---:|---:|---")
        for method, n in self_counts.most_common(top):
            print(f"{n} | {100 * n / total[0]:.0f} | {method}")
        print("\ninclusive | % | frame\n---:|---:|---")
        for method, n in inclusive.most_common(top):
            print(f"{n} | {100 * n / total[0]:.0f} | {method}")
        print()


if __name__ == "__main__":
    main()
