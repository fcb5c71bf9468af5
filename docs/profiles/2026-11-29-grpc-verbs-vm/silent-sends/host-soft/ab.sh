#!/bin/bash
# On the host: GrpcBench rdma,nio 2 3 with the jar of daa6d56 (/tmp/exp) and of 52a9c8b (this checkout) in turns:
# old, new, new, old
set -u
OUT=/tmp/hab
run() { java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$2/framework-jmh/target/benchmarks.jar" \
  dev.rdmafutures.jmh.GrpcBench rdma,nio 2 3 "$OUT/$1.json" > "$OUT/$1.log" 2>&1; }
run old-1 /tmp/exp && run new-1 /work/main && run new-2 /work/main && run old-2 /tmp/exp
