#!/bin/bash
# Runs inside the RDMA VM: setup-rate-vm.sh again and again in one boot until SECONDS_BUDGET is spent, each run in
# its own OUT/runK, to catch the verbs listener's rare start-up abort (docs/profiles/2026-11-24-setup-rate-vm.md,
# "JVM abort") with its fatal-error report. Usage: setup-rate-loop-vm.sh JAR NATIVE DEVICE COUNTS OUT SECONDS_BUDGET
HERE=$(cd "$(dirname "$0")" && pwd)
JAR=$1; NATIVE=$2; DEV=$3; COUNTS=$4; OUT=$5; BUDGET=$6
k=0; start=$(date +%s)
echo "loop: $DEV, java $(java -XX:+PrintFlagsFinal -version 2>/dev/null | grep -E ' UseAVX |UseSSE ' | tr -s ' ' | tr '\n' ';')"
grep -m1 flags /proc/cpuinfo
while [ $(( $(date +%s) - start )) -lt "$BUDGET" ]; do
  k=$((k + 1)); mkdir -p "$OUT/run$k"
  t0=$(date +%s)
  bash "$HERE/setup-rate-vm.sh" "$JAR" "$NATIVE" "$DEV" "$COUNTS" "$OUT/run$k" > "$OUT/run$k/script.log" 2>&1
  rc=$?
  echo "loop: run $k rc=$rc $(( $(date +%s) - t0 )) s $(ls "$OUT/run$k" | grep hs_err)"
  [ $rc = 0 ] || tail -3 "$OUT/run$k/script.log"
done
