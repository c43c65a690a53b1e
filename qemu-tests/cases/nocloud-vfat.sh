# NoCloud from a VFAT `CIDATA` seed on a second virtio disk.
make_busybox_root "$CASE_DIR/root"
make_disk "$CASE_DIR/root" "$CASE_DIR/disk.img"
make_vfat_seed "$EMBER_REPO/qemu-tests/seeds/basic" "$CASE_DIR/seed.img"
boot_case boot --disk "$CASE_DIR/disk.img" --disk-ro "$CASE_DIR/seed.img" --append "root=/dev/vda1 ro"
disk=$CASE_DIR/disk.img
console_has 'status: done'
console_has 'DataSourceNoCloud \[seed=/dev/vdb\]'
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /home/tester/.ssh/authorized_keys 'tester@ember-qemu$'
file_is "$disk" /var/log/ember-test-runcmd instance
