# A 256 MiB root image on a 2 GiB virtual disk comes up grown: ember-initrd grows the GPT
# partition to the end of the disk (the backup header moves to the new end) and tells the
# kernel with BLKPG while the root is mounted; the booted system's resize2fs grows ext4
# online. The next boot changes nothing. sfdisk and e2fsck check the result.
make_busybox_root "$CASE_DIR/root"
add_host_tool "$CASE_DIR/root" /sbin/resize2fs
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK" 256
truncate -s 2G "$DISK"
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/basic" "$CASE_DIR/seed.iso"

boot_case first --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
console_has 'growpart: /dev/vda1 grown from 254 MiB to 204[0-9] MiB'
console_has 'resizefs: ext4 on /dev/vda1 \(/\) grown'
console_has 'status: done'
sectors=$(sfdisk --json "$DISK" | python3 -c 'import json,sys; print(json.load(sys.stdin)["partitiontable"]["partitions"][0]["size"])')
[ "$sectors" -gt $((2040 * 2048)) ] || fail "the partition has $sectors sectors"
sfdisk --verify "$DISK" >"$CASE_DIR/verify.log" 2>&1 || fail "sfdisk --verify: $(cat "$CASE_DIR/verify.log")"
blocks=$(dumpe2fs -h "$DISK?offset=$PART_OFFSET" 2>/dev/null | sed -n 's/^Block count: *//p')
bsize=$(dumpe2fs -h "$DISK?offset=$PART_OFFSET" 2>/dev/null | sed -n 's/^Block size: *//p')
[ $((blocks * bsize)) -gt $((2040 << 20)) ] || fail "ext4 is $((blocks * bsize)) bytes"
e2fsck -fn "$DISK?offset=$PART_OFFSET" >"$CASE_DIR/fsck.log" 2>&1 || fail "e2fsck: $(tail -n 3 "$CASE_DIR/fsck.log")"

boot_case second --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
console_lacks 'growpart: /dev/'
console_lacks 'resizefs: ext4'
console_has 'status: done'
