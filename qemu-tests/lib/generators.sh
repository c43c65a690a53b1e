# shellcheck shell=bash
# Real initramfs generators with ember's integration installed: dracut (059, from dracut-core)
# and initramfs-tools (mkinitramfs, from initramfs-tools-core), run inside a copy of the cached
# Debian root (lib/debian.sh) so the test machine's own boot and packages stay untouched.
# Loaded after common.sh and debian.sh; needs root (chroot, bind mounts).

# The VM's disk, CD and NIC drivers and the root's file system.
GENERATOR_DRIVERS="virtio_pci virtio_blk virtio_scsi virtio_net ata_piix sr_mod ahci crc32c_generic ext4"

# generator_initrd KIND OUT: builds an initramfs for the cached kernel with KIND one of
# dracut-systemd (dracut's systemd initrd: ember's units), dracut-shell (dracut's own shell
# init: ember's hooks) or initramfs-tools. The build log is OUT.log.
generator_initrd() {
    local kind=$1 out=$2 overlay chroot rc=0
    ensure_kernel
    ensure_bins
    ensure_debian_root || return 1
    # An overlay on the cached root: the build's writes land in a throwaway upper layer.
    overlay=$(mktemp -d "${TMPDIR:-/tmp}/ember-gen.XXXXXX")
    chroot=$overlay/merged
    mkdir -p "$overlay"/{upper,work,merged}
    mount -t overlay overlay -o "lowerdir=$DEBIAN_ROOT,upperdir=$overlay/upper,workdir=$overlay/work" \
        "$chroot" || return 1
    "$EMBER_REPO/initramfs/install-into-root" "$chroot" "$EMBER_INITRD" >/dev/null || return 1
    # The image config the hooks copy into the initramfs: the world-readable file goes in,
    # the one kept from others (a stand-in for MAAS's tokens) stays out (generator_case checks).
    mkdir -p "$chroot/etc/cloud/cloud.cfg.d"
    echo 'datasource_list: [NoCloud, None]' >"$chroot/etc/cloud/cloud.cfg.d/90-ember-test.cfg"
    chmod 0644 "$chroot/etc/cloud/cloud.cfg.d/90-ember-test.cfg"
    (umask 077 && echo 'datasource: {MAAS: {token_secret: x}}' >"$chroot/etc/cloud/cloud.cfg.d/91-ember-secret.cfg")
    mkdir -p "$chroot/lib/modules/$KVER"
    mount --bind "$MODDIR" "$chroot/lib/modules/$KVER"
    mount -t proc proc "$chroot/proc"
    mount --bind /dev "$chroot/dev"
    case "$kind" in
        dracut-systemd | dracut-shell)
            local omit=""
            [ "$kind" = dracut-shell ] && omit="systemd systemd-initrd dracut-systemd"
            # --no-hostonly: the chroot is not the machine the image boots on; --drivers
            # (exclusive) keeps the image to the VM's drivers, as an image builder would.
            chroot "$chroot" dracut --force --no-hostonly --no-hostonly-cmdline \
                --drivers "$GENERATOR_DRIVERS" ${omit:+--omit "$omit"} --kver "$KVER" /tmp/initrd.img ||
                rc=$?
            ;;
        initramfs-tools)
            # mkinitramfs reads the kernel's config to pick a compression the kernel supports.
            cp "$EMBER_QEMU_CACHE/kernel/root/boot/config-$KVER" "$chroot/boot/"
            # MODULES=list: the VM's drivers only (MODULES=most packs 30 MiB of them).
            sed -i 's/^MODULES=.*/MODULES=list/' "$chroot/etc/initramfs-tools/initramfs.conf"
            printf '%s\n' $GENERATOR_DRIVERS >>"$chroot/etc/initramfs-tools/modules"
            chroot "$chroot" mkinitramfs -o /tmp/initrd.img "$KVER" || rc=$?
            ;;
        *) rc=2 ;;
    esac >"$out.log" 2>&1
    [ $rc -ne 0 ] || cp "$chroot/tmp/initrd.img" "$out" || rc=$?
    # What went in, by initramfs-tools' lister (it reads dracut's images too).
    [ $rc -ne 0 ] || chroot "$chroot" lsinitramfs /tmp/initrd.img >"$out.list" 2>>"$out.log" || rc=$?
    umount "$chroot/dev" "$chroot/proc" "$chroot/lib/modules/$KVER" "$chroot"
    rm -rf --one-file-system "$overlay"
    return $rc
}

# generator_case KIND: the nocloud-iso case booted through KIND's initramfs.
generator_case() {
    local kind=$1 why disk=$CASE_DIR/disk.img
    why=$(debian_unavailable)
    if [ -n "$why" ]; then
        [ -z "${CI:-}" ] || fail "$why"
        skip "$why"
    fi
    generator_initrd "$kind" "$CASE_DIR/initrd.img" ||
        fail "$kind could not build an initramfs: $(tail -n 5 "$CASE_DIR/initrd.img.log")"
    grep -q 'etc/cloud/cloud.cfg.d/90-ember-test.cfg$' "$CASE_DIR/initrd.img.list" ||
        fail "$kind: the image config is not in the initramfs"
    ! grep -q '91-ember-secret.cfg' "$CASE_DIR/initrd.img.list" ||
        fail "$kind: a config file others cannot read went into the initramfs"
    make_busybox_root "$CASE_DIR/root"
    make_disk "$CASE_DIR/root" "$disk"
    make_iso_seed "$EMBER_REPO/tests/fixtures/seeds/basic" "$CASE_DIR/seed.iso"
    boot_case boot --initrd "$CASE_DIR/initrd.img" --disk "$disk" --cdrom "$CASE_DIR/seed.iso" \
        --memory 1024 --timeout 120 --append "root=/dev/vda1 ro"
    console_lacks 'ember-initramfs:'
    console_has 'status: done'
    console_has 'DataSourceNoCloud \[seed=/dev/sr0\]'
    console_has 'EMBER-RUNCMD-RAN'
    file_is "$disk" /etc/hostname ember-qemu
    file_has "$disk" /home/tester/.ssh/authorized_keys 'tester@ember-qemu$'
    file_is "$disk" /var/log/ember-test-runcmd instance
}
