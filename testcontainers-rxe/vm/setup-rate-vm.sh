#!/bin/bash
# Runs inside the RDMA VM (bin/bench): connection set-up rate on one device (issue 16), every pair in this one VM boot.
#   cmtime-cmtime  librdmacm's cmtime client against cmtime's own server: the kernel's rdma_cm listener (siw or rxe)
#   cmtime-soft    cmtime client (Linux siw) against a soft listener (SetupRatePeer; siw0 only: soft speaks iWARP,
#                  MPA over TCP, so a siw client reaches it as interop-siw.sh does)
#   cmtime-verbs   cmtime client against a verbs listener on the same device (SetupRatePeer)
#   verbs-cmtime   a verbs connector (SetupRatePeer) against a cmtime server on the same device
# Each pair runs a warm-up round of WARM_UP connections (not reported), then each count of COUNTS. cmtime's client
# has all of a round's connects in flight at once and reports every step (create id, resolve addr, resolve route,
# create qp, connect, disconnect, destroy); SetupRatePeer makes its connections as cmtime does (queue pairs of depth 1,
# read limits 1). Raw logs go to OUT; setup_rate_json.py then writes OUT/setup-rate-DEV.json and fails if any
# connection failed.
# Usage: setup-rate-vm.sh BENCHMARKS_JAR NATIVE_DIR DEVICE COUNTS OUT   (COUNTS comma-separated, each at most 48: on
# siw a process holds at most 144 queue pages; see SIW_PAGES below)
# Deadlines: each round SETUP_ROUND_LIMIT seconds (120), each program run BENCH_RUN_LIMIT (600).
# Profiling a missed target (issue 16; docs/profiles/): SETUP_RATE_WARM_UP="10,40,40,40" runs these warm-up rounds
# (default one of 10; each pair alike, each logged as warmupK, each in SetupRatePeer's JSON), to tell JVM warm-up
# from steady-state cost. SETUP_RATE_JFR=1 starts every SetupRatePeer JVM with Java Flight Recorder (settings
# profile, Java samples every 1 ms, native ones every 20 ms, DebugNonSafepoints for exact frames) writing
# OUT/setup-rate-DEV-PAIR.jfr; compilation, GC, safepoint and class-loading events come with the profile settings.
# SetupRatePeer's JSON has per-connection stage medians and each round's JIT, class-loading, GC and CPU time always.
# SETUP_RATE_JAVA_OPTS (word-split) adds JVM options to every SetupRatePeer, e.g. -XX:TieredStopAtLevel=1 to see
# what the JIT's own CPU time costs the rate on the VM's two emulated cores.
# Emulated RDMA (TCG): only the ratios within this one boot mean anything.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# SIW_PAGES: siw maps every CQ, send queue and receive queue into the process, and its keys are page offsets handed
# out lowest first; libsiw (rdma-core 44) takes the key 0x90000 (SIW_INVAL_UOBJ_KEY, page 144) for a failed mapping, so
# while 144 queue pages are in use in one process every further CQ or QP fails without setting errno (cmtime then
# reports a stale ENOENT or EINVAL; our native code clears errno first and reports none). cmtime 44 shares its
# first pair's two CQs (one global attribute struct), 2 pages a QP: its 72nd QP fails. Our verbs provider keeps
# every queue off page 144 (SiwMappingGuard). Rounds stay within SIW_PAGES / 3 = 48 connections, what a program
# needing 3 pages a connection (its own CQ) can open, so every program is measured at every count and the counts
# stay those of the reports in docs/benchmarks.
SIW_PAGES=144
JAR=$1; NATIVE=$2; DEV=$3; COUNTS=${4//,/ }; OUT=$5
WARM_UP=${SETUP_RATE_WARM_UP:-10}; WARM_UP=${WARM_UP//,/ }
for n in $COUNTS $WARM_UP; do
  [ "$n" -le $((SIW_PAGES / 3)) ] || { echo "setup-rate-vm: $n connections: at most $((SIW_PAGES / 3))" >&2; exit 2; }
done
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
ROUND_LIMIT=${SETUP_ROUND_LIMIT:-120}
LIMIT=${BENCH_RUN_LIMIT:-600}
[ -n "$LIMIT" ] || LIMIT=600
PREFIX=$OUT/setup-rate-$DEV
JAVA=(java --add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path="$NATIVE" -Dbench.device="$DEV"
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
# jfr NAME: the JVM options that record PAIR NAME's flight recording, when SETUP_RATE_JFR=1
jfr() {
  [ "${SETUP_RATE_JFR:-0}" = 1 ] || return 0
  echo -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
    "-XX:StartFlightRecording=settings=profile,method-profiling=max,dumponexit=true,filename=$PREFIX-$1.jfr"
}
port=7700

die() { echo "setup-rate-vm: $DEV: $*" >&2; exit 1; }

# listening PORT: waits up to 60 s until an rdma_cm listener (cmtime's server) is bound to PORT on this machine.
listening() {
  local _
  for _ in $(seq 1 300); do
    rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [0-9.]*:$1 " && return 0
    sleep 0.2
  done
  die "no rdma_cm listener on port $1 after 60 s"
}

# cmtime_client N PORT LOG: cmtime's client with N connections. cmtime v44 exits 0 even when connections fail, so its
# output is checked too.
cmtime_client() {
  timeout -k 5 "$ROUND_LIMIT" cmtime -s "$ADDR" -p "$2" -c "$1" > "$3" 2>&1 || { cat "$3"; die "cmtime -s failed"; }
  if grep -q 'failure\|event:\|ERROR\|error' "$3"; then cat "$3"; die "cmtime -s: a connection failed ($3)"; fi
}

# cmtime_server N PORT LOG: cmtime's server for N connections, in the background; it exits after N disconnects.
cmtime_server() {
  timeout -k 5 "$ROUND_LIMIT" cmtime -b "$ADDR" -p "$2" -c "$1" > "$3" 2>&1 &
  server=$!
  listening "$2"
}
# server_done LOG: the background cmtime server reported no failure. cmtime v44's server exits only once it has seen
# as many DISCONNECTED events as connections; it is given 10 s after its client ended, then ended by its PID, with the
# rdma_cm ids it still holds noted in LOG (the client's log has already shown every connection established and
# disconnected).
server_done() {
  local _
  for _ in $(seq 1 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$server" 2>/dev/null; then
    echo "setup-rate-vm: cmtime server still running 10 s after its client; ids left by state: $(rdma resource show \
      cm_id | grep 'comm cmtime' | grep -o 'state [A-Z_]*' | sort | uniq -c | tr -s ' \n' ' ')" >> "$1"
    kill "$server"; wait "$server"
  else
    wait "$server" || { cat "$1"; die "cmtime server failed"; }
  fi
  if grep -q 'failure\|event:\|ERROR\|error' "$1"; then cat "$1"; die "cmtime server: a connection failed ($1)"; fi
}

# peer ROLE PROVIDER NAME: starts SetupRatePeer as a coprocess (PEER) logging to PREFIX-NAME.peer.log
peer() {
  peer_log=$PREFIX-$3.peer.log
  : > "$peer_log"
  local profile
  read -r -a profile <<< "$(jfr "$3") ${SETUP_RATE_JAVA_OPTS:-}"
  # A JVM that dies writes its fatal-error report beside the logs (the VM's working directory is thrown away)
  coproc PEER { timeout -k 5 "$LIMIT" "${JAVA[@]}" "${profile[@]}" -XX:ErrorFile="$PREFIX-$3.hs_err.log" \
    -cp "$JAR" dev.rdmafutures.jmh.SetupRatePeer \
    "$1" "$2" "$ADDR" "$port" "$ROUND_LIMIT" "$PREFIX-$3.peer.json" 2>> "$peer_log"; }
  expect "${1/listen/listening}" # "listening ADDRESS:PORT" or "connector ..."
}
# expect WORD: the peer's next line must start with WORD, within ROUND_LIMIT seconds. The JVM's own log lines
# ("[0.4s][info][jfr,startup] ...": JFR prints those on standard output whatever -Xlog says) are logged and skipped.
expect() {
  local line=
  while read -t "$ROUND_LIMIT" -r line <&"${PEER[0]}" && echo "$line" >> "$peer_log" && [[ $line == \[[0-9]* ]]; do
    :
  done
  case "$line" in "$1"*) ;; *) cat "$peer_log"; die "SetupRatePeer said '${line}' where '$1' was due";; esac
}
peer_end() { echo end >&"${PEER[1]}"; wait "$PEER_PID" || { cat "$peer_log"; die "SetupRatePeer failed"; }; }

# rounds: every round as NAME:N, warm-up rounds first (named warmup, or warmup1.. when there are several: their logs
# are kept apart), then the measured ones (named by their count)
rounds() {
  local k=0 w
  set -- $WARM_UP
  for w; do k=$((k + 1)); if [ $# = 1 ]; then echo "warmup:$w"; else echo "warmup$k:$w"; fi; done
  for w in $COUNTS; do echo "$w:$w"; done
}

echo "setup-rate-vm: cmtime -> cmtime on $DEV"
for round in $(rounds); do
  n=${round#*:}; port=$((port + 1))
  cmtime_server "$n" "$port" "$PREFIX-cmtime-cmtime-${round%:*}.server.log"
  cmtime_client "$n" "$port" "$PREFIX-cmtime-cmtime-${round%:*}.log"
  server_done "$PREFIX-cmtime-cmtime-${round%:*}.server.log"
done

listeners=(verbs); case "$DEV" in siw*) listeners=(soft verbs);; esac
for provider in "${listeners[@]}"; do
  echo "setup-rate-vm: cmtime -> $provider listener on $DEV"
  port=$((port + 1))
  peer listen "$provider" "cmtime-$provider"
  for round in $(rounds); do
    n=${round#*:}
    echo "round $n" >&"${PEER[1]}"
    expect "ready $n"
    cmtime_client "$n" "$port" "$PREFIX-cmtime-$provider-${round%:*}.log"
    expect "done $n"
  done
  peer_end
done

echo "setup-rate-vm: verbs connector -> cmtime on $DEV"
port=$((port + 1))
peer connect verbs verbs-cmtime
for round in $(rounds); do
  n=${round#*:}
  cmtime_server "$n" "$port" "$PREFIX-verbs-cmtime-${round%:*}.server.log"
  echo "round $n" >&"${PEER[1]}"
  expect "ready $n"
  expect "done $n"
  server_done "$PREFIX-verbs-cmtime-${round%:*}.server.log"
done
peer_end

python3 "$HERE/setup_rate_json.py" "$DEV" "$WARM_UP" "$COUNTS" "$OUT"
