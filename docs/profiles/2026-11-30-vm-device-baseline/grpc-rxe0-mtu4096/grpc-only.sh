#!/bin/bash
# In the RDMA VM: bench-vm.sh's gRPC step alone, 3 rounds of 3 s (GrpcBench verbs,verbs_blocking,nio 3 3), with a 180 s JIT warm-up limit, on DEV; JSON and log into OUT.
set -u
JAR=$1; NATIVE=$2; DEV=$3; OUT=$4
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
FLAGS="-Dbench.warmUpLimitSeconds=180 --add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path=$NATIVE -Dbench.device=$DEV -Dbench.address=$ADDR"
for attempt in 1 2 3; do
  echo "grpc-only: $DEV attempt $attempt"
  rc=0
  timeout -k 10 1200 java $FLAGS -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" dev.rdmafutures.jmh.GrpcBench \
    verbs,verbs_blocking,nio 3 3 "$OUT/grpc-$DEV.json" > "$OUT/grpc-$DEV.log" 2>&1 || rc=$?
  if [ $rc = 0 ]; then exit 0; fi
  grep -q 'A fatal error has been detected' "$OUT/grpc-$DEV.log" || exit $rc
  mv "$OUT/grpc-$DEV.log" "$OUT/grpc-$DEV.attempt$attempt.log"
done
exit 1
