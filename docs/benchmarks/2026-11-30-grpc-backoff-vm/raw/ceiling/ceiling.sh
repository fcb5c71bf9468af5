#!/bin/bash
# In the RDMA VM: the device's SEND throughput (ib_send_bw, 16 in flight, 4 s) at 1 KiB and 16 KiB beside TCP's
# (iperf3, one stream, the same write sizes, 4 s) over eth0 in the same boot; logs into OUT.
set -u
DEV=$1; OUT=$2
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
CM=(); case "$DEV" in siw*) CM=(-R);; esac
for s in 1024 16384; do
  port=$((18515 + RANDOM % 1000))
  timeout -k 5 60 ib_send_bw -d "$DEV" "${CM[@]}" -p $port -F -s $s -t 16 -D 4 > "$OUT/send-bw-$DEV-$s.server.log" 2>&1 &
  srv=$!
  for i in $(seq 1 100); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
  sleep 0.5
  timeout -k 5 60 ib_send_bw -d "$DEV" "${CM[@]}" -p $port -F -s $s -t 16 -D 4 "$ADDR" > "$OUT/send-bw-$DEV-$s.log" 2>&1 || echo "ib_send_bw $s failed"
  wait $srv
  iperf3 -s -1 -p 15201 > /dev/null 2>&1 &
  sleep 0.5
  timeout -k 5 60 iperf3 -c "$ADDR" -p 15201 -l $s -t 4 -J > "$OUT/iperf3-$DEV-$s.json" 2>&1 || echo "iperf3 $s failed"
  wait
done
