#!/bin/bash
# Link cuts without a reset between two VMs (rdma-vm pair, issue 15 item 2): host B serves a readable region on soft
# and on verbs (rxe0), host A keeps 64 KiB READs outstanding to it and cuts its own side of the link silently (netem
# drops what it sends, an ingress filter what it receives): per provider a 1 s cut under a 4 s deadline loses nothing, and a
# lasting cut ends every READ typed within a 2 s deadline (LinkCutPair in testcontainers-rxe's test classes).
# The KV service through the same lasting cut (issue 23 item 5): B also runs the KV server (KvServerProcess) on soft
# and on verbs (rxe0), A loads each at bin/kv's defaults and cuts the link under the load: every operation ends typed
# within the deadline, no value torn, and after the link is back no acknowledged PUT is lost (KvLinkCutPair in the
# samples' test classes); it runs first.
# Prints the VM's kernel and device (VM-INFO), A's FAULT-ROW lines, the retry budget rxe0's queue pairs got (from ibv_query_qp, the provider's debug log)
# and any broken expectation; exit 0 when every case held.
# Usage: pair-faults.sh [--kv-only] CLASSPATH KV_CLASSPATH
#   CLASSPATH: testcontainers-rxe's test class path (target/test-classes, target/classes and its dependencies);
#   KV_CLASSPATH: the samples' (target/test-classes, target/classes and its dependencies);
#   --kv-only: the KV cases only (LinkCutPair not run).
set -u
KV_ONLY=0
[ "${1:-}" = --kv-only ] && { KV_ONLY=1; shift; }
[ $# = 2 ] || { echo "usage: pair-faults.sh [--kv-only] CLASSPATH KV_CLASSPATH" >&2; exit 2; }
CP=$1
KV_CP=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLAGS="--add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path=$ROOT/verbs/target/native"
FLAGS="$FLAGS -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.out"   # one stream: whole lines
J="java -cp $CP $FLAGS"
JKV="java -cp $KV_CP $FLAGS"
MAIN=dev.rdmafutures.testcontainers.LinkCutPair
KV=dev.rdmafutures.samples.kv
INFO="echo \"VM-INFO kernel \$(uname -r), \$(nproc) vCPU, \$(rdma link show | awk '{print \$2, \$4, \$NF}')\""
# B: the KV servers in the background, each reading a pipe that stays open until the VM ends (a KvServerProcess
# stops when its standard input ends; a background job's own would be /dev/null), their READY lines in SYNC for A.
KV_B="sleep 3600 | $JKV $KV.KvServerProcess --provider soft --address \$MY_IP --port 7310 > \$SYNC/kv-soft.log 2>&1 &
   sleep 3600 | $JKV $KV.KvServerProcess --provider verbs --device rxe0 --address \$MY_IP --port 7311 \
     > \$SYNC/kv-verbs.log 2>&1 &"
KV_A="$JKV $KV.KvLinkCutPair cut; kv=\$?"
if [ $KV_ONLY = 1 ]; then
  A="$INFO; $KV_A; touch \$SYNC/A-done; exit \$kv"
  B="$KV_B
   for i in \$(seq 900); do [ -e \$SYNC/A-done ] && break; sleep 1; done"
else
  A="$INFO; $KV_A; $J -Dorg.slf4j.simpleLogger.log.dev.rdmafutures.verbs.VerbsConnection=debug $MAIN cut; lc=\$?;
   [ \$kv = 0 ] && [ \$lc = 0 ]"
  B="$KV_B
   $J $MAIN serve"
fi
out=$(RXEVM_SMP=1 RXEVM_TIMEOUT=900 "$ROOT/testcontainers-rxe/vm/rdma-vm" pair "$A" "$B" 2>&1)
rc=$?
echo "$out" | grep -a -E 'VM-INFO|FAULT-ROW|BROKEN|Exception|pair exit codes|pair dir' | head -40
echo "$out" | grep -a -o 'ACK timeout [0-9]* ([0-9]* ms) x [0-9]* tries = [0-9]* ms' | sort | uniq -c | sed 's/^ */rxe0 QP retry budget (connections): /'
[ $rc = 0 ] && echo "$out" | grep -q 'pair exit codes: A=0 B=0'
