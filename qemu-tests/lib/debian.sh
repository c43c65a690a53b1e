# shellcheck shell=bash
# A real Debian bookworm root for the QEMU cases that boot systemd (qemu-tests/cases/debian-*)
# and for scripts/bench-boot. The root is debootstrapped once into EMBER_QEMU_CACHE, under a
# name keyed by its package list, and never changed afterwards: the same tree serves as a chroot
# for building dracut and initramfs-tools images, so it carries both generators (they coexist:
# only the `dracut` and `initramfs-tools` front packages conflict). Each case copies it and
# installs ember into the copy. Loaded after common.sh; needs root (debootstrap, chroot).

DEBIAN_SUITE=bookworm
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# dbus and libpam-systemd: without them every ssh login waits for logind's answer to time out.
# tpm2-tools: debian-tpm reads the PCR ember measured into as a verifier's agent would.
DEBIAN_PACKAGES="systemd systemd-sysv udev dbus libpam-systemd openssh-server sudo iproute2 kmod
e2fsprogs dracut-core initramfs-tools-core rsyslog locales keyboard-configuration console-setup gpg
tpm2-tools"

# Why the Debian root cannot be had here, or nothing when it can. A case prints SKIP with it
# (FAIL under CI=1, where scripts/setup installs what is needed).
debian_unavailable() {
    local tool
    [ "$(id -u)" = 0 ] || { echo "debootstrap and chroot need root"; return; }
    for tool in debootstrap chroot ssh ssh-keygen ssh-keyscan; do
        command -v "$tool" >/dev/null || { echo "no $tool (apt-get install debootstrap openssh-client)"; return; }
    done
}

# debian_required [WHY]: a case that needs the Debian root goes on when it can be had; else it
# prints SKIP with the reason (or WHY, a reason of the case's own), FAIL under CI=1, where
# scripts/setup installs all it needs. Needs checks.sh's fail and skip.
debian_required() {
    local why
    why=$(debian_unavailable)
    [ -n "$why" ] || why=${1:-}
    [ -n "$why" ] || return 0
    [ -z "${CI:-}" ] || fail "the Debian case cannot run: $why"
    skip "$why"
}

# The cache key: the suite, the mirror and the sorted package list.
debian_key() {
    # shellcheck disable=SC2086 # the package list is words
    { echo "$DEBIAN_SUITE $DEBIAN_MIRROR"; printf '%s\n' $DEBIAN_PACKAGES | LC_ALL=C sort -u; } |
        sha256sum | cut -c1-12
}

# ensure_debian_root: DEBIAN_ROOT, the cached tree (debootstrapped first if missing). Built in a
# temporary folder beside it and renamed when complete, so a cut-off build never counts and two
# runs racing both end with one whole tree.
ensure_debian_root() {
    DEBIAN_ROOT=$EMBER_QEMU_CACHE/debian-$DEBIAN_SUITE-$(debian_key)
    [ -f "$DEBIAN_ROOT/etc/debian_version" ] && return 0
    local tmp started
    # What an interrupted build left (a running one is younger than two hours).
    find "$EMBER_QEMU_CACHE" -maxdepth 1 -name '.debian-build.*' -mmin +120 -exec rm -rf {} +
    tmp=$(mktemp -d "$EMBER_QEMU_CACHE/.debian-build.XXXXXX")
    started=$(date +%s)
    echo "debian: debootstrap $DEBIAN_SUITE into $tmp (once; cached as $DEBIAN_ROOT)" >&2
    # shellcheck disable=SC2086 # the package list is words
    if ! debootstrap --variant=minbase --include="$(printf '%s,' $DEBIAN_PACKAGES | sed 's/,$//')" \
        "$DEBIAN_SUITE" "$tmp/root" "$DEBIAN_MIRROR" >"$tmp.log" 2>&1; then
        echo "debian: debootstrap failed; the last lines of $tmp.log:" >&2
        tail -n 15 "$tmp.log" >&2
        rm -rf "$tmp"
        return 1
    fi
    chroot "$tmp/root" apt-get clean
    rm -f "$tmp.log"
    # Another run may have finished first; then its tree is as good as ours.
    mv -T "$tmp/root" "$DEBIAN_ROOT" 2>/dev/null || true
    rm -rf "$tmp"
    [ -f "$DEBIAN_ROOT/etc/debian_version" ] || return 1
    echo "debian: debootstrap took $(($(date +%s) - started)) s" >&2
}

# Kernel modules the booted system loads itself (the initramfs loaded the disk and NIC drivers
# already): cloud-init mounts the ISO9660 seed, systemd wants autofs4. A subset, copied with
# their dependencies, because the whole of /lib/modules is 400 MiB.
DEBIAN_MODULES="virtio_pci virtio_blk virtio_net virtio_rng virtio_console virtio_balloon ata_piix
sr_mod ext4 isofs vfat nls_ascii nls_cp437 nls_utf8 autofs4 loop fuse configfs efivarfs evdev
serio_raw psmouse i2c_piix4 pcspkr button"

# debian_image_root DEST [SRC]: a copy of the cached root (or SRC, another cached tree)
# prepared as an image that has never booted: no host keys (whoever provisions makes them), an
# empty machine id, the booted kernel's modules, fstab, and a network config of its own.
debian_image_root() {
    local root=$1 src=${2:-} kroot=$EMBER_QEMU_CACHE/kernel/root path
    ensure_kernel
    if [ -z "$src" ]; then
        ensure_debian_root || return 1
        src=$DEBIAN_ROOT
    fi
    rm -rf "$root"
    cp -a --reflink=auto "$src" "$root" || die "cannot copy $src"
    rm -f "$root"/etc/ssh/ssh_host_*
    : >"$root/etc/machine-id"
    ln -sf /etc/machine-id "$root/var/lib/dbus/machine-id"
    install -m 0644 /dev/null "$root/etc/hostname"
    echo debian >"$root/etc/hostname"
    printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
    : >"$root/etc/resolv.conf"
    # The root is mounted rw by the initramfs (ember writes into it), so systemd-fsck-root
    # stands down; the pass number keeps fstab honest for boots with `ro`.
    printf 'LABEL=root\t/\text4\trw,errors=remount-ro\t0\t1\n' >"$root/etc/fstab"
    # systemd-firstboot would prompt on the serial console for a locale and a root password.
    ln -sf /dev/null "$root/etc/systemd/system/systemd-firstboot.service"
    # keyboard-configuration's boot-time setupcon takes half a minute under TCG before sshd;
    # the keyboard module restarts console-setup, which stays.
    ln -sf /dev/null "$root/etc/systemd/system/keyboard-setup.service"
    # systemd-networkd with no config of the image's own: the network the guest gets (and
    # the ssh login needs) is the one ember renders, its fallback DHCP matched by MAC.
    mkdir -p "$root/etc/systemd/network"
    chroot "$root" systemctl enable -q systemd-networkd.service || die "cannot enable systemd-networkd"
    # shellcheck disable=SC2086 # the module list is words
    for path in $(modprobe -d "$kroot" -S "$KVER" -a --show-depends $DEBIAN_MODULES |
        awk '$1 == "insmod" { print $2 }'); do
        path=${path#"$kroot"}
        mkdir -p "$root$(dirname "$path")"
        cp "$kroot$path" "$root$path"
    done
    cp "$MODDIR"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$KVER/"
    depmod -b "$root" "$KVER"
}

# debian_install_ember ROOT: the runner as /usr/bin/ember and /usr/bin/cloud-init (cloud-init
# is not installed), cloud-init-per, and dist/systemd's units enabled as dist/README.md says,
# with ember-generator and the stand-ins under cloud-init's unit names it links.
debian_install_ember() {
    local root=$1 unit
    ensure_bins
    install -m 0755 "$EMBER" "$root/usr/bin/ember"
    ln -sf ember "$root/usr/bin/cloud-init"
    install -m 0755 "$EMBER_REPO/dist/cloud-init-per" "$root/usr/bin/cloud-init-per"
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
    for unit in ember-init.service ember-config.service ember-final.service ember-hostkeys.service; do
        install -m 0644 "$EMBER_REPO/dist/systemd/$unit" "$root/usr/lib/systemd/system/$unit"
        ln -sf "/usr/lib/systemd/system/$unit" "$root/etc/systemd/system/multi-user.target.wants/$unit"
    done
    install -D -m 0755 "$EMBER_REPO/dist/systemd/ember-generator" \
        "$root/usr/lib/systemd/system-generators/ember-generator"
    for unit in "$EMBER_REPO"/dist/systemd/cloud-init-compat/*; do
        install -D -m 0644 "$unit" "$root/usr/lib/ember/systemd/${unit##*/}"
    done
}

# debian_seed DIR PUBKEY_FILE: a NoCloud seed (meta-data, user-data) making the user `tester`
# with that key and password-less sudo, a hostname (also in /etc/hosts, which sudo reads), and a
# runcmd leaving a mark.
debian_seed() {
    mkdir -p "$1"
    printf 'instance-id: iid-debian-1\nlocal-hostname: ember-debian\n' >"$1/meta-data"
    cat >"$1/user-data" <<SEED
#cloud-config
hostname: ember-debian
manage_etc_hosts: true
users:
  - name: tester
    shell: /bin/bash
    sudo: ALL=(ALL) NOPASSWD:ALL
    ssh_authorized_keys:
      - $(cat "$2")
chpasswd:
  expire: false
  users:
    - {name: tester, password: ember-pw-marker-51c9, type: text}
write_files:
  - path: /etc/ember-test-secret
    content: ember-secret-marker-7f3a
    permissions: '0600'
runcmd:
  - echo instance >> /var/log/ember-test-runcmd
SEED
}

# ensure_debian_cloud_init_root: DEBIAN_CI_ROOT, the cached root plus Debian's own cloud-init
# (apt-get install in a chroot of a copy; its postinst enables cloud-init's units), for
# scripts/bench-boot's comparison. Cached beside the root it came from, built the same way.
ensure_debian_cloud_init_root() {
    ensure_debian_root || return 1
    DEBIAN_CI_ROOT=$DEBIAN_ROOT-cloud-init
    [ -x "$DEBIAN_CI_ROOT/usr/bin/cloud-init" ] && return 0
    local tmp
    tmp=$(mktemp -d "$EMBER_QEMU_CACHE/.debian-build.XXXXXX")
    echo "debian: installing cloud-init into a copy of $DEBIAN_ROOT (once)" >&2
    cp -a "$DEBIAN_ROOT" "$tmp/root"
    # No service starts in the chroot; /proc lives in a mount namespace that ends with it.
    printf '#!/bin/sh\nexit 101\n' >"$tmp/root/usr/sbin/policy-rc.d"
    chmod 0755 "$tmp/root/usr/sbin/policy-rc.d"
    # shellcheck disable=SC2016 # expanded by the inner shell
    if ! unshare --mount --propagation private sh -c '
        mount -t proc proc "$1/proc" &&
        chroot "$1" apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -q cloud-init &&
        chroot "$1" apt-get clean' sh "$tmp/root" >"$tmp.log" 2>&1; then
        echo "debian: installing cloud-init failed; the last lines of $tmp.log:" >&2
        tail -n 15 "$tmp.log" >&2
        rm -rf "$tmp"
        return 1
    fi
    rm -f "$tmp/root/usr/sbin/policy-rc.d" "$tmp.log"
    rm -rf "$tmp/root/var/lib/apt/lists/"*
    mv -T "$tmp/root" "$DEBIAN_CI_ROOT" 2>/dev/null || true
    rm -rf "$tmp"
    [ -x "$DEBIAN_CI_ROOT/usr/bin/cloud-init" ]
}

# guest_poweroff VM_PID: `sudo poweroff` over the case's `guest` (ssh) until QEMU exits: an
# attempt can meet sshd re-executing itself (ember-hostkeys reloads it) and never arrive, which
# once left a whole run waiting for QEMU's own time limit. Three attempts, a minute each; each
# one's ssh status is printed. Returns QEMU's exit status (124: it never powered off).
guest_poweroff() {
    local vm=$1 try rc
    for try in 1 2 3; do
        rc=0
        SSH_TRIES=1 guest sudo poweroff || rc=$?
        echo "poweroff attempt $try: ssh exited $rc"
        for _ in $(seq 60); do
            kill -0 "$vm" 2>/dev/null || break 2
            sleep 1
        done
    done
    rc=0
    wait "$vm" || rc=$?
    return $rc
}
