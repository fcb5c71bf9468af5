#!/bin/bash
# perf-stat.sh TRANSPORT OUT: system calls, context switches and CPU of a one-round GrpcBench run (8 s per benchmark)
# in a 5 s window inside its unary measurement, taken when GrpcBench announces it ("measuring round 0 LABEL unary").
# Divide by the round's calls/s (in OUT.bench) x 5 for a figure per call.
set -u
t=$1; out=$2
java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp framework-jmh/target/benchmarks.jar \
  dev.rdmafutures.jmh.GrpcBench "$t" 8 1 "/tmp/grpc-$t.json" > "$out.bench" 2>&1 &
pid=$!
until grep -q '^measuring round 0 .* unary' "$out.bench" 2>/dev/null; do
  kill -0 $pid 2>/dev/null || { echo "GrpcBench ended before its unary round" >&2; exit 1; }
  sleep 0.2
done
sleep 1
EV=raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev
EV=$EV,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex,syscalls:sys_enter_sched_yield
EV=$EV,context-switches,task-clock
perf stat -e "$EV" -p $pid -- sleep 5 > "$out.unary" 2>&1
wait $pid
