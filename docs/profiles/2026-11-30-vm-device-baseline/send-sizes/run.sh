#!/bin/bash
# In the RDMA VM: GrpcBench verbs,nio (2 rounds of 3 s, a 120 s JIT warm-up limit) on DEV, with a benchmarks jar built
# with count-sends.patch applied (it prints the stream's SENDs and their mean size each second); three attempts, since
# the JVM aborts now and then under TCG. Usage: run.sh JAR NATIVE DEV OUT
JAR=$1; NATIVE=$2; DEV=$3; OUT=$4
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
for attempt in 1 2 3; do
  timeout 900 java -Dbench.warmUpLimitSeconds=120 --add-exports java.base/sun.nio.ch=ALL-UNNAMED \
    -Djava.library.path="$NATIVE" -Dbench.device="$DEV" -Dbench.address="$ADDR" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" dev.rdmafutures.jmh.GrpcBench verbs,nio 3 2 \
    "$OUT/$DEV.json" > "$OUT/$DEV.log" 2>&1 && break
done
