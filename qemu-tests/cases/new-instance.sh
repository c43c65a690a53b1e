# The disk boots again with another instance id on a machine whose NIC has another MAC: it is
# provisioned again (runcmd runs, the new hostname and new host keys), as cloud-init does for a
# new instance, and the previous instance's network config is removed: the seed's config for
# the first MAC gives way to the fallback (DHCP) matched by the new NIC's MAC.
busybox_disk
mkdir -p "$CASE_DIR/first-seed"
cp "$EMBER_REPO"/tests/fixtures/seeds/basic/* "$CASE_DIR/first-seed/"
cat >"$CASE_DIR/first-seed/network-config" <<'NET'
version: 2
ethernets:
  lan:
    match: {macaddress: "52:54:00:00:00:01"}
    addresses: [192.0.2.10/24]
NET
make_iso_seed "$CASE_DIR/first-seed" "$CASE_DIR/first.iso"
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/second" "$CASE_DIR/second.iso"
disk=$DISK
lan=/etc/systemd/network/10-cloud-init-lan.network
boot_case first --disk "$disk" --cdrom "$CASE_DIR/first.iso" --mac 52:54:00:00:00:01 \
    --append "root=/dev/vda1 ro"
key_before=$(disk_cat "$disk" /etc/ssh/ssh_host_ed25519_key.pub)
file_has "$disk" "$lan" '^MACAddress=52:54:00:00:00:01$'
file_has "$disk" "$lan" '^Address=192.0.2.10/24$'
boot_case second --disk "$disk" --cdrom "$CASE_DIR/second.iso" --mac 52:54:00:00:00:02 \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
console_has 'EMBER-RUNCMD-RAN'
file_is "$disk" /etc/hostname ember-second
file_is "$disk" /var/log/ember-test-runcmd "$(printf 'instance\ninstance')"
file_has "$disk" /var/lib/cloud/data/instance-id '^iid-qemu-second$'
[ "$(disk_cat "$disk" /etc/ssh/ssh_host_ed25519_key.pub)" != "$key_before" ] ||
    fail "the new instance kept the previous instance's host key"
absent "$disk" "$lan"
file_has "$disk" /etc/systemd/network/10-cloud-init-eth0.network '^MACAddress=52:54:00:00:00:02$'
file_has "$disk" /etc/systemd/network/10-cloud-init-eth0.network '^DHCP=ipv4$'
