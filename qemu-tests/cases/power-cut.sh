# Power cuts: QEMU killed (SIGKILL, the guest gets no shutdown) at three points of the
# initramfs's local stage, each on a fresh copy of the disk: the root just mounted read-write
# for it, growpart's line, and the stage's end just before the pivot. Then the
# same disk boots normally and must end fully provisioned (status done, files with their
# content and modes, runcmd once), with no temporary file of ember's left behind.
busybox_disk
make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/basic" "$CASE_DIR/seed.iso"
cp --sparse=always "$DISK" "$CASE_DIR/pristine.img"

# cut_at NAME DISK PATTERN DELAY: boots DISK and kills that boot's QEMU DELAY seconds after
# PATTERN shows on its console. The cut must land before the boot's end, or it proves nothing.
cut_at() {
    local name=$1 disk=$2 pattern=$3 delay=$4 job tpid qpid console=$CASE_DIR/$1.console
    WORK=$CASE_DIR boot "$name" --disk "$disk" --cdrom "$CASE_DIR/seed.iso" \
        --append "root=/dev/vda1 ro" --timeout 60 &
    job=$!
    for _ in $(seq 1200); do
        grep -qE -- "$pattern" "$console" 2>/dev/null && break
        sleep 0.05
    done
    grep -qE -- "$pattern" "$console" || { wait "$job"; fail "$name: /$pattern/ never showed"; }
    sleep "$delay"
    # The job runs `timeout`, whose only child is this boot's QEMU.
    tpid=$(pgrep -P "$job" -x timeout) || fail "$name: no timeout process under job $job"
    qpid=$(pgrep -P "$tpid") || fail "$name: no QEMU under timeout $tpid"
    kill -KILL "$qpid"
    wait "$job" || true
    ! grep -q 'EMBER-TARGET: up' "$console" || fail "$name: the cut came after the local stage"
}

# The disk after a normal boot: everything the seed asks for, once, and nothing half-done.
check_provisioned() {
    local disk=$1 tree=$CASE_DIR/tree-$2 leftovers
    console_has 'status: done'
    console_has 'EMBER-TARGET: status exit 0'
    file_is "$disk" /etc/hostname ember-qemu
    file_has "$disk" /etc/passwd '^tester:x:[0-9]+:'
    [ "$(disk_cat "$disk" /etc/passwd | grep -c '^tester:')" = 1 ] || fail "$2: tester twice"
    file_has "$disk" /home/tester/.ssh/authorized_keys 'tester@ember-qemu$'
    mode_is "$disk" /home/tester/.ssh/authorized_keys 600
    file_is "$disk" /etc/ember-test/written "written by ember"
    mode_is "$disk" /etc/ember-test/written 640
    mode_is "$disk" /etc/ssh/ssh_host_ed25519_key 600
    file_has "$disk" /etc/ssh/ssh_host_ed25519_key.pub '^ssh-ed25519 '
    file_is "$disk" /var/log/ember-test-runcmd instance
    disk_extract "$disk" "$tree"
    leftovers=$(find "$tree" -name '*.ember-tmp*' | sed "s|^$tree||")
    [ -z "$leftovers" ] || fail "$2: temporary files left: $leftovers"
    rm -rf "$tree"
}

n=0
# The local stage takes about a second under TCG: it starts when the root is mounted,
# growpart is its first module, `ember done` is its end, before switch_root (the host keys'
# fingerprints, once a point near the end, are printed by the runner now).
for point in 'EXT4-fs \(vda1\): mounted|0' 'ember: growpart:|0' 'ember-initramfs: \[[0-9.]+\] ember done|0'; do
    n=$((n + 1))
    disk=$CASE_DIR/disk-$n.img
    cp --sparse=always "$CASE_DIR/pristine.img" "$disk"
    cut_at "cut-$n" "$disk" "${point%|*}" "${point##*|}"
    boot_case "after-$n" --disk "$disk" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
    check_provisioned "$disk" "$n"
    rm -f "$disk"
done
