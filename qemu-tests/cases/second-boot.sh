# The same instance boots again: per-instance work (users, runcmd) is not redone, per-boot
# work (bootcmd) is; status is done both times.
busybox_disk
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/basic" "$CASE_DIR/seed.iso"
disk=$DISK
boot_case first --disk "$disk" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
console_has 'status: done'
key_before=$(disk_cat "$disk" /etc/ssh/ssh_host_ed25519_key.pub)
boot_case second --disk "$disk" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
console_has 'status: done'
console_lacks 'EMBER-RUNCMD-RAN'
file_is "$disk" /var/log/ember-test-runcmd instance
file_is "$disk" /var/log/ember-test-bootcmd "$(printf 'boot\nboot')"
[ "$(disk_cat "$disk" /etc/ssh/ssh_host_ed25519_key.pub)" = "$key_before" ] ||
    fail "the host key was made again on the second boot"
[ "$(disk_cat "$disk" /etc/passwd | grep -c '^tester:')" = 1 ] || fail "tester added twice"
