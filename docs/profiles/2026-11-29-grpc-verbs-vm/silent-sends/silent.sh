#!/bin/bash
# In the RDMA VM: GrpcBench verbs,nio 3 3 with the jar of daa6d56 (every SEND signalled, a checkout at /tmp/exp), then
# with the jar of 52a9c8b (silent SENDs, this checkout). Usage: silent.sh DEV OUT
set -u
DEV=$1; OUT=$2
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
run() {
  for attempt in 1 2 3; do
    timeout -k 10 1200 java -Dbench.warmUpLimitSeconds=300 --add-exports java.base/sun.nio.ch=ALL-UNNAMED \
      -Djava.library.path=$2/verbs/target/native -Dbench.device=$DEV -Dbench.address=$ADDR \
      -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$2/framework-jmh/target/benchmarks.jar" \
      dev.rdmafutures.jmh.GrpcBench verbs,nio 3 3 "$OUT/$DEV-$1.json" > "$OUT/$DEV-$1.log" 2>&1 && return 0
    grep -q 'A fatal error' "$OUT/$DEV-$1.log" || return 1
  done
}
run signalled /tmp/exp && run silent /work/main
