# GCE in QEMU: DMI says Google Compute Engine (-smbios, two fields agreeing), no ip= and no ds=:
# ember detects GCE, leases an address with its own DHCP client, reads the metadata emulator
# (the cargo tests' own) at 169.254.169.254 in one request with Metadata-Flavor: Google, and
# provisions the short hostname, the default user's keys (not another user's, not an expired
# one) and the base64 user-data. No network config comes from GCE: the fallback is rendered.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
# The busybox target has no HTTP client that can PUT (busybox wget cannot), so publishing the
# host keys would be a warning; tests/runner/access.rs publishes them with a real curl.
echo 'ssh_publish_hostkeys: {enabled: false}' >>"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds gce
boot_case first --disk "$DISK" --net "$IMDS_PORT" --mac 42:01:0a:80:00:02 \
    --smbios "type=1,manufacturer=Google,product=Google Compute Engine" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
file_is "$DISK" /etc/hostname gce-vm-1
file_has "$DISK" /home/debian/.ssh/authorized_keys 'debian-key'
file_has "$DISK" /home/debian/.ssh/authorized_keys 'cloudinit-key'
keys=$(disk_cat "$DISK" /home/debian/.ssh/authorized_keys)
case $keys in *bob-key* | *admin-key* | *GceExpiredKey*) fail "a key not for debian: $keys" ;; esac
mode_is "$DISK" /etc/gce-secret 600
file_has "$DISK" /var/log/ember-status.json '"datasource": "gce"'
console_lacks 'degraded'
