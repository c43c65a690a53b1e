# RbxCloud in QEMU: a VFAT volume labelled CLOUDMD on a second virtio disk holding cloud.json
# and user.data, no DMI sign, no ds=: ember reads them in-process and provisions the
# platform's user as the default user (its SHA-512 hash, key, sudo), the hostname, the
# user-data and the network config of the adapter matched by the QEMU NIC's MAC.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
MAC=00:15:5d:ff:0f:03
KEY='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRbxQemuKeyForTestsOnly rbx-qemu-key'
HASH='$6$rbxqemu$bm90LWEtcmVhbC1oYXNoLWp1c3QtZm9yLXRlc3Rz'
md=$CASE_DIR/cloudmd
mkdir -p "$md"
cat >"$md/cloud.json" <<JSON
{"vm": {"_id": "rbx-qemu-5bea", "name": "rbx-qemu"},
 "additionalMetadata": {"username": "guru", "sshKeys": ["$KEY"], "password": {"sha512": "$HASH"}},
 "netadp": [{"macaddress": "${MAC^^}", "ip": [{"address": "10.0.2.15"}],
   "network": {"netmask": "255.255.255.0", "gateway": "10.0.2.2",
     "dns": {"nameservers": ["10.0.2.3"]}}}]}
JSON
printf '#cloud-config\nruncmd:\n  - echo EMBER-RBX-USERDATA-RAN\n' >"$md/user.data"
rm -f "$CASE_DIR/cloudmd.img"
mkfs.vfat -C -n CLOUDMD "$CASE_DIR/cloudmd.img" 2048 >/dev/null || fail "mkfs.vfat failed"
mcopy -oi "$CASE_DIR/cloudmd.img" "$md"/* :: || fail "mcopy failed"
boot_case first --disk "$DISK" --disk-ro "$CASE_DIR/cloudmd.img" --mac "$MAC" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
console_has 'EMBER-RBX-USERDATA-RAN'
console_lacks 'degraded'
file_is "$DISK" /etc/hostname rbx-qemu
file_has "$DISK" /home/guru/.ssh/authorized_keys 'rbx-qemu-key$'
file_has "$DISK" /etc/shadow "^guru:\\\$6\\\$rbxqemu\\\$"
file_has "$DISK" /var/lib/ember/data/instance-id 'rbx-qemu-5bea'
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" "MACAddress=$MAC"
file_has "$DISK" "/etc/systemd/network/$net" 'Address=10.0.2.15/24'
file_has "$DISK" "/etc/systemd/network/$net" 'Gateway=10.0.2.2'
status=$(disk_cat "$DISK" /var/log/ember-status.json)
grep -q '"datasource": "rbxcloud"' <<<"$status" || fail "status.json: datasource is not rbxcloud"
grep -qF 'DataSourceRbxCloud [seed=/dev/vdb]' <<<"$status" || fail "status.json: not the expected seed"
