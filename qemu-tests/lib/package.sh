# shellcheck shell=bash
# The package cases (qemu-tests/cases/package-*): a Debian root with its own kernel, ember
# installed with `dpkg -i` of the .debs scripts/package builds and nothing else, booted with
# that root's kernel and the initramfs the package's trigger built. Loaded after common.sh,
# checks.sh and debian.sh; needs root (chroot, loop mounts).

# The VM's drivers, for an image builder's initramfs config (as lib/generators.sh's).
PACKAGE_DRIVERS="virtio_pci virtio_blk virtio_scsi virtio_net ata_piix sr_mod ahci crc32c_generic ext4"

# in_chroot ROOT COMMAND…: COMMAND in a chroot of ROOT with /proc, /sys and /dev, in a mount
# namespace of its own (nothing stays mounted), services kept from starting (policy-rc.d).
in_chroot() {
    local root=$1 rc=0
    shift
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 0755 "$root/usr/sbin/policy-rc.d"
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare --mount --propagation private sh -c '
        root=$1; shift
        mount -t proc proc "$root/proc" && mount -t sysfs sysfs "$root/sys" &&
            mount --bind /dev "$root/dev" &&
            DEBIAN_FRONTEND=noninteractive chroot "$root" "$@"' sh "$root" "$@" || rc=$?
    rm -f "$root/usr/sbin/policy-rc.d"
    return $rc
}

# debian_variant NAME BASE PACKAGES [CONFIG_FUNCTION]: PACKAGE_ROOT, the tree BASE plus
# PACKAGES (apt-get install in a chroot of a copy), CONFIG_FUNCTION ROOT run first (an image
# builder's config that the packages' own scripts read). Cached beside the cached root under
# NAME and a key of BASE, the packages and the function's text; built in a temporary folder
# and renamed when complete, as ensure_debian_root does.
debian_variant() {
    local name=$1 base=$2 packages=$3 config=${4:-} key tmp
    key=$({ echo "$base $packages"; [ -z "$config" ] || declare -f "$config"; } | sha256sum | cut -c1-8)
    PACKAGE_ROOT=$base-$name-$key
    [ -f "$PACKAGE_ROOT/.ember-ready" ] && return 0
    tmp=$(mktemp -d "$EMBER_QEMU_CACHE/.debian-build.XXXXXX")
    echo "debian: $name: installing $packages into a copy of $base (once)" >&2
    cp -a "$base" "$tmp/root"
    [ -z "$config" ] || "$config" "$tmp/root"
    # shellcheck disable=SC2086 # the package list is words
    if ! in_chroot "$tmp/root" sh -c "apt-get update -q && apt-get install -y -q $packages && apt-get clean" \
        >"$tmp.log" 2>&1; then
        echo "debian: $name: apt-get failed; the last lines of $tmp.log:" >&2
        tail -n 15 "$tmp.log" >&2
        rm -rf "$tmp"
        return 1
    fi
    rm -rf "$tmp/root/var/lib/apt/lists/"* "$tmp.log"
    touch "$tmp/root/.ember-ready"
    mv -T "$tmp/root" "$PACKAGE_ROOT" 2>/dev/null || true
    rm -rf "$tmp"
    [ -f "$PACKAGE_ROOT/.ember-ready" ]
}

# Image builders' initramfs configs: the VM's drivers only (a generic image carries them all,
# and takes that much longer to load under emulation).
initramfs_tools_for_vm() {
    sed -i 's/^MODULES=.*/MODULES=list/' "$1/etc/initramfs-tools/initramfs.conf"
    printf '%s\n' $PACKAGE_DRIVERS >>"$1/etc/initramfs-tools/modules"
}
dracut_for_vm() {
    mkdir -p "$1/etc/dracut.conf.d"
    printf 'hostonly="no"\ndrivers="%s"\n' "$PACKAGE_DRIVERS" >"$1/etc/dracut.conf.d/90-vm.conf"
}

# kernel_root: PACKAGE_ROOT, the cached Debian root with its own kernel and initramfs-tools
# (configured for this VM), as the initramfs-tools cases start from; the case SKIPs (FAILs under
# CI=1) where the root cannot be had.
kernel_root() {
    debian_required
    ensure_debian_root || fail "debootstrap failed"
    debian_variant kernel "$DEBIAN_ROOT" "linux-image-amd64 initramfs-tools" initramfs_tools_for_vm ||
        fail "cannot install the kernel into the Debian root"
}

# package_debs: PACKAGE_DIR, scripts/package's output for this run's binaries: EMBER_PACKAGES
# when scripts/test built them already, else built once per run.
package_debs() {
    ensure_bins
    PACKAGE_DIR=${EMBER_PACKAGES:-$WORK/packages}
    if [ ! -f "$PACKAGE_DIR/SHA256SUMS" ]; then
        "$EMBER_REPO/scripts/package" --bins "$EMBER_BINS" --out "$PACKAGE_DIR" >"$WORK/package.log" 2>&1 ||
            fail "scripts/package failed: $(tail -n 5 "$WORK/package.log")"
    fi
}

# package_install ROOT DEB…: dpkg -i of the given .debs from PACKAGE_DIR, as an administrator
# would; dpkg's output in CASE_DIR/dpkg.log.
package_install() {
    local root=$1 deb args=()
    shift
    for deb in "$@"; do
        cp "$PACKAGE_DIR/$deb"_*.deb "$root/tmp/" || fail "no $deb package"
        args+=("$(basename "$PACKAGE_DIR/$deb"_*.deb)")
    done
    in_chroot "$root" sh -c 'cd /tmp && dpkg -i "$@"' sh "${args[@]}" >>"$CASE_DIR/dpkg.log" 2>&1 ||
        fail "dpkg -i ${args[*]} failed: $(tail -n 5 "$CASE_DIR/dpkg.log")"
    for deb in "${args[@]}"; do rm -f "$root/tmp/$deb"; done
}

# root_kernel ROOT: KERNEL and ROOT_INITRD, copies (in CASE_DIR) of the root's own kernel and
# initramfs, and ROOT_INITRD.list, what the initramfs holds by the root's lsinitramfs.
root_kernel() {
    local root=$1 vmlinuz
    vmlinuz=$(ls "$root"/boot/vmlinuz-* | tail -n 1)
    [ -f "$vmlinuz" ] || fail "the root has no kernel"
    KERNEL=$CASE_DIR/vmlinuz ROOT_INITRD=$CASE_DIR/initrd.img
    cp "$vmlinuz" "$KERNEL"
    cp "$root/boot/initrd.img-${vmlinuz#*/vmlinuz-}" "$ROOT_INITRD" || fail "the root has no initramfs"
    in_chroot "$root" lsinitramfs "/boot/initrd.img-${vmlinuz#*/vmlinuz-}" >"$ROOT_INITRD.list" 2>&1 ||
        fail "lsinitramfs failed: $(tail -n 3 "$ROOT_INITRD.list")"
}

# after_final_unit ROOT: a unit written for cloud-init, `After=cloud-final.service` and
# `WantedBy=cloud-init.target` (the form cloud-init's documentation gives), recording in
# /run/ember-test-after-final when it ran; enabled with systemctl, as its author would.
after_final_unit() {
    printf '%s\n' '[Unit]' 'After=cloud-final.service' '[Service]' 'Type=oneshot' 'RemainAfterExit=yes' \
        "ExecStart=/bin/sh -c 'cut -d\" \" -f1 /proc/uptime >/run/ember-test-after-final'" \
        '[Install]' 'WantedBy=cloud-init.target' >"$1/etc/systemd/system/ember-test-after-final.service"
    in_chroot "$1" systemctl enable -q ember-test-after-final.service >>"$CASE_DIR/dpkg.log" 2>&1 ||
        fail "cannot enable the test unit"
}

# package_image ROOT SIZE_MIB: the seed (a user `tester` with CASE_DIR/id_ed25519), its ISO
# and the disk CASE_DIR/disk.img holding ROOT.
package_image() {
    KEY=$CASE_DIR/id_ed25519 DISK=$CASE_DIR/disk.img
    ssh-keygen -q -t ed25519 -N '' -C tester@ember-debian -f "$KEY" || fail "ssh-keygen failed"
    debian_seed "$CASE_DIR/seed" "$KEY.pub"
    make_iso_seed "$CASE_DIR/seed" "$CASE_DIR/seed.iso"
    make_disk "$1" "$DISK" "$2"
}

# package_boot NAME: boots DISK with the root's own KERNEL and ROOT_INITRD in the background
# (VM_PID), ssh on SSH_PORT; returns once tester logs in over ssh (or fails the case).
package_boot() {
    SSH_PORT=$(free_port)
    CONSOLE=$CASE_DIR/$1.console
    WORK=$CASE_DIR boot "$1" --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" --ssh "$SSH_PORT" \
        --initrd "$ROOT_INITRD" --memory 1024 --append "root=/dev/vda1 rw" --timeout 240 &
    VM_PID=$!
    trap 'pkill -TERM -P $VM_PID 2>/dev/null' EXIT
    local deadline=$((SECONDS + 200))
    until guest true 2>/dev/null; do
        kill -0 $VM_PID 2>/dev/null || fail "$1: QEMU stopped before ssh answered (see $CONSOLE)"
        [ $SECONDS -lt $deadline ] || fail "$1: no ssh login as tester within 200 s"
        sleep 2
    done
}

# guest COMMAND…: COMMAND on the guest as tester (a refused connection is tried again: ssh_retry).
guest() {
    ssh_retry timeout 90 ssh -q -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile="$CASE_DIR/known_hosts" -i "$KEY" -p "$SSH_PORT" tester@127.0.0.1 "$@"
}

# package_poweroff: powers the guest off and waits for QEMU.
package_poweroff() {
    local rc=0
    guest_poweroff "$VM_PID" || rc=$?
    trap - EXIT
    [ $rc -ne 124 ] || fail "no power-off within the time limit"
}

# provisioned_checks: what every package case asks of the booted guest: `cloud-init status
# --wait` says done, the ember units ran, the seed's user and runcmd took, and the unit
# ordered After=cloud-final.service ran after ember's final stage ended.
provisioned_checks() {
    local out rc=0
    out=$(guest sudo cloud-init status --wait 2>&1) || rc=$?
    echo "$out"
    [ $rc -eq 0 ] || fail "cloud-init status --wait exited $rc: $out"
    grep -qx 'status: done' <<<"$out" || fail "cloud-init status --wait did not say done"
    # shellcheck disable=SC2016 # expanded in the guest
    guest 'hostname; cat /var/log/ember-test-runcmd
        for i in $(seq 60); do [ -e /run/ember-test-after-final ] && break; sleep 1; done
        echo "after-final $(systemctl show -P ExecMainStartTimestampMonotonic ember-test-after-final.service)"
        echo "ember-final $(systemctl show -P ExecMainExitTimestampMonotonic ember-final.service)"
        systemctl is-active ember-init ember-config ember-final
        systemctl show -P ActiveState ember-local.service' >"$CASE_DIR/guest-state" 2>&1
    cat "$CASE_DIR/guest-state"
    [ "$(sed -n 1p "$CASE_DIR/guest-state")" = ember-debian ] || fail "the hostname is not the seed's"
    [ "$(sed -n 2p "$CASE_DIR/guest-state")" = instance ] || fail "runcmd did not run once"
    [ "$(sed -n '5,7p' "$CASE_DIR/guest-state" | sort -u)" = active ] || fail "an ember unit is not active"
    # The stages ran in the initramfs: the booted system's early unit stood down.
    [ "$(sed -n 8p "$CASE_DIR/guest-state")" = inactive ] || fail "ember-local.service ran: no initramfs stage"
    local started exited
    started=$(awk '$1 == "after-final" { print $2 }' "$CASE_DIR/guest-state")
    exited=$(awk '$1 == "ember-final" { print $2 }' "$CASE_DIR/guest-state")
    [ "${started:-0}" != 0 ] || fail "the unit After=cloud-final.service did not run"
    [ "${exited:-0}" != 0 ] && [ "$started" -ge "$exited" ] ||
        fail "the unit After=cloud-final.service started ($started) before ember-final exited ($exited)"
}
