#!/usr/bin/env python3
"""CPU per unary call, by where it was spent, for two transports' perf windows of one GrpcBench run.

Usage: per-call.py BENCH ROUND OURS.perf.txt NIO.perf.txt

perf-stat-vm.sh (RECORD=perf) writes each transport's window as a `perf report --sort comm,dso,sym` (its top lines);
BENCH is the run's console, whose `round ROUND TRANSPORT unary ... calls/s` lines give each transport's call rate in
the round the window was taken in. A symbol's CPU per call is its share of the window's samples times the window's
CPU time (cpu-clock's event count), over the calls the window held (rate times the window's length). The event loops'
and the calling thread's lines are kept; the symbols cut from the report's top lines count as 0.
"""
import re
import sys

LINE = re.compile(r'\s+([\d.]+)%\s+(\S+)\s+(\[.*?\]|\S+)\s+(?:tid \d+\s+)?\[(.)\]\s+(.*)')
# Whose code a symbol is, by its name's package, or [k] for the kernel's: the first that matches.
GROUPS = [('kernel', lambda k, s: k == 'k'), ('the benchmark (GrpcBench)', lambda k, s: 'dev.rdmafutures.jmh.' in s),
          ('RdmaFutures', lambda k, s: 'dev.rdmafutures.' in s),
          ('gRPC', lambda k, s: 'io.grpc.' in s), ('Netty HTTP/2', lambda k, s: 'io.netty.handler.codec.http2.' in s),
          ('Netty, other', lambda k, s: 'io.netty.' in s), ('JDK', lambda k, s: ' java.' in s or ' sun.' in s
                                                              or s.startswith(('java.', 'sun.'))),
          ('other (JVM, libraries, stubs)', lambda k, s: True)]


def rate(bench, round_, transport):
    for line in open(bench):
        words = line.split()
        if words[:3] == ['round', round_, transport] and 'calls/s' in words:
            return float(words[words.index('calls/s') - 1])
    raise SystemExit(f'{bench}: no unary rate of {transport} in round {round_}')


def window(report):
    """Symbol -> CPU microseconds in the window, the window's seconds, and the transport the file is of."""
    text = open(report).read()
    slices = re.search(r'time slices: ([\d.]+),([\d.]+)', text)
    cpu_ns = float(re.search(r'Event count \(approx\.\): (\d+)', text).group(1))
    cost = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pct, comm, _dso, kind, sym = m.groups()
        who = 'loop' if comm.startswith(('rdmaEventLoop', 'multiThreadIo')) else 'caller' if comm == 'java' else None
        if who:
            group = next(name for name, test in GROUPS if test(kind, sym))
            key = (who, group, sym.strip()[:100])
            cost[key] = cost.get(key, 0) + float(pct) / 100 * cpu_ns / 1000
    return cost, float(slices.group(2)) - float(slices.group(1))


def main(bench, round_, ours_file, nio_file):
    transport = re.search(r'-unary-(.*)\.perf\.txt$', ours_file).group(1)
    ours, ours_s = window(ours_file)
    nio, nio_s = window(nio_file)
    ours_calls = rate(bench, round_, transport) * ours_s
    nio_calls = rate(bench, round_, 'nio') * nio_s
    per_call = {k: (ours.get(k, 0) / ours_calls, nio.get(k, 0) / nio_calls) for k in set(ours) | set(nio)}
    print(f'{transport}: {ours_calls:.0f} calls in {ours_s:.2f} s; nio: {nio_calls:.0f} calls in {nio_s:.2f} s')
    print(f'\nCPU us per call in the listed symbols, by whose code: {transport} / nio')
    for who in ('loop', 'caller'):
        a = sum(v[0] for k, v in per_call.items() if k[0] == who)
        b = sum(v[1] for k, v in per_call.items() if k[0] == who)
        print(f'  {who} threads: {a:.1f} / {b:.1f}')
        for group, _test in GROUPS:
            a = sum(v[0] for k, v in per_call.items() if k[:2] == (who, group))
            b = sum(v[1] for k, v in per_call.items() if k[:2] == (who, group))
            print(f'    {group:30} {a:7.1f} / {b:7.1f}')
    print(f'\n{"ours":>7} {"nio":>7} {"diff":>7}  thread  symbol (us of CPU per call)')
    rows = sorted(per_call.items(), key=lambda kv: kv[1][1] - kv[1][0])
    for (who, _group, sym), (a, b) in rows[:20] + [(('', '', '...'), (0, 0))] + rows[-10:]:
        print(f'{a:7.2f} {b:7.2f} {a - b:7.2f}  {who:6}  {sym}')


if __name__ == '__main__':
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
