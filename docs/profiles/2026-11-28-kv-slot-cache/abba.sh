#!/bin/bash
# Alternated runs of bin/kv's KvBench at its defaults: A = a worktree of the build before (git worktree add
# /tmp/wt-a f51d229), B = this checkout, each built with mvn -o package -DskipTests -pl framework,verbs,samples;
# /tmp/kvdeps3.txt holds the samples module's third-party classpath (mvn dependency:build-classpath, without
# rdmafutures' own artifacts).
deps=$(cat /tmp/kvdeps3.txt)
run() { root=$1; cp="$root/framework/target/classes:$root/verbs/target/classes:$root/samples/target/classes:$deps"
  java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -cp "$cp" dev.rdmafutures.samples.kv.KvBench --duration 5 --warmup 2 2>&1 | grep -E "^ *(RDMA|TCP)" | grep -v "thread\|every value\|:" ; }
for r in 1 2; do
  for side in A B B A; do
    [ $side = A ] && root=/tmp/wt-a || root=/work/main
    echo "== round $r $side"; run $root
  done
done
