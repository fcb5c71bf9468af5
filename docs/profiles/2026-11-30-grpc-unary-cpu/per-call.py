#!/usr/bin/env python3
"""CPU per unary call, by whose code it ran in, for two transports' perf windows of one GrpcBench run.

Usage: per-call.py BENCH ROUND OURS.perf.txt NIO.perf.txt

perf-stat-vm.sh (RECORD=perf) writes each transport's window as a `perf report --sort comm,dso,sym`, of which it keeps
the first 120 lines (about 108 symbols); BENCH is the run's console, whose `round ROUND TRANSPORT unary ... calls/s`
lines give each transport's call rate in the round the window was taken in. A symbol's CPU per call is its share of
the window's samples times the window's CPU time (cpu-clock's event count, in ns), over the calls the window held
(rate times the window's length). The event loops' and the calling thread's lines are kept; symbols past the kept
lines count as 0.
"""
import re
import sys

LINE = re.compile(r'\s+([\d.]+)%\s+(\S+)\s+(\[.*?\]|\S+)\s+(?:tid \d+\s+)?\[(.)\]\s+(.*)')
# Whose code a Java symbol is, by the package of the class that declares it: the first prefix that matches. Guava's
# ByteStreams.copy is gRPC's byte-array marshaller at work, so Guava counts as gRPC.
GROUPS = [('the benchmark (GrpcBench)', ('dev.rdmafutures.jmh.',)),
          ('RdmaFutures', ('dev.rdmafutures.',)),
          ('gRPC (with Guava)', ('io.grpc.', 'com.google.')),
          ('Netty HTTP/2', ('io.netty.handler.codec.http2.',)),
          ('Netty, other', ('io.netty.',)),
          ('JDK', ('java.', 'javax.', 'sun.', 'jdk.'))]
KERNEL = 'kernel'
OTHER = 'other (JVM, native libraries, stubs)'
ORDER = [KERNEL] + [name for name, _ in GROUPS] + [OTHER]


def group(kind, symbol):
    """The group of a symbol; {@code kind} is perf's k (kernel) or . (user space)."""
    if kind == 'k':
        return KERNEL
    head = symbol.split('(')[0].split()  # "ret pkg.Class.method(args)": the declaring class's method
    declared = head[-1] if head else ''
    for name, prefixes in GROUPS:
        if declared.startswith(prefixes):
            return name
    return OTHER


def rate(bench, round_, transport):
    for line in open(bench):
        words = line.split()
        if words[:3] == ['round', round_, transport] and 'calls/s' in words:
            return float(words[words.index('calls/s') - 1])
    raise SystemExit(f'{bench}: no unary rate of {transport} in round {round_}')


def window(report):
    """(thread, group, symbol) -> CPU microseconds in the window, and the window's length in seconds."""
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
            key = (who, group(kind, sym), sym.strip()[:100])
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
        for name in ORDER:
            a = sum(v[0] for k, v in per_call.items() if k[:2] == (who, name))
            b = sum(v[1] for k, v in per_call.items() if k[:2] == (who, name))
            print(f'    {name:36} {a:7.1f} / {b:7.1f}')
    print(f'\n{"ours":>7} {"nio":>7} {"diff":>7}  thread  symbol (us of CPU per call)')
    rows = sorted(per_call.items(), key=lambda kv: (kv[1][1] - kv[1][0], kv[0]))
    for (who, _group, sym), (a, b) in rows[:20] + [(('', '', '...'), (0, 0))] + rows[-10:]:
        print(f'{a:7.2f} {b:7.2f} {a - b:7.2f}  {who:6}  {sym}')


if __name__ == '__main__':
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
