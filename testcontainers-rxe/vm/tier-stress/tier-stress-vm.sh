#!/bin/bash
# Runs inside the RDMA VM: STARTS runs of TierStress (gen.py; compiled into CLASSES) of SECS seconds on 2 threads for
# each JVM option set, keeping every fatal-error report in OUT. Usage: tier-stress-vm.sh CLASSES OUT STARTS SECS 'OPTS'...
CLASSES=$1; OUT=$2; STARTS=$3; SECS=$4; shift 4
cd /tmp
for opts in "$@"; do
  tag=$(echo "x$opts" | tr -c 'A-Za-z0-9' '_'); crashes=0
  for k in $(seq 1 "$STARTS"); do
    java $opts -XX:ErrorFile="$OUT/hs_err-stress$tag-$k-%p.log" -cp "$CLASSES" TierStress "$SECS" 2 > "$OUT/stress$tag-$k.out" 2>&1 \
      || { crashes=$((crashes + 1)); grep -m1 'SIG' "$OUT/stress$tag-$k.out"; grep -m1 -A1 Problematic "$OUT/stress$tag-$k.out" | tail -1; }
  done
  echo "tier-stress [$opts]: $crashes of $STARTS crashed"
done
