#!/bin/bash
# In the RDMA VM: what one measured phase of GrpcBench costs, per thread. Runs GrpcBench TRANSPORTS (at ADDR,
# ROUNDS rounds of SECONDS_ s, one JVM) and, once round ROUND's PHASE (unary or stream) of each transport is
# announced, takes a window of WINDOW s that starts a second later:
#   RECORD=cpu (default): the process's, each thread's and the machine's CPU ticks at the window's ends (DEV-PHASE.times);
#   RECORD=stat: perf stat --per-thread of the system calls (DEV-PHASE-LABEL.perf);
#   RECORD=strace: strace -tt of the event loop threads (DEV-PHASE-LABEL.strace);
#   RECORD=perf: perf record of the whole VM for the whole run, started before the JVM (attaching to a running JVM
#     takes perf longer than a phase lasts under TCG), then perf report of each window (DEV-PHASE-LABEL.perf.txt), with
#     the JIT's symbols from the map the JVM writes at its exit.
# ADDR: the address to serve and call (default: eth0's; 127.0.0.1 runs it on the host). EXTRA: more JVM flags, such as
# -Dbench.warmUpLimitSeconds=300 for a JIT that settles under perf record.
# per-thread-cpu.py divides the event loops' ticks by the messages of the round line (DEV-PHASE.bench).
# Usage: perf-stat-vm.sh JAR NATIVE DEV TRANSPORTS PHASE OUT
set -u
JAR=$1; NATIVE=$2; DEV=$3; T=$4; PHASE=$5; OUT=$6
SECONDS_=${SECONDS_:-8}; ROUNDS=${ROUNDS:-1}; ROUND=${ROUND:-0}; WINDOW=${WINDOW:-4}; RECORD=${RECORD:-cpu}
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
ADDR=${ADDR:-$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)}
FLAGS="${EXTRA:-} --add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path=$NATIVE -Dbench.device=$DEV -Dbench.address=$ADDR"
LOG=$OUT/$DEV-$PHASE
if [ "$RECORD" = perf ]; then
  FLAGS="$FLAGS -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
  perf record -a -k CLOCK_MONOTONIC -e cpu-clock -F 499 -o /tmp/perf.data > "$LOG.record" 2>&1 &
  perf_pid=$!
  sleep 2
fi
java $FLAGS -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" dev.rdmafutures.jmh.GrpcBench \
  "$T" "$SECONDS_" "$ROUNDS" "$OUT/$DEV-$PHASE.json" > "$LOG.bench" 2>&1 &
pid=$!
cpu() {
  echo "$1 $(date +%T.%N) uptime $(cut -d' ' -f1 /proc/uptime) process $(awk '{print $14, $15}' /proc/$pid/stat) machine $(head -1 /proc/stat)" >> "$LOG.times"
  # A thread's name may hold a space: the ticks are the 12th and 13th fields after the name's closing parenthesis.
  sed -E 's/^[0-9]+ \((.*)\) (.*)$/\1|\2/' /proc/$pid/task/*/stat 2>/dev/null \
    | awk -F'|' -v at="$1" '{split($2, f, " "); print "  " at " thread " $1 "|" f[12] " " f[13]}' >> "$LOG.times"
}
EV=raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev
EV=$EV,syscalls:sys_enter_poll,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex,syscalls:sys_enter_ioctl
done_labels=" "
while kill -0 $pid 2>/dev/null; do
  label=$(grep "^measuring round $ROUND .* $PHASE\$" "$LOG.bench" 2>/dev/null | awk '{print $4}' | tail -1)
  if [ -n "$label" ] && [[ "$done_labels" != *" $label "* ]]; then
    done_labels="$done_labels$label "
    echo "window $label" >> "$LOG.times"
    sleep 1
    cpu before
    if [ "$RECORD" = strace ]; then
      loops=$(grep -lE 'rdmaEventLoop|multiThreadIoEv' /proc/$pid/task/*/comm | cut -d/ -f5 | sed 's/^/-p /')
      # shellcheck disable=SC2086
      timeout -s INT "$WINDOW" strace -tt -e trace=poll,read,write,writev,epoll_wait,futex,ioctl $loops \
        -o "$LOG-$label.strace" 2>/dev/null
    elif [ "$RECORD" = stat ]; then
      perf stat --per-thread -e $EV -p $pid -- sleep "$WINDOW" > "$LOG-$label.perf" 2>&1
    else
      sleep "$WINDOW"
    fi
    cpu after
  fi
  sleep 0.2
done
wait $pid
rc=$?
if [ "$RECORD" = perf ]; then
  kill -INT $perf_pid; wait $perf_pid
  awk '/^window /{l=$2} /^before /{b=$4} /^after /{print l, b, $4}' "$LOG.times" | while read -r label from to; do
    perf report -i /tmp/perf.data --time "$from,$to" --sort comm,dso,sym --stdio 2>/dev/null | head -120 \
      > "$LOG-$label.perf.txt"
    perf report -i /tmp/perf.data --time "$from,$to" --sort comm,dso --stdio 2>/dev/null | head -60 \
      > "$LOG-$label.dso.txt"
  done
  rm -f /tmp/perf.data
fi
exit $rc
