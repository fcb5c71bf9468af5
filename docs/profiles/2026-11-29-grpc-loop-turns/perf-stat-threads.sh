#!/bin/bash
# perf-stat-threads.sh TRANSPORT OUT: system calls per thread in 4 s of the unary measurement of a GrpcBench run
# (10 s rounds, one round; JAR picks the benchmarks jar), then 1 s of strace -f; per-call.py divides by the calls.
t=$1; out=$2
java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp ${JAR:-framework-jmh/target/benchmarks.jar} \
  dev.rdmafutures.jmh.GrpcBench "$t" 10 1 "/tmp/grpc-$t.json" > "$out.bench" 2>&1 &
pid=$!
EV=raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev
EV=$EV,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex
sleep 44; perf stat --per-thread -e $EV -p $pid -- sleep 4 > "$out.unary" 2>&1
timeout -s INT 1 strace -f -tt -p $pid -o "$out.strace" 2>/dev/null
wait $pid
