#!/bin/bash
# ab.sh ROUNDS DIR JAR...: GrpcBench rdma,nio (3 rounds of 2 s) with each jar in turn, ROUNDS times; the JSON of
# jar number k in run i goes to DIR/ab-k-i.json. paired-ratios.py DIR reads them.
n=$1; dir=$2; shift 2
for i in $(seq 1 "$n"); do
  k=0
  for jar in "$@"; do
    k=$((k + 1))
    java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$jar" dev.rdmafutures.jmh.GrpcBench rdma,nio 2 3 \
      "$dir/ab-$k-$i.json" > "$dir/ab-$k-$i.log" 2>&1
  done
done
