#!/bin/bash
# Runs inside the RDMA VM (bin/kv --vm): the KV benchmark with the verbs provider on DEVICE, beside its TCP twin on
# the same address (eth0), in one JVM. Small settings by default; later options override them. Emulated RDMA under
# TCG: the ratios against the TCP twin mean something, the absolute numbers little.
# Usage: kv-verbs.sh CLASSPATH NATIVE_DIR DEVICE [KvBench options...]
set -u
CP=$1; NATIVE=$2; DEV=$3; shift 3
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
SMALL=(--connections 4 --window 4 --keys 1000 --value-size 128 --warmup 3 --duration 5)
LOG=$(mktemp)
for attempt in 1 2; do
  rc=0
  timeout -k 10 300 java --add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path="$NATIVE" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$CP" dev.rdmafutures.samples.kv.KvBench \
    --provider verbs --device "$DEV" --address "$ADDR" "${SMALL[@]}" "$@" > "$LOG" 2>&1 || rc=$?
  cat "$LOG"
  # Under TCG a JVM now and then crashes in freshly patched compiled code or hangs (see bench-vm.sh): such a run is
  # repeated once; any other failure (a wrong value, a refused operation) is not.
  if [ $rc = 0 ] || { [ $rc != 124 ] && [ $rc != 137 ] && ! grep -q 'A fatal error has been detected' "$LOG"; }; then
    break
  fi
  echo "kv-verbs: the JVM crashed or hung on $DEV (exit $rc); repeating once" >&2
done
echo "kv-verbs: $DEV exit $rc"
exit $rc
