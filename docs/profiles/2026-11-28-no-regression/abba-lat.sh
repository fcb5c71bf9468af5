#!/bin/bash
# Window-1 8 B READ round trip, the build before issue 23 (3c62de4, "old") and HEAD ("new"), each run beside the
# same JMH run's NIO busy-poll ping-pong (the machine-state yardstick), alternated old new new old, three rounds.
set -u
OUT=/tmp/noreg
JMH=(-f 1 -wi 3 -w 1 -i 5 -r 1)
i=0
for round in 1 2 3; do
  for b in old new new old; do
    i=$((i+1))
    jar=/tmp/wt-$b/framework-jmh/target/benchmarks.jar
    java -jar $jar 'ReadLatencyBenchmark' -p provider=soft -p size=8 -p driver=INVOKED "${JMH[@]}" \
      -rf json -rff $OUT/lat8-$i-$b.json > $OUT/lat8-$i-$b.log 2>&1
    echo "run $i $b done $(date +%T)"
  done
done
