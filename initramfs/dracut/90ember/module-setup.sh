#!/bin/bash
# shellcheck disable=SC2154 # dracut sets moddir, initdir and systemdsystemunitdir
# dracut module for ember: detect and fetch before the root is mounted, local on the mounted
# root. Shell hooks in a shell-based initrd, the shared systemd units when dracut builds with
# its systemd module. dracut sources this file; the functions below are its module interface.

# called by dracut: a module that was installed is wanted in every image.
check() {
    return 0
}

# called by dracut: no hard dependency. The network modules are used when the image has them
# (ip= / rd.neednet=1); the hooks below are ordered after their bring-up.
depends() {
    return 0
}

# called by dracut
installkernel() {
    # Seed devices (CD, virtio, SATA) and network cards, also in host-only images built on a
    # machine without them. Best effort: instmods skips what the kernel does not have. No
    # isofs/vfat: ember reads seed volumes from the raw device.
    hostonly='' instmods virtio_blk virtio_pci virtio_net virtio_scsi sr_mod cdrom ata_piix ahci e1000
}

# called by dracut
install() {
    local _src _share=/usr/lib/ember/initrd
    for _src in /usr/lib/ember/ember-initrd /usr/bin/ember-initrd ""; do
        [[ -x $_src ]] && break
    done
    if [[ -z $_src ]]; then
        # dracut ignores install()'s status; exiting is how a module fails the build.
        dfatal "ember: ember-initrd is in neither /usr/lib/ember/ nor /usr/bin/; install ember first"
        exit 1
    fi
    if [[ ! -f $_share/ember-initrd-local ]]; then
        dfatal "ember: $_share/ember-initrd-local is missing; install ember's initramfs files"
        exit 1
    fi
    inst_binary "$_src" /usr/bin/ember-initrd
    inst_script "$_share/ember-initrd-local" /usr/bin/ember-initrd-local
    # fs_setup runs the target's mkfs.* in a chroot of the mounted root.
    inst_multiple chroot
    # VMware's guestinfo is read with open-vm-tools' vmware-rpctool, when the image has it
    # (the root is not mounted yet at fetch, so the target's copy is out of reach).
    inst_multiple -o vmware-rpctool
    # For https seeds; ember also tries the target's bundle once the root is mounted.
    [[ -e /etc/ssl/certs/ca-certificates.crt ]] && inst_simple /etc/ssl/certs/ca-certificates.crt
    # The image's config for detect and fetch, which run before the root is mounted.
    local _cfg
    while read -r _cfg; do
        inst_simple "$_cfg"
    done < <("$_share/image-config-files")

    # Both modes: the toggles, and ip= turned into rd.neednet=1 for the initqueue to wait on.
    inst_hook cmdline 90 "$moddir/ember-cmdline.sh"

    if dracut_module_included "systemd"; then
        inst_simple "$_share/ember-initrd-early.service" "$systemdsystemunitdir/ember-initrd-early.service"
        inst_simple "$_share/ember-initrd-local.service" "$systemdsystemunitdir/ember-initrd-local.service"
        $SYSTEMCTL -q --root "$initdir" enable ember-initrd-early.service ember-initrd-local.service
    else
        # pre-mount runs after the initqueue finished: udev settled, the network up when asked.
        inst_hook pre-mount 50 "$moddir/ember-pre-mount.sh"
        # Before SELinux policy loading (pre-pivot 50), after fstab.sys mounts (pre-pivot 00).
        inst_hook pre-pivot 40 "$moddir/ember-pre-pivot.sh"
    fi
}
