# `ember.on-error=halt` with broken user-data: the initramfs stops the boot (powers off)
# instead of pivoting; without it the same seed boots (broken-userdata).
busybox_disk
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/broken" "$CASE_DIR/seed.iso"
rc=0
WORK=$CASE_DIR boot boot --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" \
    --append "root=/dev/vda1 ro ember.on-error=halt" || rc=$?
use_console boot
[ $rc -ne 124 ] || fail "no power-off within the time limit"
console_has 'ember asked to stop the boot'
console_lacks 'switch_root'
console_lacks 'EMBER-TARGET: up'
