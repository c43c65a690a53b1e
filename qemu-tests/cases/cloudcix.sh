# CloudCIX in QEMU: DMI product_name CloudCIX (-smbios), no ip= and no ds=: ember takes its own
# DHCP lease, reads /v1/metadata and /v1/userdata from the metadata emulator (the cargo tests'
# own) at 169.254.169.254 in two requests, and provisions the hostname, the default user's
# key, the base64 user-data and the network config the metadata carries, by MAC.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
MAC=52:54:00:c1:c1:01
serve_imds cloudcix
boot_case first --disk "$DISK" --net "$IMDS_PORT" --mac "$MAC" \
    --smbios "type=1,manufacturer=CIX,product=CloudCIX" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
console_lacks 'degraded'
file_is "$DISK" /etc/hostname cix-vm
file_has "$DISK" /home/debian/.ssh/authorized_keys 'cix-key$'
file_has "$DISK" /etc/cix-secret 'cix-user-data-secret-91a'
mode_is "$DISK" /etc/cix-secret 600
file_has "$DISK" /var/lib/ember/data/instance-id 'cix-1234_5678'
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" "MACAddress=$MAC"
file_has "$DISK" "/etc/systemd/network/$net" 'Address=10.254.3.5/24'
status=$(disk_cat "$DISK" /var/log/ember-status.json)
grep -q '"datasource": "cloudcix"' <<<"$status" || fail "status.json: datasource is not cloudcix"
requests=$(cat "$CASE_DIR/imds.requests")
[ "$(grep -c . <<<"$requests")" = 2 ] || fail "expected two requests, got: $requests"
grep -q '^GET /v1/metadata$' <<<"$requests" || fail "no GET /v1/metadata: $requests"
grep -q '^GET /v1/userdata$' <<<"$requests" || fail "no GET /v1/userdata: $requests"
