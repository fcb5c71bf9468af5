#!/bin/bash
# Two VMs, two kernels, one rxe0 each on a shared link (rdma-vm pair): the kernel's rping server on host A, the
# verbs provider's RpingPeer client on host B, 4 KiB, every echo validated by rping -v. Usage: pair-rping.sh CLASSPATH
# (rxe's CM listener is no TCP socket to wait for: B waits 3 s, and its JVM takes longer than A's rping to start.)
set -u
CP=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
J="java -cp $CP --add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path=$ROOT/verbs/target/native"
J="$J -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dprovider=verbs"
out=$(RXEVM_SMP=1 "$ROOT/testcontainers-rxe/vm/rdma-vm" pair \
  'rping -s -a 192.168.100.1 -p 7174 -C 5 -v -S 4096' \
  "sleep 3; $J dev.rdmafutures.samples.RpingPeer client 192.168.100.1 7174 5 4096" 2>&1)
rc=$?
echo "$out" | grep -a -E 'iterations OK|pair exit codes|rping:|Exception' | head -10
[ $rc = 0 ] && echo "$out" | grep -q 'pair exit codes: A=0 B=0'
