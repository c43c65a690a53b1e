# A second disk partitioned (GPT: data and swap), formatted with the target's mkfs.ext4 (run
# in a chroot of the mounted root) and mkswap, and put in fstab; the booted system mounts it
# and swaps on. A third disk that already holds a filesystem is left alone (overwrite is
# false) and the status says so. The next boot changes nothing.
make_busybox_root "$CASE_DIR/root"
add_host_tool "$CASE_DIR/root" /sbin/mke2fs
ln -s mke2fs "$CASE_DIR/root/sbin/mkfs.ext4"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
truncate -s 256M "$CASE_DIR/data.img"
truncate -s 64M "$CASE_DIR/kept.img"
mkfs.ext4 -q -L kept "$CASE_DIR/kept.img"
kept_uuid=$(blkid -p -o value -s UUID "$CASE_DIR/kept.img")
mkdir -p "$CASE_DIR/seed"
cp "$EMBER_REPO/tests/fixtures/seeds/basic/meta-data" "$CASE_DIR/seed/"
cat >"$CASE_DIR/seed/user-data" <<'UD'
#cloud-config
device_aliases: {data: /dev/vdb}
disk_setup:
  data: {table_type: gpt, layout: [75, [25, 82]], overwrite: false}
  /dev/vdc: {table_type: mbr, layout: true, overwrite: false}
fs_setup:
  - {label: data, filesystem: ext4, device: data.1}
  - {label: swp, filesystem: swap, device: data.2}
mounts:
  - [data.1, /data]
  - [data.2, none, swap, sw, "0", "0"]
UD
make_iso_seed "$CASE_DIR/seed" "$CASE_DIR/seed.iso"

boots() {
    boot_case "$1" --disk "$DISK" --disk "$CASE_DIR/data.img" --disk "$CASE_DIR/kept.img" \
        --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
}
boots first
console_has 'disk_setup: /dev/vdb: 2 partition\(s\) written'
console_has 'fs_setup: ext4 made on /dev/vdb1'
console_has 'EMBER-TARGET: mounts \[/dev/vdb1 /data ext4 \]'
console_has 'EMBER-TARGET: swaps \[/dev/vdb2 \]'
console_has 'status: degraded'
file_has "$DISK" /var/log/ember-status.json 'disk_setup./dev/vdc'
sfdisk --json "$CASE_DIR/data.img" | grep -q '0657FD6D-A4AB-43C4-84E5-0933C84B4F4F' || fail "no swap partition"
[ "$(blkid -p -o value -s UUID "$CASE_DIR/kept.img")" = "$kept_uuid" ] || fail "the kept disk was changed"
file_has "$DISK" /etc/fstab '^/dev/vdb1	/data	auto	defaults,nofail,comment=cloudconfig	0	2$'
data_uuid=$(blkid -p -o value -s UUID --offset $((1 << 20)) "$CASE_DIR/data.img" 2>/dev/null)

boots second
console_lacks 'disk_setup: /dev/vdb'
console_lacks 'fs_setup:'
console_has 'EMBER-TARGET: mounts \[/dev/vdb1 /data ext4 \]'
[ "$(blkid -p -o value -s UUID --offset $((1 << 20)) "$CASE_DIR/data.img" 2>/dev/null)" = "$data_uuid" ] ||
    fail "the data filesystem was made again"
