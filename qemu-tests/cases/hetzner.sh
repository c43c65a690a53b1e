# Hetzner in QEMU: DMI says Hetzner with the server id as serial (-smbios), no ip= and no ds=:
# ember detects Hetzner, leases an address with its own DHCP client, reads the metadata
# emulator (the cargo tests' own) at 169.254.169.254 in three requests (metadata,
# private-networks, userdata), checks the serial against the server id, and provisions the
# hostname, the default user's key and the user-data. The emulator's private network is on a
# NIC this VM lacks: a warning names it, and the public NIC's config stays.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds hetzner
boot_case first --disk "$DISK" --net "$IMDS_PORT" --mac 96:00:00:08:19:da \
    --smbios "type=1,manufacturer=Hetzner,product=vServer,serial=42881234" \
    --append "root=/dev/vda1 ro"
console_has 'status: (done|degraded)'
file_is "$DISK" /etc/hostname cx22-test
file_has "$DISK" /home/debian/.ssh/authorized_keys 'hetzner-key'
mode_is "$DISK" /etc/hetzner-secret 600
file_has "$DISK" /var/log/ember-status.json '"datasource": "hetzner"'
file_has "$DISK" /var/log/ember-status.json 'nic-missing'
requests=$(cat "$CASE_DIR/imds.requests")
[ "$(printf '%s\n' "$requests" | wc -l)" -eq 3 ] || fail "expected 3 requests: $requests"
