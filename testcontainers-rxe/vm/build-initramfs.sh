#!/bin/bash
# Builds the VM boot artefacts under $RXEVM_HOME/build:
#   vmlinuz  (Debian bzImage), vmlinux (uncompressed ELF, booted via PVH: skips the slow
#   XZ decompression under TCG), initramfs.cpio.gz (static busybox + modules).
set -euo pipefail
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
TOP=${RXEVM_HOME:?RXEVM_HOME must be set (rdma-vm sets it)}
KROOT=$TOP/kernel/root
KVER=$(ls $KROOT/lib/modules | head -1)
B=$TOP/build/initramfs
[ -f $KROOT/lib/modules/$KVER/modules.dep ] || depmod -b "$KROOT" "$KVER"
rm -rf "$B"; mkdir -p "$B"/{bin,proc,sys,dev,modules,mnt,newroot}
cp /bin/busybox "$B/bin/busybox"
cp "$HERE/guest/init" "$B/init"; chmod +x "$B/init"
: > "$B/modules/order"
MODS="virtio_pci virtio_mmio virtio_blk virtio_net virtio_rng 9pnet_virtio 9p overlay veth dummy
      rdma_rxe ib_uverbs rdma_ucm ib_umad"
[ -f "$KROOT/lib/modules/$KVER/extra/siw.ko" ] && MODS="$MODS siw"
for m in $MODS; do
  modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | awk '$1=="insmod"{print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
  cp "$ko" "$B/modules/"; basename "$ko" >> "$B/modules/order"
done
echo "modules in initramfs (load order):"; tr '\n' ' ' < "$B/modules/order"; echo
(cd "$B" && find . | cpio -o -H newc --quiet | gzip -1) > $TOP/build/initramfs.cpio.gz
cp "$KROOT/boot/vmlinuz-$KVER" $TOP/build/vmlinuz
python3 - "$TOP/build/vmlinuz" "$TOP/build/vmlinux" <<'PY'
import lzma, sys
d = open(sys.argv[1], 'rb').read()
pos = d.find(b'\xfd7zXZ\x00')
assert pos > 0, "no XZ payload in bzImage"
out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(d[pos:])
assert out[:4] == b'\x7fELF'
open(sys.argv[2], 'wb').write(out)
PY
echo "$KVER" > $TOP/build/KVER
ls -la $TOP/build/initramfs.cpio.gz $TOP/build/vmlinuz $TOP/build/vmlinux
