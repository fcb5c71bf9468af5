#!/bin/bash
# Runs inside the RDMA VM: reproduces the verbs listener's start-up abort of docs/profiles/2026-11-24-setup-rate-vm.md
# ("JVM abort"). Does what setup-rate-vm.sh does before that start (a cmtime -> cmtime round whose server may be
# killed holding ids, a soft listener on siw), then starts the verbs SetupRatePeer listener STARTS times in a row,
# each answering a cmtime round of N, and keeps every fatal-error report (OUT/hs_err-DEV-K-PID.log).
# Usage: listener-starts-vm.sh BENCHMARKS_JAR NATIVE_DIR DEVICE STARTS N OUT [JAVA_OPTS...]
# LISTENER_STARTS_CHECKJNI=1 adds -Xcheck:jni to every other start.
set -u
JAR=$1; NATIVE=$2; DEV=$3; STARTS=$4; N=$5; OUT=$6; shift 6; EXTRA=("$@")
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
JAVA=(java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Djava.library.path="$NATIVE" -Dbench.device="$DEV"
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
port=7700; crashes=0; failures=0
log() { echo "listener-starts: $*" | tee -a "$OUT/summary-$DEV.txt"; }

cmtime_pair() { # cmtime server + client of $1 connections on a new port; the server is killed if it lingers
  port=$((port + 1))
  timeout -k 5 120 cmtime -b "$ADDR" -p $port -c "$1" > "$OUT/cmtime-server-$port.log" 2>&1 & local server=$!
  for _ in $(seq 1 300); do rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*:$port " && break; sleep 0.2; done
  timeout -k 5 120 cmtime -s "$ADDR" -p $port -c "$1" > "$OUT/cmtime-client-$port.log" 2>&1
  for _ in $(seq 1 50); do kill -0 $server 2>/dev/null || break; sleep 0.2; done
  kill $server 2>/dev/null; wait $server 2>/dev/null
}

# listener PROVIDER K OPTS...: one SetupRatePeer listener start, a cmtime round of N against it, then end
listener() {
  local provider=$1 k=$2; shift 2
  port=$((port + 1))
  local plog=$OUT/peer-$DEV-$provider-$k.log
  coproc PEER { timeout -k 5 300 "${JAVA[@]}" "$@" -XX:ErrorFile="$OUT/hs_err-$DEV-$provider-$k-%p.log" \
    -cp "$JAR" dev.rdmafutures.jmh.SetupRatePeer listen "$provider" "$ADDR" "$port" 120 "$OUT/peer-$DEV-$provider-$k.json" \
    2>> "$plog"; }
  local pid=$PEER_PID line=
  read -t 120 -r line <&"${PEER[0]}"
  echo "first line: $line" >> "$plog"
  if [[ $line != listening* ]]; then
    cat <&"${PEER[0]}" >> "$plog" 2>/dev/null
    wait $pid; local rc=$?
    log "$provider start $k ($*): '$line' rc=$rc"; crashes=$((crashes + 1)); return
  fi
  echo "round $N" >&"${PEER[1]}"; read -t 120 -r line <&"${PEER[0]}"
  timeout -k 5 120 cmtime -s "$ADDR" -p $port -c "$N" > "$OUT/cmtime-$DEV-$provider-$k.log" 2>&1
  read -t 120 -r line <&"${PEER[0]}"; echo "round: $line" >> "$plog"
  echo end >&"${PEER[1]}"; wait $pid; local rc=$?
  [ $rc = 0 ] || { failures=$((failures + 1)); log "$provider start $k: exit $rc after '$line'"; }
}

log "boot: $DEV, $STARTS starts, rounds of $N, extra: ${EXTRA[*]:-none}, $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo)"
cmtime_pair 10
case "$DEV" in siw*) listener soft 0 "${EXTRA[@]}";; esac
for k in $(seq 1 "$STARTS"); do
  opts=("${EXTRA[@]}")
  [ "${LISTENER_STARTS_CHECKJNI:-0}" = 1 ] && [ $((k % 2)) = 0 ] && opts+=(-Xcheck:jni)
  listener verbs "$k" "${opts[@]}"
  [ "${LISTENER_STARTS_CMTIME_EACH:-0}" = 1 ] && cmtime_pair 10
done
log "done: $crashes crashed starts, $failures other failures of $STARTS"
