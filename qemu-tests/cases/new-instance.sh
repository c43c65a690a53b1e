# The disk boots again with another instance id: it is provisioned again (runcmd runs, the
# new hostname and new host keys), as cloud-init does for a new instance.
busybox_disk
make_iso_seed "$EMBER_REPO/qemu-tests/seeds/basic" "$CASE_DIR/first.iso"
make_iso_seed "$EMBER_REPO/qemu-tests/seeds/second" "$CASE_DIR/second.iso"
disk=$DISK
boot_case first --disk "$disk" --cdrom "$CASE_DIR/first.iso" --append "root=/dev/vda1 ro"
key_before=$(disk_cat "$disk" /etc/ssh/ssh_host_ed25519_key.pub)
boot_case second --disk "$disk" --cdrom "$CASE_DIR/second.iso" --append "root=/dev/vda1 ro"
console_has 'status: done'
console_has 'EMBER-RUNCMD-RAN'
file_is "$disk" /etc/hostname ember-second
file_is "$disk" /var/log/ember-test-runcmd "$(printf 'instance\ninstance')"
file_has "$disk" /var/lib/cloud/data/instance-id '^iid-qemu-second$'
[ "$(disk_cat "$disk" /etc/ssh/ssh_host_ed25519_key.pub)" != "$key_before" ] ||
    fail "the new instance kept the previous instance's host key"
