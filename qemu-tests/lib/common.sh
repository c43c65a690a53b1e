# shellcheck shell=bash
# Shared by qemu-tests/run, its cases, scripts/demo and scripts/bench-boot: the kernel from
# Debian's linux-image-amd64 (cached, never installed), ember's binaries and initramfs, GPT
# disk images built from a directory, seed images, QEMU boots, and reading a disk after
# power-off with debugfs (no mount, no root needed for that part).

EMBER_REPO=${EMBER_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
EMBER_QEMU_CACHE=${EMBER_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ember-qemu}
mkdir -p "$EMBER_QEMU_CACHE"

die() { echo "qemu-tests: $*" >&2; exit 1; }

# Kernel and modules: KVER, KERNEL (vmlinuz), MODDIR (its /lib/modules/KVER with modules.dep).
ensure_kernel() {
    local dir=$EMBER_QEMU_CACHE/kernel meta pkg
    if [ ! -f "$dir/ready" ]; then
        rm -rf "$dir" && mkdir -p "$dir/deb"
        meta=$(cd "$dir/deb" && apt-get download linux-image-amd64 >/dev/null 2>&1 && ls) ||
            die "apt-get download linux-image-amd64 failed (apt-get update first?)"
        pkg=$(dpkg-deb -f "$dir/deb/$meta" Depends | grep -o 'linux-image-[^ ,]*-amd64' | head -n1)
        (cd "$dir/deb" && apt-get download "$pkg" >/dev/null 2>&1) || die "apt-get download $pkg failed"
        dpkg-deb -x "$dir/deb/${pkg}_"*.deb "$dir/root"
        KVER=$(ls "$dir/root/lib/modules")
        depmod -b "$dir/root" "$KVER"
        rm -rf "$dir/deb"
        echo "$KVER" >"$dir/ready"
    fi
    KVER=$(cat "$dir/ready")
    KERNEL=$dir/root/boot/vmlinuz-$KVER
    MODDIR=$dir/root/lib/modules/$KVER
}

# ember's static binaries: EMBER_INITRD and EMBER (the runner).
ensure_bins() {
    [ -n "${EMBER_BINS:-}" ] || EMBER_BINS=$("$EMBER_REPO/scripts/build-static" | tail -n 1)
    EMBER_INITRD=$EMBER_BINS/ember-initrd
    EMBER=$EMBER_BINS/ember
}

# The busybox initramfs, built once per run into $WORK.
ensure_initramfs() {
    ensure_kernel
    ensure_bins
    INITRD=$WORK/initrd.img
    [ -f "$INITRD" ] ||
        "$EMBER_REPO/scripts/mkinitramfs" --moddir "$MODDIR" --ember-initrd "$EMBER_INITRD" -o "$INITRD" >/dev/null
}

# initrd_plus DIR OUT: the run's initramfs with DIR's files appended as a second cpio archive
# (the kernel unpacks both), as an initramfs generator carrying the image's /etc/cloud would
# leave them: detect and fetch run before the root is mounted. Boot it with --initrd OUT.
initrd_plus() {
    local size
    cp "$INITRD" "$2"
    # The second archive starts on a 512-byte boundary; the kernel skips the zeros before it.
    size=$(stat -c %s "$2")
    head -c $(((512 - size % 512) % 512)) /dev/zero >>"$2"
    (cd "$1" && find . | cpio -o -H newc --quiet) >>"$2" || die "cpio failed"
}

# A small target root: static busybox, the runner (also as cloud-init), a Debian-like /etc
# and qemu-tests/lib/target-init as /sbin/init, which runs the runner's stages and powers off.
make_busybox_root() {
    local root=$1 applet
    ensure_bins
    mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/ssh,etc/cloud,proc,sys,dev,run,tmp,root,home,var/lib,var/tmp,var/log}
    cp /bin/busybox "$root/bin/busybox"
    for applet in $(/bin/busybox --list); do
        [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
    done
    cp "$EMBER" "$root/usr/bin/ember"
    # Where systemd-networkd would be: ember renders the network config for it (the small
    # root runs no daemon; the cases read the rendered files).
    mkdir -p "$root/usr/lib/systemd"
    : >"$root/usr/lib/systemd/systemd-networkd"
    ln -s ember "$root/usr/bin/cloud-init"
    install -m 0755 "$EMBER_REPO/qemu-tests/lib/target-init" "$root/sbin/init"
    printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
    printf 'root:x:0:\nadm:x:4:\nsudo:x:27:\nshadow:x:42:\nusers:x:100:\n' >"$root/etc/group"
    printf 'root:*:19000:0:99999:7:::\n' >"$root/etc/shadow"
    chmod 0640 "$root/etc/shadow"
    printf 'ID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n' >"$root/etc/os-release"
    # A Debian image's locale, already set: the runner's locale module (run by default, as in
    # cloud-init) leaves it, as it would need the locales package to change it.
    mkdir -p "$root/etc/default"
    printf 'LANG=C.UTF-8\n' >"$root/etc/default/locale"
    echo localhost >"$root/etc/hostname"
    printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
    printf 'PasswordAuthentication yes\n' >"$root/etc/ssh/sshd_config"
    cat >"$root/etc/cloud/cloud.cfg" <<'CFG'
system_info:
  default_user: {name: debian, groups: [adm, sudo], shell: /bin/sh}
# This small root has no ssh-keygen, which RSA keys need: the types ember makes itself.
ssh_genkeytypes: [ed25519, ecdsa]
CFG
}

# make_disk DIR OUT [MIB]: a GPT disk whose one partition (name root, label root) is an ext4
# filesystem holding DIR. The partition starts at 1 MiB: PART_OFFSET for debugfs.
PART_OFFSET=1048576
make_disk() {
    local dir=$1 out=$2 mib=${3:-64} part
    part=$out.part
    rm -f "$out" "$part"
    mke2fs -q -t ext4 -L root -d "$dir" -E root_owner=0:0 "$part" "$((mib - 2))M" >/dev/null ||
        die "mke2fs failed for $dir"
    truncate -s "${mib}M" "$out"
    printf 'label: gpt\nstart=2048, size=%d, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=root\n' \
        "$(((mib - 2) * 2048))" | sfdisk -q "$out" >/dev/null || die "sfdisk failed on $out"
    dd if="$part" of="$out" bs=1M seek=1 conv=notrunc,sparse status=none
    rm -f "$part"
}

# add_host_tool ROOT BINARY…: the host's dynamically linked tools (resize2fs, mkfs.*) with
# their libraries and loader, at the same paths in ROOT, for the busybox target root.
add_host_tool() {
    local root=$1 bin lib
    shift
    for bin in "$@"; do
        [ -x "$bin" ] || die "add_host_tool: $bin is not installed"
        install -D -m 0755 "$bin" "$root$bin"
        for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
            [ -e "$root$lib" ] || install -D -m 0755 "$lib" "$root$lib"
        done
    done
}

# Reading the root partition of a powered-off disk image.
disk_debugfs() { debugfs -R "$2" "$1?offset=$PART_OFFSET" 2>/dev/null; }
disk_cat() { disk_debugfs "$1" "cat $2"; }
disk_exists() { disk_debugfs "$1" "stat $2" | grep -q '^Inode:'; }
# disk_mode DISK PATH: the permission bits in octal, as stat -c %a prints them.
disk_mode() {
    disk_debugfs "$1" "stat $2" | sed -n 's/.*Mode: *0*\([0-7]*\).*/\1/p' | head -n1
}
# disk_extract DISK DIR: a copy of the whole root filesystem (for "what was written" checks).
disk_extract() {
    rm -rf "$2" && mkdir -p "$2"
    disk_debugfs "$1" "rdump / $2" >/dev/null
}

# NoCloud seeds from a directory: an ISO9660 volume labelled cidata, or a VFAT one labelled CIDATA.
make_iso_seed() { xorriso -as mkisofs -quiet -V cidata -J -R -o "$2" "$1" 2>/dev/null || die "xorriso failed"; }
make_vfat_seed() {
    rm -f "$2"
    mkfs.vfat -C -n CIDATA "$2" 2048 >/dev/null || die "mkfs.vfat failed"
    mcopy -oi "$2" "$1"/* ::
}

# start_imds PLATFORM DIR: the tests' metadata emulator (examples/imds.rs, the code the cargo
# tests use, IMDS_BIN) in the background (IMDS_PID) on a loopback port, IMDS_PORT; every request
# it gets is logged in DIR/imds.requests. Returns 1 when it cannot be built or did not start;
# the caller stops it.
start_imds() {
    IMDS_BIN=${CARGO_TARGET_DIR:-$EMBER_REPO/target}/debug/examples/imds
    (cd "$EMBER_REPO" && cargo build -q --example imds) || return 1
    "$IMDS_BIN" "$1" --log "$2/imds.requests" >"$2/imds.port" 2>"$2/imds.log" &
    # shellcheck disable=SC2034 # read by its callers, which stop it
    IMDS_PID=$!
    for _ in $(seq 50); do
        IMDS_PORT=$(head -n1 "$2/imds.port")
        [ -z "$IMDS_PORT" ] || return 0
        sleep 0.1
    done
    return 1
}

# A free loopback TCP port.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# ssh_retry COMMAND…: COMMAND (an ssh invocation) tried again while it exits 255 (ssh's own
# connection error), SSH_TRIES times in all (3): ember-hostkeys reloads sshd once the RSA key is
# made, and sshd re-executes itself then, not listening for a moment.
ssh_retry() {
    local rc
    for _ in $(seq "${SSH_TRIES:-3}"); do
        rc=0
        "$@" || rc=$?
        [ $rc -eq 255 ] || return $rc
        sleep 1
    done
    return $rc
}

# boot NAME [--disk F]… [--cdrom F] [--net PORT] [--dns PORT] [--ssh PORT] [--mac MAC]
#      [--append ARGS] [--initrd F] [--timeout S] [--memory MIB] [--smbios SPEC]
#      [--serial2 SOCKET] [--dead-nic] [--vanishing-cdrom F] [--tpm SOCKET]
# Boots the kernel under TCG with the serial console in $WORK/NAME.console. QEMU's user
# network is always restricted; --net PORT forwards the guest's 169.254.169.254:80 to the
# loopback port, --dns PORT the guest's TCP to 169.254.169.53:53 (a restricted network drops
# UDP, and QEMU's own DNS would ask the host's resolver), --ssh PORT forwards loopback PORT to the guest's port 22; --mac gives the NIC
# that MAC (and a NIC on a restricted network with nothing forwarded when neither is asked);
# --fwd IP:PORT:HOSTPORT forwards the guest's TCP to IP:PORT to the loopback HOSTPORT (a
# password server on 8080, a service at another address), --subnet A.B.C makes the network
# A.B.C.0/24 instead of 169.254.169.0/24 (--net then has no 169.254.169.254 to forward),
# --prefix N widens the network to A.B.C.0/N (7 holds both 169.254.169.254 and Azure's
# wireserver, 168.63.129.16: QEMU forwards only addresses inside its network).
# --serial2 SOCKET connects the guest's second serial port (ttyS1) to a host program listening
# on that unix socket (a serial-port cloud's metadata agent, checks.sh's serve_serial).
# --dead-nic puts a NIC with no carrier (QEMU's `set_link off` before the guest starts) on the
# bus before the one the other options make: the first NIC the guest finds is dead.
# --vanishing-cdrom F is a CD holding F, read at 16 KiB/s, whose medium is taken out (QEMU's
# `eject -f`) 12 s after the console says ember started: while ember reads its user-data.
# --tpm SOCKET gives the guest a TPM 2.0 (TIS) backed by the swtpm listening on SOCKET
# (lib/tpm.sh's start_swtpm).
# Returns QEMU's status (124 on timeout). BOOT_SECONDS holds the wall time.
boot() {
    local name=$1 timeout=60 append="" initrd=${INITRD:-} net="" dns="" ssh="" mac="" args=() started
    local subnet=169.254.169 prefix=24 fwds=() monitor="" helper="" commands=() vanish=""
    shift
    while [ $# -gt 0 ]; do
        case "$1" in
            --disk) args+=(-drive "file=$2,format=raw,if=virtio"); shift 2 ;;
            --disk-ro) args+=(-drive "file=$2,format=raw,if=virtio,readonly=on"); shift 2 ;;
            --cdrom) args+=(-drive "file=$2,media=cdrom,if=ide,readonly=on"); shift 2 ;;
            --net) net=$2; shift 2 ;;
            --dns) dns=$2; shift 2 ;;
            --ssh) ssh=$2; shift 2 ;;
            --mac) mac=$2; shift 2 ;;
            --fwd) fwds+=("$2"); shift 2 ;;
            --subnet) subnet=$2; shift 2 ;;
            --prefix) prefix=$2; shift 2 ;;
            --append) append=$2; shift 2 ;;
            --initrd) initrd=$2; shift 2 ;;
            --timeout) timeout=$2; shift 2 ;;
            --memory) args+=(-m "$2"); shift 2 ;;
            --smbios) args+=(-smbios "$2"); shift 2 ;;
            --serial2) args+=(-chardev "socket,id=serial2,path=$2" -serial chardev:serial2); shift 2 ;;
            --tpm)
                # shellcheck disable=SC2054 # QEMU's own comma-separated option syntax
                args+=(-chardev "socket,id=chrtpm,path=$2" -tpmdev emulator,id=tpm0,chardev=chrtpm
                    -device tpm-tis,tpmdev=tpm0)
                shift 2
                ;;
            --dead-nic)
                # Started paused (-S): the link is down before the guest's driver first looks.
                # shellcheck disable=SC2054 # QEMU's own comma-separated option syntax
                args+=(-S -netdev "user,id=dead,restrict=on,net=10.0.9.0/24"
                    -device "virtio-net-pci,netdev=dead,mac=0e:00:00:00:de:ad")
                commands+=("set_link dead off" cont)
                monitor=$WORK/$name.monitor
                shift
                ;;
            --vanishing-cdrom)
                # shellcheck disable=SC2054 # QEMU's own comma-separated option syntax
                args+=(-drive "file=$2,media=cdrom,if=none,id=seedcd,readonly=on,throttling.bps-total=16384"
                    -device ide-cd,drive=seedcd)
                vanish=1 monitor=$WORK/$name.monitor
                shift 2
                ;;
            *) die "boot: unknown option $1" ;;
        esac
    done
    if [ -n "$net$dns$ssh$mac" ]; then
        local netdev="user,id=n0,restrict=on,net=$subnet.0/$prefix,host=$subnet.2,dhcpstart=$subnet.15" fwd
        [ -z "$net" ] || netdev+=",guestfwd=tcp:169.254.169.254:80-cmd:socat - TCP:127.0.0.1:$net"
        [ -z "$dns" ] || netdev+=",guestfwd=tcp:169.254.169.53:53-cmd:socat - TCP:127.0.0.1:$dns"
        [ -z "$ssh" ] || netdev+=",hostfwd=tcp:127.0.0.1:$ssh-:22"
        for fwd in "${fwds[@]}"; do
            netdev+=",guestfwd=tcp:${fwd%:*}-cmd:socat - TCP:127.0.0.1:${fwd##*:}"
        done
        # shellcheck disable=SC2054 # QEMU's own comma-separated option syntax
        args+=(-netdev "$netdev" -device "virtio-net-pci,netdev=n0${mac:+,mac=$mac}")
    else
        args+=(-nic none)
    fi
    started=$(date +%s.%N)
    local rc=0
    if [ -n "$monitor" ]; then
        rm -f "$monitor" "$WORK/$name.console"
        args+=(-monitor "unix:$monitor,server=on,wait=off")
        (
            for _ in $(seq 100); do [ -S "$monitor" ] && break; sleep 0.1; done
            [ ${#commands[@]} -eq 0 ] || { printf '%s\n' "${commands[@]}"; sleep 1; } |
                socat - "UNIX-CONNECT:$monitor" >/dev/null 2>&1
            if [ -n "$vanish" ]; then
                for _ in $(seq 1200); do grep -qa 'ember start' "$WORK/$name.console" 2>/dev/null && break; sleep 0.1; done
                # Short sleeps: killing the helper leaves no long sleep holding its output.
                for _ in $(seq 120); do sleep 0.1; done
                { echo 'eject -f seedcd'; sleep 1; } | socat - "UNIX-CONNECT:$monitor" >/dev/null 2>&1
            fi
        ) &
        helper=$!
    fi
    timeout --foreground "$timeout" qemu-system-x86_64 -accel tcg -machine pc -m 512 -smp 1 \
        -nodefaults -display none -no-reboot -serial "file:$WORK/$name.console" \
        -device virtio-rng-pci -kernel "$KERNEL" -initrd "$initrd" \
        -append "console=ttyS0 panic=-1 rd.emergency=poweroff $append" "${args[@]}" \
        </dev/null >"$WORK/$name.qemu.log" 2>&1 || rc=$?
    # The helper's work ends with QEMU's: a guest that never said "ember start" must not
    # hold the case for the helper's two minutes.
    if [ -n "$helper" ]; then
        kill "$helper" 2>/dev/null || true
        wait "$helper" 2>/dev/null || true
    fi
    # shellcheck disable=SC2034 # read by scripts/demo and scripts/bench-boot
    BOOT_SECONDS=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    return $rc
}
