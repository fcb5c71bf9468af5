#!/bin/bash
# rdma-vm stage 2: PID 1 inside the VM, running from the host root (read-only 9p + tmpfs overlay).
# Creates rxe0, runs the requested command, records output/exit code in the run dir, reboots
# (qemu runs with -no-reboot, so the reboot ends qemu).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
RUN=""; NET=eth; MODE=run; DEV=rxe
for p in $(</proc/cmdline); do
  case "$p" in
    rxevm.run=*) RUN="${p#rxevm.run=}";;
    rxevm.net=*) NET="${p#rxevm.net=}";;
    rxevm.mode=*) MODE="${p#rxevm.mode=}";;
    rxevm.dev=*) DEV="${p#rxevm.dev=}";;
  esac
done
CON=/dev/ttyS0
up() { local u; read -r u _ </proc/uptime; echo "$u"; }
log() { echo "rxevm[$(up)]: $*" > $CON; [ -n "$RUN" ] && echo "$(up) $*" >> "$RUN/guest.log"; }
halt_vm() { sync; echo b > /proc/sysrq-trigger; sleep 10; }
trap halt_vm EXIT
log "stage2 start (kernel $(</proc/sys/kernel/osrelease), net=$NET)"

IFACE=""
case "$NET" in
  eth)   IFACE=eth0 ;;
  dummy) ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy   # module auto-creates dummy0
         ip link set dummy0 up; ip addr add 10.9.0.1/24 dev dummy0; IFACE=dummy0 ;;
  lo)    IFACE=lo ;;
  none)  IFACE="" ;;
esac
# wait_active NAME: wait (up to 5 s) until port 1 of the RDMA device NAME is ACTIVE
wait_active() {
  local st="" i zz
  exec {zz}<> <(:)     # fd that never delivers data: 'read -t' = sleep without fork/exec
  for i in $(seq 1 100); do
    [ -r /sys/class/infiniband/$1/ports/1/state ] && read -r _ st < /sys/class/infiniband/$1/ports/1/state
    [ "$st" = ACTIVE ] && break; read -t 0.05 -u $zz _
  done
  exec {zz}>&-
  log "$1 on $IFACE port state: ${st:-missing}"
}
if [ -n "$IFACE" ]; then
  if [ "$DEV" = rxe ] || [ "$DEV" = both ]; then
    rdma link add rxe0 type rxe netdev "$IFACE" || log "rdma link add rxe0 netdev $IFACE FAILED"
    wait_active rxe0
  fi
  if [ "$DEV" = siw ] || [ "$DEV" = both ]; then
    rdma link add siw0 type siw netdev "$IFACE" || log "rdma link add siw0 netdev $IFACE FAILED"
    wait_active siw0
  fi
fi
ulimit -l unlimited; ulimit -n 65536

if [ "$MODE" = run ] && [ -n "$RUN" ] && [ -f "$RUN/cmd.sh" ]; then
  CWD=/; [ -f "$RUN/cwd" ] && CWD=$(<"$RUN/cwd")
  cd "$CWD" 2>/dev/null || cd /
  up > "$RUN/ready"
  log "ready; running command in $PWD"
  setsid bash "$RUN/cmd.sh" >> "$RUN/out.log" 2>&1 < /dev/null
  echo $? > "$RUN/rc"
  up > "$RUN/done"
  log "command finished rc=$(<"$RUN/rc")"
else
  [ -n "$RUN" ] && up > "$RUN/ready"
  log "interactive shell on ttyS0 (exit or Ctrl-D powers off; Ctrl-a x kills qemu)"
  cd /root 2>/dev/null
  setsid -c bash -i < $CON > $CON 2>&1
fi
