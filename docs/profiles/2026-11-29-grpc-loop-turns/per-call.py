# per-call.py PERF_STAT_OUT CALLS: system calls per call of each busy thread (perf stat --per-thread output).
import collections, re, sys

calls = float(sys.argv[2])
counts = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r'\s*(\S+)\s+(\d+)\s+\S+:(?:sys_enter_)?(\S+)', line)
    if m:
        counts[m.group(1)][m.group(3)] = int(m.group(2))
total = collections.Counter()
for thread, c in counts.items():
    if c.get('sys_enter', 0) > 1000:
        print(thread, ' '.join(f'{k}={v / calls:.2f}' for k, v in c.items()))
        total.update({k: v / calls for k, v in c.items()})
print('all', ' '.join(f'{k}={v:.2f}' for k, v in total.items()))
