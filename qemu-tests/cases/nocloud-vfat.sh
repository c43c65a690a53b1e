# NoCloud from a VFAT `CIDATA` seed on a second virtio disk.
busybox_disk
make_vfat_seed "$EMBER_REPO/tests/fixtures/seeds/basic" "$CASE_DIR/seed.img"
boot_case boot --disk "$DISK" --disk-ro "$CASE_DIR/seed.img" --append "root=/dev/vda1 ro"
disk=$DISK
console_has 'status: done'
console_has 'DataSourceNoCloud \[seed=/dev/vdb\]'
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /home/tester/.ssh/authorized_keys 'tester@ember-qemu$'
file_is "$disk" /var/log/ember-test-runcmd instance
