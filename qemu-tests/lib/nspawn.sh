# shellcheck shell=bash
# Booting the cached Debian root (lib/debian.sh) as a container with `systemd-nspawn -b`, for
# the cases of machines with no initramfs (cases/nspawn*.sh). No QEMU: the container shares
# the host's kernel. Its network is --private-network (its own loopback only). The checks enter
# it with nsenter: this host's init is not systemd, so machinectl and `systemd-run -M` have
# no machined to ask. Loaded after common.sh, checks.sh and debian.sh; needs root.

# Why a container cannot be booted here, or nothing when it can.
nspawn_unavailable() {
    local why
    why=$(debian_unavailable)
    [ -n "$why" ] || command -v systemd-nspawn >/dev/null ||
        why="no systemd-nspawn (apt-get install systemd-container)"
    [ -n "$why" ] || command -v nsenter >/dev/null || why="no nsenter (util-linux)"
    echo "$why"
}

# nspawn_root ROOT: a copy of the cached root, prepared as an image that never booted, with
# ember installed as an image builder would: the runner and its units (debian_install_ember),
# and initramfs/install-into-root's ember-initrd, ember-local.service and ember-generator. No
# initramfs boots it, so the generator enables ember-local.service.
nspawn_root() {
    local root=$1
    ensure_bins
    debian_image_root "$root" || fail "cannot prepare the image root"
    # A container's root is mounted by its manager: no fstab entry for it. Its only link is
    # its own loopback, which networkd-wait-online would wait two minutes for.
    : >"$root/etc/fstab"
    ln -sf /dev/null "$root/etc/systemd/system/systemd-networkd-wait-online.service"
    debian_install_ember "$root"
    "$EMBER_REPO/initramfs/install-into-root" "$root" "$EMBER_INITRD" >/dev/null ||
        fail "install-into-root failed"
}

# boot_nspawn NAME ROOT [nspawn options]: boots ROOT in the background (NSPAWN: its PID;
# LEADER: the container's init), console in CASE_DIR/NAME.console (CONSOLE); waits until the
# container's systemd says it finished starting (running or degraded).
NSPAWN='' LEADER=''
boot_nspawn() {
    local name=$1 root=$2
    shift 2
    CONSOLE=$CASE_DIR/$name.console
    # A name of its own: another run on this host may boot a container at the same time.
    systemd-nspawn -q -D "$root" -M "ember-nspawn-$$" --private-network --register=no --keep-unit \
        --console=read-only "$@" -b >"$CONSOLE" 2>&1 &
    NSPAWN=$!
    trap stop_nspawn EXIT
    local deadline=$((SECONDS + 120)) state=''
    LEADER=''
    while [ $SECONDS -lt $deadline ]; do
        kill -0 "$NSPAWN" 2>/dev/null ||
            fail "$name: systemd-nspawn exited: $(tail -n 5 "$CONSOLE" | tr '\n' ' ')"
        [ -n "$LEADER" ] || LEADER=$(pgrep -P "$NSPAWN" -x systemd | head -n 1)
        if [ -n "$LEADER" ]; then
            state=$(in_container systemctl is-system-running 2>/dev/null) || true
            case "$state" in running | degraded) return 0 ;; esac
        fi
        sleep 1
    done
    fail "$name: the container did not finish booting within 120 s (state: ${state:-none})"
}

# in_container COMMAND…: runs it in every namespace of the container's init.
in_container() { timeout 120 nsenter -t "$LEADER" -a -- "$@"; }

# stop_nspawn: powers the container off (killed after a minute).
stop_nspawn() {
    [ -n "$NSPAWN" ] || return 0
    in_container systemctl poweroff >/dev/null 2>&1 || true
    local deadline=$((SECONDS + 60))
    while kill -0 "$NSPAWN" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 1; done
    kill -KILL "$NSPAWN" 2>/dev/null || true
    wait "$NSPAWN" 2>/dev/null || true
    NSPAWN=''
}
