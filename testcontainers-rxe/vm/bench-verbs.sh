#!/bin/bash
# Runs inside the VM: verbs READ latency beside perftest's ib_read_lat on the same device, same run.
# Usage: bench-verbs.sh CLASSPATH NATIVE_DIR DEVICE [ITERATIONS]   Prints ib_read_lat, verbs and their ratio per size.
# Emulated RDMA is slow (~100 us): read the ratios, never the absolute numbers.
set -u
CP=$1; NATIVE=$2; DEV=$3; N=${4:-2000}
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
OUT=$(mktemp -d)

# ib_read_lat's typical (median) latency for SIZE, server and client on DEV.
# iWARP (siw) connects through rdma_cm only (-R); its listener then shows up as a TCP socket.
CM=(); case "$DEV" in siw*) CM=(-R);; esac
perftest_typical() {
  local size=$1 port=$((18515 + size % 1000)) i
  ib_read_lat -d "$DEV" "${CM[@]}" -s "$size" -n "$N" -p "$port" -F > "$OUT/srv.$size" 2>&1 &
  for i in $(seq 1 100); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
  timeout 120 ib_read_lat -d "$DEV" "${CM[@]}" -s "$size" -n "$N" -p "$port" -F "$ADDR" > "$OUT/cli.$size" 2>&1
  wait
  awk -v s="$size" '$1 == s && NF >= 5 {print $5}' "$OUT/cli.$size" | tail -1
}

declare -A ib
for size in 8 4096 65536; do ib[$size]=$(perftest_typical "$size"); done

java -cp "$CP" --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Djava.library.path="$NATIVE" \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dprovider=verbs -Ddevice="$DEV" -Daddress="$ADDR" \
  -Diterations="$N" dev.rdmafutures.samples.ReadLatency > "$OUT/verbs" 2>&1 || { cat "$OUT/verbs"; exit 1; }

echo "READ latency on $DEV ($N iterations, one outstanding; microseconds, medians):"
echo "     bytes  ib_read_lat  verbs p50   ratio"
status=0
for size in 8 4096 65536; do
  v=$(awk -v s="$size" '$1 == s {print $3}' "$OUT/verbs")
  p=${ib[$size]}
  if [ -z "$v" ] || [ -z "$p" ]; then
    echo "  $size: missing result (ib_read_lat '$p', verbs '$v')"; status=1
    tail -5 "$OUT/cli.$size" "$OUT/srv.$size" 2>/dev/null; continue
  fi
  awk -v s="$size" -v p="$p" -v v="$v" 'BEGIN {printf "  %8d  %11.2f  %9.2f  %5.2fx\n", s, p, v, v / p}'
done
grep '^#' "$OUT/verbs"
exit $status
