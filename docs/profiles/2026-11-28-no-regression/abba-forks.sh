#!/bin/bash
# 8 B READ round trip, callback form: one JMH fork is one JVM, and window-1 latency is bimodal per JVM, so count
# forks: old new new old, 4 forks each, with the NIO ping-pong in the same forks.
set -u
OUT=/tmp/noreg
i=0
for b in old new new old; do
  i=$((i+1))
  jar=/tmp/wt-$b/framework-jmh/target/benchmarks.jar
  java -jar $jar 'ReadLatencyBenchmark' -p provider=soft -p size=8 -p api=CALLBACK -p driver=INVOKED \
    -f 4 -wi 3 -w 1 -i 5 -r 1 -rf json -rff $OUT/forks-$i-$b.json > $OUT/forks-$i-$b.log 2>&1
  echo "run $i $b done $(date +%T)"
done
