#!/usr/bin/env python3
"""per-call.py DIR TRANSPORT...: perf-stat.sh's counts per unary call (the 5 s window over the round's calls/s x 5),
as DIR/per-call.txt."""
import re
import sys

d, transports = sys.argv[1], sys.argv[2:]
EVENTS = ["raw_syscalls:sys_enter", "syscalls:sys_enter_read", "syscalls:sys_enter_epoll_wait",
          "syscalls:sys_enter_futex", "syscalls:sys_enter_sched_yield", "context-switches"]
lines = ["transport       mean_us calls/s  syscalls reads epoll_wait futex yield ctx_switches cpu_us/call CPUs_busy"]
for t in transports:
    bench = open(f"{d}/{t}.bench").read()
    m = re.search(r"^round 0 \S+\s+unary\s+([\d.]+) us mean.*?(\d+) calls/s", bench, re.M)
    mean, calls = float(m.group(1)), int(m.group(2)) * 5
    stat = open(f"{d}/{t}.unary").read()
    counts = [int(re.search(r"^\s*([\d,]+)\s+" + re.escape(e), stat, re.M).group(1).replace(",", "")) / calls
              for e in EVENTS]
    task_ms = float(re.search(r"([\d.,]+)\s+msec task-clock", stat).group(1).replace(",", ""))
    lines.append("%-15s %7.1f %7d %9.1f %5.1f %10.1f %5.1f %5.1f %12.1f %11.1f %9.2f"
                 % (t, mean, calls // 5, *counts, task_ms * 1000 / calls, task_ms / 5000))
open(f"{d}/per-call.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
