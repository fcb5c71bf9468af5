#!/bin/bash
# Link cuts without a reset between two VMs (rdma-vm pair, issue 15 item 2): host B serves a readable region on soft
# and on verbs (rxe0), host A keeps 64 KiB READs outstanding to it and cuts its own side of the link silently (netem
# drops what it sends, iptables what it receives): per provider a 1 s cut under a 4 s deadline loses nothing, and a
# lasting cut ends every READ typed within a 2 s deadline (LinkCutPair in testcontainers-rxe's test classes).
# Prints the VM's kernel and device (VM-INFO), A's FAULT-ROW lines, the retry budget rxe0's queue pairs got (from ibv_query_qp, the provider's debug log)
# and any broken expectation; exit 0 when every case held. Usage: pair-faults.sh CLASSPATH (testcontainers-rxe's test
# class path: target/test-classes, target/classes and its dependencies).
set -u
CP=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
J="java -cp $CP --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Djava.library.path=$ROOT/framework/target/native"
J="$J -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.out"   # one stream: whole lines
MAIN=dev.rdmafutures.testcontainers.LinkCutPair
out=$(RXEVM_SMP=1 RXEVM_TIMEOUT=900 "$ROOT/testcontainers-rxe/vm/rdma-vm" pair \
  "echo \"VM-INFO kernel \$(uname -r), \$(nproc) vCPU, \$(rdma link show | awk '{print \$2, \$4, \$NF}')\";
   $J -Dorg.slf4j.simpleLogger.log.dev.rdmafutures.verbs.VerbsConnection=debug $MAIN cut" \
  "$J $MAIN serve" 2>&1)
rc=$?
echo "$out" | grep -a -E 'VM-INFO|FAULT-ROW|BROKEN|Exception|pair exit codes|pair dir' | head -40
echo "$out" | grep -a -o 'ACK timeout [0-9]* ([0-9]* ms) x [0-9]* tries = [0-9]* ms' | sort | uniq -c | sed 's/^ */rxe0 QP retry budget (connections): /'
[ $rc = 0 ] && echo "$out" | grep -q 'pair exit codes: A=0 B=0'
