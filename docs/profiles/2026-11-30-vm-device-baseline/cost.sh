#!/bin/bash
# In the RDMA VM: what the device itself costs beside TCP over the same eth0 address in the same boot, event-driven
# (both sides sleep until their completion or socket wakes them, as blocking event loops do):
#   round trip: ib_send_lat -e, 1 KiB, 20,000 iterations, against sockperf ping-pong, 1 KiB, blocking, 6 s;
#   throughput: ib_send_bw -e, 16 KiB, 16 in flight, 20,000 messages, against iperf3, one stream, 16 KiB writes, 6 s.
# Machine CPU ticks (/proc/stat) are read at each run's ends, so a row's CPU per operation includes the device's
# kernel work on both sides. Each perftest also runs with 2,000 operations: the CPU per operation is the difference
# of the two runs over 18,000, so the tools' start-up and connection set-up cancel out. Logs into OUT; cpu.txt holds "name busy-before total-before busy-after total-after".
set -u
DEV=$1; OUT=$2
ADDR=$(ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)
CM=(); case "$DEV" in siw*) CM=(-R);; esac
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
perftest() { # name, then the tool and its arguments
  local name=$1; shift
  local port=$((18515 + RANDOM % 1000))
  timeout -k 5 300 "$@" -p $port > "$OUT/$name.server.log" 2>&1 &
  local srv=$!
  for i in $(seq 1 100); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
  sleep 0.5
  local before; before=$(busy)
  timeout -k 5 300 "$@" -p $port "$ADDR" > "$OUT/$name.log" 2>&1 || echo "$name failed"
  local after; after=$(busy)
  wait $srv
  echo "$name $before $after" >> "$OUT/cpu.txt"
}
for round in 1 2; do
  perftest "send-lat-short-$DEV-r$round" ib_send_lat -d "$DEV" "${CM[@]}" -F -s 1024 -n 2000 -e
  perftest "send-bw-short-$DEV-r$round" ib_send_bw -d "$DEV" "${CM[@]}" -F -s 16384 -t 16 -n 2000 -e
  perftest "send-lat-$DEV-r$round" ib_send_lat -d "$DEV" "${CM[@]}" -F -s 1024 -n 20000 -e
  sockperf sr --tcp -i "$ADDR" -p 11211 --timeout 0 > "$OUT/sockperf-$DEV-r$round.server.log" 2>&1 &
  srv=$!
  sleep 1
  before=$(busy)
  timeout -k 5 60 sockperf pp --tcp -i "$ADDR" -p 11211 -m 1024 -t 6 > "$OUT/sockperf-$DEV-r$round.log" 2>&1 || echo "sockperf failed"
  after=$(busy)
  echo "sockperf-$DEV-r$round $before $after" >> "$OUT/cpu.txt"
  kill $srv; wait $srv 2>/dev/null
  perftest "send-bw-$DEV-r$round" ib_send_bw -d "$DEV" "${CM[@]}" -F -s 16384 -t 16 -n 20000 -e
  iperf3 -s -1 -p 15201 > /dev/null 2>&1 &
  sleep 0.5
  before=$(busy)
  timeout -k 5 60 iperf3 -c "$ADDR" -p 15201 -l 16384 -t 6 -J > "$OUT/iperf3-$DEV-r$round.json" 2>&1 || echo "iperf3 failed"
  after=$(busy)
  wait
  echo "iperf3-$DEV-r$round $before $after" >> "$OUT/cpu.txt"
done
