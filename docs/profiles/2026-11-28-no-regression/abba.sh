#!/bin/bash
# No-regression A/B for issue 23: the build before it (3c62de4, "old") and HEAD ("new"), alternated old new new old,
# two rounds. Window-1 READ latency (8 B, 64 KiB; future and callback) and 64 KiB READ/WRITE throughput at window 16.
set -u
OUT=/tmp/noreg
JMH=(-f 1 -wi 3 -w 1 -i 5 -r 1)
i=0
for round in 1 2; do
  for b in old new new old; do
    i=$((i+1))
    jar=/tmp/wt-$b/framework-jmh/target/benchmarks.jar
    java -jar $jar 'ReadLatencyBenchmark.read' -p provider=soft -p size=8,65536 -p driver=INVOKED "${JMH[@]}" \
      -rf json -rff $OUT/lat-$i-$b.json > $OUT/lat-$i-$b.log 2>&1
    java -jar $jar 'ThroughputBenchmark.rdma' -p provider=soft -p size=65536 -p window=16 -p driver=INVOKED "${JMH[@]}" \
      -rf json -rff $OUT/tp-$i-$b.json > $OUT/tp-$i-$b.log 2>&1
    echo "run $i $b done $(date +%T)"
  done
done
