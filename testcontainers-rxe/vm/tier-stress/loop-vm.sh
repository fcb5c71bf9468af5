#!/bin/bash
# In the VM: runs tier-stress-vm.sh one start at a time (STARTS=1, SECS) until MAXSTARTS or until DEADLINE seconds
# have passed, each start in OUT/k, printing per-start wall time. Usage: loop-vm.sh SCRIPT CLASSES OUT MAXSTARTS SECS DEADLINE
S=$1; C=$2; O=$3; MAX=$4; SECS=$5; DL=$6
t0=$(date +%s.%N); n=0; crashes=0
while [ $n -lt $MAX ]; do
  el=$(echo "$(date +%s.%N) - $t0" | bc); [ "$(echo "$el > $DL" | bc)" = 1 ] && break
  n=$((n+1)); mkdir -p $O/$n; a=$(date +%s.%N)
  r=$(bash $S $C $O/$n 1 $SECS '-Xshare:auto')
  b=$(date +%s.%N)
  echo "$r" | grep -q ': 1 of 1 crashed' && { crashes=$((crashes+1)); echo "start $n CRASH: $(echo "$r" | head -2 | tr '\n' ' ')"; }
  printf 'start %d %.1f s\n' $n $(echo "$b - $a" | bc)
done
printf 'TOTAL: %d of %d crashed, %.1f s\n' $crashes $n $(echo "$(date +%s.%N) - $t0" | bc)
