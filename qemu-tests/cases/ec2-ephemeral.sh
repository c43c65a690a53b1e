# EC2's instance-store disk in QEMU: IMDS's block-device-mapping says `ephemeral0: sdb`, the
# disk is the second virtio disk (/dev/vdb, ext4): ember maps the name as cloud-init's
# device_name_to_device does (sdb -> vdb) and the mounts defaults put it on /mnt in fstab.
make_busybox_root "$CASE_DIR/root"
# As distributions' cloud.cfg say: the default user, who gets the instance's keys.
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
EPHEMERAL=$CASE_DIR/ephemeral.img
truncate -s 16M "$EPHEMERAL"
mkfs.ext4 -q -F "$EPHEMERAL" || fail "mkfs.ext4 failed"
serve_imds ec2-ephemeral
boot_case first --disk "$DISK" --disk "$EPHEMERAL" --net "$IMDS_PORT" \
    --mac 0e:49:61:0f:c3:11 \
    --smbios "type=1,manufacturer=Amazon EC2,product=m5d.large" --append "root=/dev/vda1 ro"
console_has 'status: done'
file_has "$DISK" /etc/fstab '/dev/vdb	/mnt	auto	defaults,nofail,comment=cloudconfig'
grep -q 'block-device-mapping/ephemeral0' "$CASE_DIR/imds.requests" ||
    fail "block-device-mapping/ephemeral0 was not asked"
grep -q 'block-device-mapping/ami' "$CASE_DIR/imds.requests" &&
    fail "block-device-mapping/ami was asked: no module uses it"
console_lacks 'degraded'
