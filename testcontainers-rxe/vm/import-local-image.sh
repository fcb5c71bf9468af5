#!/bin/bash
# Makes RxeContainer's local image without any registry: `docker import` of an empty Debian-style root (merged
# /usr) into which RxeContainer mounts the host's /usr read-only, so rdma-core and the JDK come from the host.
set -eu
IMAGE=rdmafutures/rxe-peer:local
if [ -n "$(docker images -q "$IMAGE")" ]; then exit 0; fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{usr,etc,tmp,proc,sys,dev,root,run}
for d in bin lib lib64 sbin; do ln -s "usr/$d" "$root/$d"; done
tar -C "$root" -c . | docker import - "$IMAGE" >/dev/null
echo "imported $IMAGE"
