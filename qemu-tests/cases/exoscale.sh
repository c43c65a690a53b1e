# Exoscale in QEMU: DMI says Exoscale (-smbios), no ip= and no ds=: ember detects Exoscale,
# leases an address with its own DHCP client, reads user-data and the meta-data tree under
# API version 1.0 from the emulator (the cargo tests' own) at 169.254.169.254, then the
# password server at 169.254.169.254:8080, and provisions the hostname, the default user's
# key, the user-data and the password (its hash in /etc/shadow).
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds exoscale
PW_PORT=$(sed -n 2p "$CASE_DIR/imds.port")
[ -n "$PW_PORT" ] || fail "the emulator gave no password server port"
boot_case first --disk "$DISK" --net "$IMDS_PORT" --fwd "169.254.169.254:8080:$PW_PORT" \
    --mac 0a:3f:1e:00:00:01 --smbios "type=1,manufacturer=Exoscale,product=Exoscale Compute Platform" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
file_is "$DISK" /etc/hostname cs-vm-1
file_has "$DISK" /home/debian/.ssh/authorized_keys 'cs-key'
mode_is "$DISK" /etc/cs-secret 600
file_has "$DISK" /etc/shadow '^debian:\$6\$'
file_has "$DISK" /var/log/ember-status.json '"datasource": "exoscale"'
grep -q '^GET /1.0/meta-data/instance-id$' "$CASE_DIR/imds.requests" || fail "no instance-id read"
console_lacks 'degraded'
