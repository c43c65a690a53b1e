# shellcheck shell=bash
# The unit matrix (qemu-tests/cases/unit-matrix.sh): Debian roots holding every network stack
# and the extra services people add, and the cells that enable one combination of them the way
# an image builder would (systemctl --root), run ember's generator as the boot would, and ask
# `systemd-analyze verify` about the default target. Loaded after debian.sh and package.sh.

# Every stack and extra service installed once; a cell turns off what it does not hold.
UNITS_PACKAGES="ifupdown network-manager firewalld ufw docker.io"
# shellcheck disable=SC2034 # read by the case
UNITS_STACKS="ifupdown networkd nm"
# The extras' services, as their packages enable them.
UNITS_SERVICES="firewalld.service ufw.service docker.service docker.socket containerd.service"

# units_roots: UNITS_PLAIN, the Debian root plus every stack and extra, and UNITS_BESIDE, that
# plus Debian's cloud-init (its postinst enables cloud-init's units). Cached as debian.sh's are.
units_roots() {
    ensure_debian_root || fail "debootstrap failed"
    debian_variant matrix "$DEBIAN_ROOT" "$UNITS_PACKAGES" || fail "cannot install $UNITS_PACKAGES"
    UNITS_PLAIN=$PACKAGE_ROOT
    debian_variant cloud-init "$UNITS_PLAIN" cloud-init || fail "cannot install cloud-init"
    # shellcheck disable=SC2034 # read by the case
    UNITS_BESIDE=$PACKAGE_ROOT
}

# units_extras KIND: the extra columns of a tree without cloud-init (plain) or with it (beside).
# after-final and after-target are units written for cloud-init as its documentation says
# (After=cloud-final.service or After=cloud-init.target, WantedBy=cloud-init.target);
# after-config is ordered After=cloud-config.service.
units_extras() {
    if [ "$1" = plain ]; then
        echo none firewalld ufw docker dkms after-final after-target after-config
    else
        echo cloud-init after-final after-target after-config
    fi
}

# units_pristine TREE: keeps TREE's enabled units as they are now; every cell starts from them.
units_pristine() {
    rm -rf "$1/.units-pristine"
    cp -a "$1/etc/systemd/system" "$1/.units-pristine"
}

# units_restore TREE: TREE's enabled units as units_pristine kept them, nothing in /run.
units_restore() {
    rm -rf "$1/etc/systemd/system" "$1/run/systemd/system" "$1/run/ember"
    cp -a "$1/.units-pristine" "$1/etc/systemd/system"
}

# units_unit TREE NAME WANTED_BY LINE…: a unit of an image builder's own, in /etc, enabled.
units_unit() {
    local tree=$1 name=$2 wanted_by=$3
    shift 3
    printf '%s\n' '[Unit]' "$@" '[Service]' 'Type=oneshot' 'ExecStart=/bin/true' 'RemainAfterExit=yes' \
        '[Install]' "WantedBy=$wanted_by" >"$tree/etc/systemd/system/$name.service"
    systemctl --root="$tree" enable -q "$name.service" || fail "cannot enable $name.service"
}

# units_cell TREE MODE STACK EXTRA OUT: TREE set up as the cell says, from its pristine units:
# the network STACK (ifupdown, networkd, nm) on and the others off, the extra services off but
# EXTRA, EXTRA's own unit written; MODE initramfs (ember-initrd ran: its status and handoff
# are in /run) or local (no initramfs stage: ember-generator enables ember-local.service).
# OUT: what `systemd-analyze verify` says of the default target and the dependencies it could
# not find, but for the lines every tree of this root prints (dracut-core names units only its
# initramfs has); OUT.jobs: the units the boot's transaction starts.
units_cell() {
    local tree=$1 mode=$2 stack=$3 extra=$4 out=$5 on off service gen link target
    units_restore "$tree"
    case $stack in
        ifupdown) on=networking.service off="NetworkManager.service systemd-networkd.service" ;;
        networkd) on=systemd-networkd.service off="NetworkManager.service networking.service" ;;
        nm) on=NetworkManager.service off="networking.service systemd-networkd.service" ;;
    esac
    for service in $UNITS_SERVICES; do
        case "$extra:$service" in
            firewalld:firewalld.service | ufw:ufw.service | docker:docker.* | docker:containerd.*) ;;
            *) off+=" $service" ;;
        esac
    done
    # shellcheck disable=SC2086 # unit lists are words
    systemctl --root="$tree" disable -q $off || fail "cannot disable $off"
    systemctl --root="$tree" enable -q "$on" || fail "cannot enable $on"
    case $extra in
        dkms)
            # A module build that must finish before any network comes up.
            units_unit "$tree" dkms multi-user.target 'Before=network-pre.target' 'Wants=network-pre.target' ;;
        after-final) units_unit "$tree" after-final cloud-init.target 'After=cloud-final.service' ;;
        after-target) units_unit "$tree" after-target cloud-init.target 'After=cloud-init.target' ;;
        after-config) units_unit "$tree" after-config cloud-init.target 'After=cloud-config.service' ;;
        cycle) units_unit "$tree" control-cycle multi-user.target 'After=ember-final.service' 'Before=ember-init.service' ;;
        missing) units_unit "$tree" control-missing multi-user.target 'Requires=ember-not-installed.service' ;;
    esac
    mkdir -p "$tree/run/systemd/system"
    if [ "$mode" = initramfs ]; then
        mkdir -p "$tree/run/ember"
        echo '{}' >"$tree/run/ember/status.json"
        echo '{}' >"$tree/run/ember/handoff.json"
    fi
    # Where cloud-init is installed, its generator enables cloud-init.target on a boot its
    # ds-identify finds a datasource, as on every cloud ember serves.
    if [ -x "$tree/usr/lib/systemd/system-generators/cloud-init-generator" ]; then
        mkdir -p "$tree/run/systemd/system/multi-user.target.wants"
        ln -s /lib/systemd/system/cloud-init.target "$tree/run/systemd/system/multi-user.target.wants/"
    fi
    # verify --root reads no generator directories, so the generator's output goes where it
    # would rank the same: /run/systemd/system, next to /run/systemd/generator. Its late part
    # (cloud-init's stand-ins, linked only when no cloud-init unit exists) goes there too.
    gen=$tree/usr/lib/systemd/system-generators/ember-generator
    if [ -x "$gen" ]; then
        EMBER_GENERATOR_ROOT=$tree "$gen" "$tree/run/systemd/system" "$tree/run/systemd/generator.early" \
            "$tree/run/systemd/system" || fail "ember-generator failed in $mode/$stack/$extra"
    fi
    # Nor does it follow a link out of the unit directories within the root: the generator's
    # links to /usr/lib/ember/systemd become copies of what they point to, under the same name.
    for link in "$tree"/run/systemd/system/*; do
        [ -L "$link" ] || continue
        target=$(readlink "$link")
        [ "${target#/}" = "$target" ] || cp --remove-destination "$tree$target" "$link"
    done
    systemd-analyze verify --root="$tree" --man=no default.target >"$out" 2>&1 || true
    SYSTEMD_LOG_LEVEL=debug systemd-analyze verify --root="$tree" --man=no default.target >"$out.debug" 2>&1 || true
    # A dependency that is not there is only said at debug level, where the transaction leaves
    # it out; the jobs the transaction holds too.
    grep 'Cannot add dependency job' "$out.debug" >>"$out" || true
    sed -n 's|.*: Installed new job \([^/]*\)/start as .*|\1|p' "$out.debug" | LC_ALL=C sort -u >"$out.jobs"
    rm "$out.debug"
    sed -i '/^dracut-[a-z-]*\.service: Failed to open /d' "$out"
}

# units_wanted MODE EXTRA: the units an ember cell's boot must start: ember's stages
# (ember-local too when no initramfs stage ran), cloud-init's unit names (ember's stand-ins, or
# cloud-init's own beside ember), and the cell's own unit.
units_wanted() {
    local mode=$1 extra=$2
    echo ember-init.service ember-config.service ember-final.service ember-hostkeys.service
    [ "$mode" = initramfs ] || echo ember-local.service
    echo cloud-init-local.service cloud-init.service cloud-config.service cloud-final.service cloud-init.target
    case $extra in
        after-* | dkms) echo "$extra.service" ;;
        firewalld | ufw) echo "$extra.service" ;;
        docker) echo docker.service containerd.service ;;
    esac
}
