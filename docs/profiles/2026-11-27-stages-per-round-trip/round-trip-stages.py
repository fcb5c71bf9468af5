#!/usr/bin/env python3
"""Reads the two /tmp/stagetrace-PID.txt files that stage-trace.patch makes MessageRate's processes write, and
prints the time each stage of a round trip takes (RDMA, then the NIO baseline), and per 250 ms how many round trips
and duty cycles each process made. A stage's end is the first mark of the next stage after its start: write begin
is used across processes, because on loopback the peer's read can return before the sender's write does.

Marks: 1 duty cycle, 2 socket read that brought bytes, 3/4 write begin/end, 5 completion callback, 6 READ posted,
7 queue pair takes the post, 9 decode pass that consumed bytes, 10 selector asked as a busy connection went idle,
15 selector asked on its interval; the baseline: 12 read with bytes, 13/14 write begin/end."""
import bisect, glob

files = sorted(glob.glob('/tmp/stagetrace-*.txt'))
data = {f: [(int(a), int(b)) for a, b in (line.split() for line in open(f))] for f in files}
client = next(f for f in files if any(s == 6 for _, s in data[f]))
server = next(f for f in files if f != client)
C, S = data[client], data[server]


def times(ev, stage):
    return [t for t, s in ev if s == stage]


def after(lst, t):
    i = bisect.bisect_right(lst, t)
    return lst[i] if i < len(lst) else None


def chain(seq, lo=.4, hi=.9):
    """Rows of stage durations, one per start in the middle of the run (lo..hi of the first stage's marks)."""
    first = seq[0]
    rows = []
    for t0 in first[int(len(first) * lo):int(len(first) * hi)]:
        ts = [t0]
        for lst in seq[1:]:
            t = after(lst, ts[-1])
            if t is None:
                break
            ts.append(t)
        else:
            rows.append([y - x for x, y in zip(ts, ts[1:])] + [ts[-1] - ts[0]])
    return rows


def show(names, rows):
    for name, col in zip(names, zip(*rows)):
        col = sorted(col)
        print(f'  {name:26s} p50 {col[len(col) // 2] / 1e3:7.2f}  mean {sum(col) / len(col) / 1e3:7.2f}  '
              f'p90 {col[int(len(col) * .9)] / 1e3:7.2f} us   n={len(col)}')


round_trip = ['c.write begin -> s.read', 's.read -> s.write begin', 's.write begin -> c.read',
              'c.read -> c.write begin', 'round trip']
c = {k: times(C, k) for k in (2, 3, 4, 5, 6, 7, 9, 12, 13, 14)}
s = {k: times(S, k) for k in (2, 3, 4, 9, 12, 13, 14)}
if c[3]:
    print('RDMA')
    show(round_trip, chain([c[3], s[2], s[3], c[2], c[3]]))
    show(['c.write syscall'], chain([c[3], c[4]]))
    show(['s.write syscall'], chain([s[3], s[4]]))
    show(['s.read -> decoded', 's.decoded -> write begin'], chain([s[2], s[9], s[3]]))
    show(['c.read -> first callback', 'first callback -> decoded', 'decoded -> post taken', 'post taken -> write'],
         chain([c[2], c[5], c[9], c[7], c[3]]))
if c[13]:
    print('NIO')
    show(round_trip, chain([c[13], s[12], s[13], c[12], c[13]]))
    show(['c.write syscall'], chain([c[13], c[14]]))
    show(['s.write syscall'], chain([s[13], s[14]]))
for name, ev in (('client', C), ('server', S)):
    print(name, 'per 250 ms: duty cycles, RDMA round trips, idle-connection selects, NIO round trips')
    t0, buckets = ev[0][0], {}
    for t, st in ev:
        b = buckets.setdefault((t - t0) // 250_000_000, {})
        b[st] = b.get(st, 0) + 1
    for k in sorted(buckets):
        b = buckets[k]
        print(f'  {k * .25:5.2f}s {b.get(1, 0):7d} {b.get(2, 0):6d} {b.get(10, 0):6d} {b.get(12, 0):6d}')
