#!/bin/bash
# Inside the VM: starts dockerd (vfs storage, no iptables rules; data on the VM's tmpfs) unless it
# runs, and imports the local RxeContainer image unless present. Idempotent.
set -u
if ! docker version >/dev/null 2>&1; then
  mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
  mkdir -p /tmp/docker-data /run/docker-exec
  dockerd --data-root /tmp/docker-data --exec-root /run/docker-exec --storage-driver vfs \
    --iptables=false --ip6tables=false > /tmp/dockerd.log 2>&1 &
  for _ in $(seq 1 120); do docker version >/dev/null 2>&1 && break; sleep 0.5; done
  docker version >/dev/null 2>&1 || { echo "dockerd did not start:"; tail -20 /tmp/dockerd.log; exit 1; }
  echo "dockerd started"
fi
"$(dirname "$0")/import-local-image.sh"
