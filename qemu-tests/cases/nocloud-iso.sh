# NoCloud from an ISO9660 `cidata` seed on the CD drive: provisioned in the initramfs (users,
# keys, files, hostname), the runner's stages run after the pivot, status says done.
busybox_disk
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/basic" "$CASE_DIR/seed.iso"
boot_case boot --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
disk=$DISK
console_has 'ember-initramfs: .* ember done'
console_has 'EMBER-RUNCMD-RAN'
console_has 'status: done'
console_has 'EMBER-TARGET: status exit 0'
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /etc/passwd '^tester:x:[0-9]+:'
file_has "$disk" /home/tester/.ssh/authorized_keys 'tester@ember-qemu$'
mode_is "$disk" /home/tester/.ssh/authorized_keys 600
file_is "$disk" /etc/ember-test/written "written by ember"
mode_is "$disk" /etc/ember-test/written 640
disk_exists "$disk" /etc/ssh/ssh_host_ed25519_key || fail "no ed25519 host key"
mode_is "$disk" /etc/ssh/ssh_host_ed25519_key 600
file_is "$disk" /var/log/ember-test-runcmd instance
file_is "$disk" /var/log/ember-test-bootcmd boot
