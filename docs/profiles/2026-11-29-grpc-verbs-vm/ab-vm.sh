#!/bin/bash
# In the RDMA VM: GrpcBench verbs,nio SECONDS ROUNDS with the jar and native library of OLD and of NEW in turns
# (old, new, new, old), each JVM repeated when it dies in the TCG JIT crash; JSON and log per run into OUT.
# Usage: ab-vm.sh OLD_DIR NEW_DIR DEV OUT [SECONDS ROUNDS]   (a DIR is a checkout built with mvn package)
set -u
OLD=$1; NEW=$2; DEV=$3; OUT=$4; S=${5:-3}; R=${6:-5}
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
run() { # run NAME DIR
  local flags="--add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED"
  flags="$flags -Djava.library.path=$2/verbs/target/native -Dbench.device=$DEV -Dbench.address=$ADDR"
  for attempt in 1 2 3; do
    echo "ab: $DEV $1 attempt $attempt $(date +%T)"
    # shellcheck disable=SC2086
    timeout -k 10 900 java $flags -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
      -cp "$2/framework-jmh/target/benchmarks.jar" dev.rdmafutures.jmh.GrpcBench verbs,nio "$S" "$R" \
      "$OUT/$DEV-$1.json" > "$OUT/$DEV-$1.log" 2>&1 && return 0
    grep -q 'A fatal error has been detected' "$OUT/$DEV-$1.log" || return 1
  done
  return 1
}
run old-1 "$OLD" && run new-1 "$NEW" && run new-2 "$NEW" && run old-2 "$OLD"
