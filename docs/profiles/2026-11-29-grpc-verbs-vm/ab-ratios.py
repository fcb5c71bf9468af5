#!/usr/bin/env python3
"""ab-ratios.py DIR...: for each run's JSON in DIR (DEV-old-N.json, DEV-new-N.json), verbs/NIO per round (both measured
in that round) for the unary mean and the stream rate, and each jar's median over its rounds."""
import glob, json, os, statistics, sys

for d in sys.argv[1:]:
    by_jar = {}
    for f in sorted(glob.glob(os.path.join(d, '*.json'))):
        run = os.path.basename(f)[:-5]
        t = {x['transport']: x for x in json.load(open(f))['transports']}
        v, n = t['rdma-verbs'], t['nio']
        unary = [a / b for a, b in zip(v['unary']['roundsMeanMicros'], n['unary']['roundsMeanMicros'])]
        stream = [a / b for a, b in zip(v['stream']['roundsMessagesPerSecond'], n['stream']['roundsMessagesPerSecond'])]
        jar = run.split('-')[1]
        by_jar.setdefault(jar, ([], []))
        by_jar[jar][0].extend(unary)
        by_jar[jar][1].extend(stream)
        print(f"| {run} | {' '.join(f'{r:.2f}' for r in unary)} | {' '.join(f'{r:.2f}' for r in stream)} |")
    for jar, (u, s) in sorted(by_jar.items(), reverse=True):
        print(f"{d} {jar}: median of {len(u)} rounds unary {statistics.median(u):.2f} (spread {min(u):.2f}-{max(u):.2f}),"
              f" stream {statistics.median(s):.2f} ({min(s):.2f}-{max(s):.2f})")
