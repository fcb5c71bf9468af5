#!/bin/bash
# Runs inside the RDMA VM (bin/bench): on one device, perftest's ib_read_lat/ib_read_bw, then the verbs provider
# and plain DiSNI endpoint code under JMH, then the message rate (MessageRate beside perftest's ib_read_bw,
# ib_write_bw and ib_send_bw), then gRPC over the Netty transport beside Netty NIO (GrpcBench), then the device's own
# SEND round trip and throughput beside TCP's (perftest, sockperf, iperf3), all in this one VM boot. Raw outputs go to
# OUT (shared read-write).
# Usage: bench-vm.sh BENCHMARKS_JAR NATIVE_DIR DEVICE quick|full OUT
# Emulated RDMA is slow (~100 us a READ): the ratios mean something, the absolute numbers do not.
# Every tool run has a deadline: BENCH_RUN_LIMIT seconds (quick 300, full 900; a run takes 20-160 s here).
set -u
JAR=$1; NATIVE=$2; DEV=$3; MODE=$4; OUT=$5
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
# Latency runs warm up longer: under TCG, C2 is still compiling the client's path after 6 s, and its threads then
# take the vCPU from the measured one (-prof comp reports the compile time that fell into measured iterations).
# Quick (CI's smoke run) measures READ latency at 8 B only: each size costs two perftest runs and a JVM here.
if [ "$MODE" = quick ]; then
  SIZES="8"; WINDOWS="16"; N=2000; JMH=(-f 1 -wi 2 -w 3 -i 3 -r 2); LIMIT=${BENCH_RUN_LIMIT:-300}
  LAT_JMH=(-f 1 -wi 4 -w 3 -i 3 -r 2); ALLOC_OPS=1000
else
  SIZES="8 512 4096 65536"; WINDOWS="1 4 16 32"; N=5000; JMH=(-f 1 -wi 2 -w 2 -i 3 -r 2); LIMIT=${BENCH_RUN_LIMIT:-900}
  LAT_JMH=(-f 1 -wi 5 -w 3 -i 4 -r 2); ALLOC_OPS=3000
fi
# Message rate (issue 23): one connection, every op at RATE_SIZES x RATE_WINDOWS, measured for RATE_SECONDS after
# RATE_WARM_UP (under TCG a JVM's first READs ran at 300 a second, thousands 4 s later), and perftest for
# PERFTEST_SECONDS (-D: a quarter at each end is not measured). Each perftest run costs about 5 s more to start and
# connect: quick keeps 8 B at window 16 (about 70 s a device), full adds 4 KiB and windows 1 and 64 (window 64 fits
# both devices' queues; a READ window is also the outstanding reads, at most 128 on rxe and siw).
if [ "$MODE" = quick ]; then RATE_SIZES="8"; RATE_WINDOWS="16"; RATE_SECONDS=1
else RATE_SIZES="8 4096"; RATE_WINDOWS="1 16 64"; RATE_SECONDS=2; fi
# gRPC (GrpcBench, issue 26): the Netty transport on verbs (default and blocking loops) beside Netty NIO over eth0,
# SECONDS x ROUNDS taken in turns, after a warm-up until the JIT settles, at most GRPC_WARM_UP_LIMIT s (under TCG about
# 140 s: the rounds measured the JIT before, docs/profiles/2026-11-29-grpc-verbs-vm.md).
if [ "$MODE" = quick ]; then GRPC=(1 3); GRPC_WARM_UP_LIMIT=180; else GRPC=(3 5); GRPC_WARM_UP_LIMIT=300; fi
RATE_WARM_UP=3; PERFTEST_SECONDS=4
csv() { echo "$*" | tr ' ' ','; }
# iWARP (siw) connects through rdma_cm only (-R); its listener then shows up as a TCP socket.
CM=(); case "$DEV" in siw*) CM=(-R);; esac
status=0

perftest() { # perftest TOOL LOGNAME ARGS...: a pair of one perftest tool on DEV, once more if siw flushed its QP
  local pair
  for pair in 1 2; do
    perftest_pair "$@" && return 0
    # Under emulation siw once flushed ib_read_bw's queue pair mid-run (the client: "Bad wc status -- 5", a flushed
    # work request); the tool is the baseline, not the code measured, so a new pair on a new port runs once more.
    # A second failure, or any other, fails the run.
    if [ $pair = 1 ] && grep -q 'Bad wc status' "$OUT/$2.log"; then
      echo "bench-vm: $2: the tool's work request was flushed; running the pair once more" >&2
      # Kept, under a name that is not *.log: the report reads every perftest-*.log.
      mv "$OUT/$2.log" "$OUT/$2.log.flushed"; mv "$OUT/$2.server.log" "$OUT/$2.server.log.flushed"
      continue
    fi
    status=1; return 1
  done
}
perftest_pair() { # perftest_pair TOOL LOGNAME ARGS...: server and client of one perftest tool on DEV
  local tool=$1 name=$2 port=$((18515 + RANDOM % 1000)) i server attempt rc; shift 2
  timeout -k 10 "$LIMIT" $tool -d "$DEV" "${CM[@]}" -p "$port" -F "$@" > "$OUT/$name.server.log" 2>&1 &
  server=$!
  for i in $(seq 1 100); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
  for attempt in 1 2; do
    rc=0
    timeout -k 10 "$LIMIT" $tool -d "$DEV" "${CM[@]}" -p "$port" -F "$@" "$ADDR" > "$OUT/$name.log" 2>&1 || rc=$?
    # On siw a client's connect was once refused though the server's port listened; the server waited on, and a
    # second client reaches it.
    if [ $rc != 0 ] && [ $attempt = 1 ] && grep -q 'Connection refused' "$OUT/$name.log"; then
      echo "bench-vm: $name: the client's connect was refused; trying once more" >&2; sleep 1; continue
    fi
    break
  done
  # A client that failed leaves its server waiting for it: it ends now, not at the deadline.
  [ $rc = 0 ] || kill $server 2>/dev/null
  wait $server 2>/dev/null
  return $rc
}
echo "bench-vm: perftest ib_read_bw on $DEV"
# The window is the send queue depth and the outstanding reads, as the JMH throughput benchmarks keep them.
for w in $WINDOWS; do perftest ib_read_bw "perftest-bw-$DEV-$w" -s 65536 -n "$N" -t "$w" -o "$w"; done

FLAGS="--add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path=$NATIVE -Dbench.device=$DEV -Dbench.address=$ADDR"
java_run() { # java_run NAME ARGS...: one JVM run (java ARGS) logged to OUT/NAME-DEV.log, repeated if TCG broke it
  local name=$1 attempt rc why log="$OUT/$1-$DEV.log"; shift
  for attempt in 1 2 3 4 5; do
    echo "bench-vm: $name on $DEV"
    rc=0
    timeout -k 10 "$LIMIT" java "$@" > "$log" 2>&1 || rc=$?
    # Under multi-threaded TCG, QEMU can execute an instruction HotSpot is patching at the entry of a compiled method
    # half old, half new (docs/profiles/2026-11-24-setup-rate-vm.md, "JVM abort"): a JVM (a JMH fork, its runner,
    # any Java program) crashes with SIGSEGV or SIGILL (JMH notes a crashed fork, drops its result and carries on
    # with exit 0), or the guest kernel ends the thread with an oops and the JVM waits for it for ever. That says
    # nothing about the code under test, and it is frequent: about one JVM run in ten, more for some programs, so a
    # device pass of 17 JVM runs seldom gets through without a repeat, and with a single repeat about one pass in
    # seven still failed. So such a run (a JVM crash, or no result by the deadline: timeout kills the runner and its
    # fork) is repeated up to four times; any other failure is not.
    why=
    if [ $rc = 124 ] || [ $rc = 137 ]; then why="no result within ${LIMIT}s"
    elif grep -q 'A fatal error has been detected' "$log"; then why="a JVM crashed"
    elif [ $rc = 0 ]; then return 0; fi
    if [ -n "$why" ] && [ $attempt -lt 5 ]; then
      echo "bench-vm: $name on $DEV: $why; repeating it (attempt $attempt of 5)" >&2
      grep -m1 -A1 'Problematic frame' "$log" >&2
      dmesg | grep -A2 'Oops' | tail -3 >&2
      mv "$log" "$OUT/$name-$DEV.attempt$attempt.log"
      continue
    fi
    tail -30 "$log"; echo "bench-vm: $name on $DEV failed${why:+ ($why)}" >&2; status=1; return 1
  done
}
jmh() { # jmh NAME ARGS...: one JMH run with the iterations in RUN (JMH unless set)
  local name=$1; shift
  local run=("${JMH[@]}"); [ -n "${RUN+x}" ] && run=("${RUN[@]}")
  java_run "$name" -jar "$JAR" "$@" "${run[@]}" -jvmArgsAppend "$FLAGS" -prof gc -rf json -rff "$OUT/$name-$DEV.json" \
    || return 0
  # JMH reports a benchmark that failed in its set-up and carries on: a run with a failure failed.
  if grep -q '<failure>' "$OUT/$name-$DEV.log"; then
    grep -m1 -A5 '<failure>' "$OUT/$name-$DEV.log"; echo "bench-vm: $name had a failure" >&2; status=1
  fi
}
# ib_read_lat runs right before and right after the verbs latency run of the same size: under emulation the tool
# alone moves by up to 30% within one boot, so a ratio's baseline is the mean of the two runs around it.
for size in $SIZES; do
  perftest ib_read_lat "perftest-lat-$DEV-$size" -s "$size" -n "$N"
  RUN=("${LAT_JMH[@]}")
  jmh "verbs-read-latency-$size" 'ReadLatencyBenchmark.read' -p provider=verbs -p size="$size" -p driver=INVOKED \
    -prof comp
  unset RUN
  perftest ib_read_lat "perftest-lat-$DEV-$size.after" -s "$size" -n "$N"
done
jmh verbs-throughput 'ThroughputBenchmark.rdma' -p provider=verbs -p size=65536 -p window="$(csv $WINDOWS)" \
  -p driver=INVOKED
jmh disni-latency 'DisniReadBenchmark.readLatency' -p size="$(csv $SIZES)"
jmh disni-throughput 'DisniReadBenchmark.readThroughput' -p size=65536 -p window="$(csv $WINDOWS)"
java_run alloc $FLAGS -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" dev.rdmafutures.jmh.AllocationCheck \
  verbs 8,4096 "$ALLOC_OPS" "$ALLOC_OPS" "$OUT/alloc-$DEV.json"

# perftest keeps the window full as MessageRate does: -Q 1 asks a completion for every operation, as each of ours
# has one (by default it asks one per min(window, 100) operations and refills the window only when that completes);
# -o is the outstanding READs. The rate is its MsgRate column, read by msgrate_report.py.
for op in read write send; do
  for size in $RATE_SIZES; do
    for w in $RATE_WINDOWS; do
      rd=(); [ $op = read ] && rd=(-o "$w")
      perftest "ib_${op}_bw" "perftest-rate-$DEV-$op-$size-$w" -s "$size" -t "$w" "${rd[@]}" -Q 1 -D "$PERFTEST_SECONDS"
    done
  done
done
# RDMA alone (-Dbench.baseline=none): perftest above is its reference here, not MessageRate's NIO baseline.
# verbs SENDs are paced by the receiver's grants (SendCredits): without them the Java server's re-posts under TCG
# fell behind the device, rxe answered RNR NAKs (106 in 2,037 Sends, 2026-11-27) and siw, as iWARP has no RNR,
# terminated the stream.
# Every row warms up for RATE_WARM_UP seconds of its own, which under TCG covers the JIT: no run-wide JIT warm-up.
java_run msgrate $FLAGS -Dbench.provider=verbs -Dbench.baseline=none -Dbench.warmup=$RATE_WARM_UP -Dbench.jitwarmup=0 \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$JAR" dev.rdmafutures.jmh.MessageRate READ,WRITE,SEND "$(csv $RATE_SIZES)" "$(csv $RATE_WINDOWS)" 1 \
  "$RATE_SECONDS" "$OUT/msgrate-$DEV.json"
# gRPC over the Netty transport on verbs (its default loops, and loops that block at once) beside Netty NIO, all at
# eth0's address in this boot: the issue's ratios.
java_run grpc $FLAGS -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dbench.warmUpLimitSeconds=$GRPC_WARM_UP_LIMIT \
  -cp "$JAR" dev.rdmafutures.jmh.GrpcBench \
  verbs,verbs_blocking,nio "${GRPC[0]}" "${GRPC[1]}" "$OUT/grpc-$DEV.json"
# The device beside TCP in this boot, both event-driven as blocking event loops are: a 1 KiB round trip (ib_send_lat
# -e against sockperf ping-pong) and 16 KiB messages, 16 in flight (ib_send_bw -e against one iperf3 stream), with
# the machine's busy CPU ticks (/proc/stat, 100 a second) around each run in OUT/device-DEV.cpu. Each perftest pair
# runs twice, with 2,000 and with 20,000 operations, so that its start-up cancels out of the difference. The report
# sets these beside the gRPC ratios above (docs/profiles/2026-11-30-vm-device-baseline.md). They describe the device
# rather than test the code: a tool that fails or outlasts DEVICE_LIMIT is left out with a warning (the report then
# says what is missing), and a perftest pair that fails is not run again, since the second run's ticks would count
# the first's (a client that perftest_pair starts again after a refused connect is counted, rarely). Each run takes
# 3-10 s here; the limit keeps a hung tool well inside bin/bench's silence limit.
DEVICE_LIMIT=60
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
ticked() { # ticked NAME COMMAND...: COMMAND's machine-wide busy ticks, added to OUT/device-DEV.cpu as "NAME TICKS"
  local name=$1 before rc=0; shift
  echo "bench-vm: device beside TCP on $DEV: $name"
  before=$(busy_ticks)
  "$@" || rc=$?
  if [ $rc = 0 ]; then echo "$name $(($(busy_ticks) - before))" >> "$OUT/device-$DEV.cpu"
  else echo "bench-vm: device beside TCP on $DEV: $name failed (exit $rc); left out" >&2; fi
}
listening() { # listening PORT: waits up to 10 s for a TCP listener on PORT
  local i
  for i in $(seq 1 100); do ss -ltnH "sport = :$1" | grep -q . && return 0; sleep 0.1; done
  echo "bench-vm: device beside TCP on $DEV: nothing listens on port $1; left out" >&2
  return 1
}
: > "$OUT/device-$DEV.cpu" # present even when every tool fails, so that the report says so
for n in 2000 20000; do
  LIMIT=$DEVICE_LIMIT ticked "send-lat-$n" perftest_pair ib_send_lat "device-send-lat-$n-$DEV" -s 1024 -n "$n" -e
  LIMIT=$DEVICE_LIMIT ticked "send-bw-$n" perftest_pair ib_send_bw "device-send-bw-$n-$DEV" -s 16384 -t 16 -n "$n" -e
done
timeout -k 5 "$DEVICE_LIMIT" sockperf sr --tcp -i "$ADDR" -p 11211 --timeout 0 \
  > "$OUT/device-sockperf-$DEV.server.log" 2>&1 &
server=$!
listening 11211 && ticked sockperf \
  sh -c 'exec timeout -k 5 "$1" sockperf pp --tcp -i "$2" -p 11211 -m 1024 -t 6 > "$3" 2>&1' _ \
  "$DEVICE_LIMIT" "$ADDR" "$OUT/device-sockperf-$DEV.log"
kill $server 2>/dev/null; wait $server 2>/dev/null
timeout -k 5 "$DEVICE_LIMIT" iperf3 -s -1 -p 15201 > "$OUT/device-iperf3-server-$DEV.log" 2>&1 &
server=$!
listening 15201 && ticked iperf3 \
  sh -c 'exec timeout -k 5 "$1" iperf3 -c "$2" -p 15201 -l 16384 -t 6 -J > "$3" 2> "$4"' _ \
  "$DEVICE_LIMIT" "$ADDR" "$OUT/iperf3-device-$DEV.json" "$OUT/device-iperf3-$DEV.err"
kill $server 2>/dev/null; wait $server 2>/dev/null
exit $status
