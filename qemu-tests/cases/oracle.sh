# Oracle Cloud in QEMU: DMI carries OCI's chassis asset tag (-smbios type=3), no ip= and no
# ds=: ember detects Oracle, leases an address with its own DHCP client, reads the OCI
# metadata emulator (the cargo tests' own) at 169.254.169.254 with IMDS v2's
# `Authorization: Bearer Oracle`, and provisions the hostname, the default user's key, the
# base64 user-data and the primary VNIC matched by MAC with OCI's MTU.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds oracle
boot_case first --disk "$DISK" --net "$IMDS_PORT" --mac 02:00:17:05:d1:db \
    --smbios "type=3,asset=OracleCloud.com" --append "root=/dev/vda1 ro"
console_has 'status: done'
file_is "$DISK" /etc/hostname oci-vm-1
file_has "$DISK" /home/debian/.ssh/authorized_keys 'oci-key'
mode_is "$DISK" /etc/oci-secret 600
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" 'MACAddress=02:00:17:05:d1:db'
file_has "$DISK" "/etc/systemd/network/$net" 'MTUBytes=9000'
file_has "$DISK" /var/log/ember-status.json '"datasource": "oracle"'
grep -q '^GET /opc/v2/instance/$' "$CASE_DIR/imds.requests" || fail "no v2 instance request"
console_lacks 'degraded'
