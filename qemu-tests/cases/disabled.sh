# cloud-init=disabled and ember=disabled, with a seed attached: the initramfs never starts
# ember-initrd (it only reads the command line), nothing is written to the target, and
# `cloud-init status --wait` answers disabled at once.
make_busybox_root "$CASE_DIR/root"
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/basic" "$CASE_DIR/seed.iso"
for word in cloud-init=disabled ember=disabled; do
    make_disk "$CASE_DIR/root" "$CASE_DIR/$word.img"
    disk_extract "$CASE_DIR/$word.img" "$CASE_DIR/before"
    boot_case "$word" --disk "$CASE_DIR/$word.img" --cdrom "$CASE_DIR/seed.iso" \
        --append "root=/dev/vda1 ro $word"
    console_has "ember-initramfs: .*$word: ember does not run"
    console_lacks 'ember-initramfs: .*ember start'
    console_has 'status: disabled'
    console_has 'boot_status_code: disabled-by-kernel-cmdline'
    console_has 'EMBER-TARGET: status exit 0'
    disk_extract "$CASE_DIR/$word.img" "$CASE_DIR/after"
    diff -r "$CASE_DIR/before" "$CASE_DIR/after" >"$CASE_DIR/$word.diff" ||
        fail "$word: the target changed: $(head -c 300 "$CASE_DIR/$word.diff")"
    # The time from the kernel's start to the pivot, for the log (benchmarks compare it).
    grep -o 'ember-initramfs: \[[0-9.]*\] switch_root' "$CONSOLE"
done
