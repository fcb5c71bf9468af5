#!/usr/bin/env python3
"""per-thread-cpu.py DEV-PHASE.times DEV-PHASE.bench PHASE ROUND: each window's CPU ticks (10 ms) by thread group, and the
event loops' CPU per message (stream) or per call (unary) at the rate the round line reports for that transport."""
import collections, re, sys

times, bench, phase, measured = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rates = {}
for line in open(bench):
    m = re.match(r'round (\d+) (\S+)\s+unary .* ([\d.]+) calls/s .*\| stream\s+([\d.]+) msg/s', line)
    if m:
        rates[(int(m.group(1)), m.group(2))] = float(m.group(3) if phase == 'unary' else m.group(4))
windows = []
for line in open(times):
    if line.startswith('window '):
        windows.append({'label': line.split()[1], 'before': collections.Counter(), 'after': collections.Counter()})
    m = re.match(r'(before|after) (\S+) uptime \S+ process', line)
    if m:
        windows[-1][m.group(1) + '_at'] = m.group(2)
    m = re.match(r'\s+(before|after) thread (.*)\|(\d+) (\d+)$', line)
    if m:
        name = re.sub(r'[-#]?\d+$', '', m.group(2)).strip()
        windows[-1][m.group(1)][name] += int(m.group(3)) + int(m.group(4))
for w in windows:
    delta = {k: w['after'][k] - w['before'][k] for k in w['after']}
    loops = sum(v for k, v in delta.items() if k.startswith(('rdmaEventLoop', 'multiThreadIoEv')))
    t0 = w['before_at']; t1 = w['after_at']
    secs = (lambda a, b: b - a)(*[sum(float(x) * f for x, f in zip(t.split(':'), (3600, 60, 1))) for t in (t0, t1)])
    rate = [r for (rd, lb), r in rates.items() if lb == w['label'] and rd == measured]
    per = (loops * 10_000 / (rate[0] * secs)) if rate else float('nan')
    print(f"{w['label']}: {secs:.2f} s window; ticks " + ', '.join(f'{k} {v}' for k, v in sorted(delta.items(),
          key=lambda kv: -kv[1]) if v > 2) + f"; event loops {per:.1f} us per {'call' if phase == 'unary' else 'message'}")
