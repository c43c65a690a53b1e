# User-data that is not valid YAML: the machine still boots, the meta-data's hostname is
# still set, and `cloud-init status` reports the error with the file and line.
busybox_disk
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/broken" "$CASE_DIR/seed.iso"
boot_case boot --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
disk=$DISK
console_has 'status: error'
console_has 'user-data.*line [0-9]+'
console_has 'EMBER-TARGET: status exit 1'
console_lacks 'EMBER-RUNCMD-RAN'
absent "$disk" /etc/never
file_is "$disk" /etc/hostname ember-broken
