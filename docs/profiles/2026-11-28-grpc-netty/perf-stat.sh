#!/bin/bash
# perf-stat.sh TRANSPORT OUT: system calls of a GrpcBench run (10 s rounds, one round) in two 6 s windows: the
# unary measurement (from 44 s) and the stream measurement (from 55 s). Divide by the round's calls/s or msg/s x 6.
t=$1; out=$2
java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp framework-jmh/target/benchmarks.jar \
  dev.rdmafutures.jmh.GrpcBench "$t" 10 1 "/tmp/grpc-$t.json" > "$out.bench" 2>&1 &
pid=$!
EV=raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev
EV=$EV,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex
sleep 44; perf stat -e $EV -p $pid -- sleep 6 > "$out.unary" 2>&1
sleep 5; perf stat -e $EV -p $pid -- sleep 6 > "$out.stream" 2>&1
wait $pid
