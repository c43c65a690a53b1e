# shellcheck shell=bash
# The boot matrix's fault cells (issue 37): the Debian root with ember, booted through ember's
# initramfs as an EC2 instance whose metadata service fails in one way, timed from the host as
# an image pipeline sees it: when port 22 answers, and what a Packer-style waiter gets (an ssh
# login as soon as sshd answers, then `cloud-init status --wait`: its exit code, its word and
# when it returned). Loaded after common.sh, checks.sh and debian.sh; needs root.

# The stacks a cell's image may have: systemd-networkd (debian.sh's root), Debian's ifupdown
# with its DHCP client, NetworkManager, or systemd-networkd with Debian's cloud-init installed
# and ember's package beside it (dist/README.md's "When cloud-init is installed too").
# shellcheck disable=SC2034 # read by scripts/boot-matrix
FAULT_STACKS="networkd ifupdown nm beside"

# fault_image STACK: FAULT_DISK (the STACK's image, made once per case) and FAULT_KEY: the
# Debian image with the STACK's network, ember installed (as debian-ssh installs it; with
# `dpkg -i` of the ember package alone beside cloud-init), ember's initramfs, and a login of
# the image's own (user `packer` with FAULT_KEY, password-less sudo), as an image builder's
# template has: the waiter logs in whether or not ember provisioned anything.
fault_image() {
    local stack=$1 root=$CASE_DIR/root src=""
    FAULT_KEY=$CASE_DIR/id_ed25519 FAULT_DISK=$CASE_DIR/disk-$stack.img
    [ -f "$FAULT_DISK" ] && return 0
    case $stack in
        networkd) ;;
        ifupdown) debian_variant ifupdown "$DEBIAN_ROOT" "ifupdown isc-dhcp-client" || fail "cannot install ifupdown" ;;
        nm) debian_variant nm "$DEBIAN_ROOT" network-manager || fail "cannot install network-manager" ;;
        beside) ensure_debian_cloud_init_root || fail "cannot install cloud-init"; PACKAGE_ROOT=$DEBIAN_CI_ROOT ;;
        *) fail "no stack $stack" ;;
    esac
    [ $stack = networkd ] || src=$PACKAGE_ROOT
    debian_image_root "$root" "$src" || fail "cannot prepare the image root"
    if [ $stack = beside ]; then
        package_debs
        package_install "$root" ember
        # As dist/README.md tells images that keep cloud-init: its generator must not disable
        # it on boots ember provisioned (its `status` would say disabled).
        echo 'policy: enabled' >"$root/etc/cloud/ds-identify.cfg"
    else
        debian_install_ember "$root"
    fi
    # debian.sh's root runs systemd-networkd; the other stacks are the image's only one.
    case $stack in
        ifupdown | nm) chroot "$root" systemctl disable -q systemd-networkd.service || fail "cannot disable networkd" ;;
    esac
    "$EMBER_REPO/initramfs/install-into-root" "$root" "$EMBER_INITRD" >/dev/null || fail "install-into-root failed"
    [ -f "$FAULT_KEY" ] || ssh-keygen -q -t ed25519 -N '' -C packer@ember-faults -f "$FAULT_KEY" || fail "ssh-keygen failed"
    chroot "$root" useradd -m -s /bin/bash packer || fail "useradd failed"
    install -d -m 0700 "$root/home/packer/.ssh"
    install -m 0600 "$FAULT_KEY.pub" "$root/home/packer/.ssh/authorized_keys"
    chroot "$root" chown -R packer: /home/packer/.ssh
    echo 'packer ALL=(ALL) NOPASSWD:ALL' >"$root/etc/sudoers.d/packer"
    fault_ordered_units "$root"
    make_disk "$root" "$FAULT_DISK" 1024
    rm -rf "$root"
}

# fault_ordered_units ROOT: two units written for cloud-init as its documentation says
# (WantedBy=cloud-init.target), one After=cloud-final.service and one After=cloud-config.service;
# each records what systemd says of ember's matching stage when it starts, in
# /run/ember-order/ (it must be over: "active", as a oneshot that remains).
fault_ordered_units() {
    local unit after stage
    mkdir -p "$1/etc/systemd/system/cloud-init.target.wants"
    for unit in after-final:cloud-final:ember-final after-config:cloud-config:ember-config; do
        IFS=: read -r unit after stage <<<"$unit"
        cat >"$1/etc/systemd/system/$unit.service" <<UNIT
[Unit]
Description=issue 37: a unit ordered After=$after.service
After=$after.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /run/ember-order; systemctl is-active $stage.service >/run/ember-order/$unit'

[Install]
WantedBy=cloud-init.target
UNIT
        ln -sf "/etc/systemd/system/$unit.service" "$1/etc/systemd/system/cloud-init.target.wants/$unit.service"
    done
}

# fault_checks CELL PORT: what the waiter's answer does not show. Units ordered after cloud-init's
# config and final stages ran after ember's; beside cloud-init, cloud-init's own stages stood
# down (their condition failed: ember provisioned this boot, nothing twice); elsewhere `status
# --format json` has cloud-init's keys and says what `status` said.
fault_checks() {
    local cell=$1 port=$2 order="" unit json
    for _ in $(seq 30); do
        order=$(fault_ssh "$port" 'cat /run/ember-order/after-config /run/ember-order/after-final 2>/dev/null' | tr '\n' ' ')
        [ "$order" = "active active " ] && break
        sleep 1
    done
    [ "$order" = "active active " ] || fail "$cell: units after cloud-config and cloud-final saw ember's stages as: ${order:-nothing}"
    if [ "${cell%/*}" = beside ]; then
        for unit in cloud-init-local cloud-init cloud-config cloud-final; do
            [ "$(fault_ssh "$port" systemctl show -p ConditionResult --value $unit.service)" = no ] ||
                fail "$cell: cloud-init's $unit.service ran on a boot ember provisioned"
        done
        return
    fi
    json=$(fault_ssh "$port" cloud-init status --format json) || true
    python3 -c '
import json, sys
doc = json.loads(sys.argv[1])
missing = {"status", "extended_status", "boot_status_code", "datasource", "detail", "errors",
           "recoverable_errors", "last_update"} - doc.keys()
assert not missing, f"missing {sorted(missing)}"
assert doc["status"] == "done", doc["status"]
degraded = doc["extended_status"] == "degraded done"
assert degraded == bool(doc["recoverable_errors"]), doc["extended_status"]
' "$json" 2>"$CASE_DIR/json-check.err" || fail "$cell: status --format json: $(tail -n 1 "$CASE_DIR/json-check.err")"
}

# The faults: the metadata service is fine (none), refuses (down), answers 503 (5xx) or never
# answers (hang); the first NIC has no carrier and the service is on the second (nocarrier);
# the seed is a NoCloud URL by name and the DNS server never answers (dns); the seed is a
# NoCloud CD whose medium is taken out while ember reads it (vanish).
# shellcheck disable=SC2034 # read by scripts/boot-matrix
FAULT_KINDS="none down 5xx hang nocarrier dns vanish"

# fault_service FAULT: FAULT_PORT, the loopback port the guest's 169.254.169.254:80 reaches:
# the EC2 emulator as QEMU's network can serve it (none, nocarrier: one NIC, IPv4 only), a port nothing listens on (down, dns), or fault-server.py
# (5xx, hang). FAULT_PID is the server's, if any.
fault_service() {
    FAULT_PID=""
    case $1 in
        none | nocarrier) serve_imds ec2-qemu; FAULT_PORT=$IMDS_PORT FAULT_PID=$IMDS_PID ;;
        down | dns | vanish) FAULT_PORT=$(free_port) ;;
        5xx | hang)
            python3 "$EMBER_REPO/qemu-tests/lib/fault-server.py" "$1" >"$CASE_DIR/fault.port" &
            FAULT_PID=$!
            for _ in $(seq 50); do [ -s "$CASE_DIR/fault.port" ] && break; sleep 0.1; done
            FAULT_PORT=$(head -n 1 "$CASE_DIR/fault.port")
            [ -n "$FAULT_PORT" ] || fail "fault-server.py $1 did not start"
            ;;
        *) fail "no fault $1" ;;
    esac
}

# fault_ssh PORT COMMAND…: COMMAND on the guest as packer (a refused connection is tried
# again: ssh_retry).
fault_ssh() {
    local port=$1
    shift
    ssh_retry timeout 120 ssh -q -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -i "$FAULT_KEY" -p "$port" packer@127.0.0.1 "$@"
}

# fault_want CELL: the exit code cloud-init's waiter must get in CELL (STACK/FAULT): 0 when the
# metadata arrived, 2 (degraded: None stood in) when it did not. Beside Debian's cloud-init
# 22.4 its own `status` answers, and it has no degraded state: 0.
fault_want() {
    case $1 in
        beside/*) echo 0 ;;
        */none | */nocarrier) echo 0 ;;
        *) echo 2 ;;
    esac
}

# fault_cell CELL BOUND EXIT: boots the image of CELL's stack (STACK/FAULT) under FAULT and
# appends its row to CASE_DIR/table: the cell, `cloud-init status --wait`'s word and exit code,
# the seconds from QEMU's start to port 22 answering and to the waiter's return, and the jobs
# still queued then (listed in CASE_DIR/NAME.jobs, NAME the cell with - for /). Fails the
# case when the waiter does not return by BOUND seconds with exit code EXIT, or port 22 never
# answers.
fault_cell() {
    local cell=$1 bound=$2 want=$3 ssh_port vm started now port22="" waited="" out rc jobs disk
    local stack=${1%/*} fault=${1#*/} name=${1//\//-} args=()
    fault_image "$stack"
    disk=$CASE_DIR/disk-$name.img
    cp --sparse=always "$FAULT_DISK" "$disk"
    fault_service "$fault"
    case $fault in
        nocarrier) args=(--dead-nic) ;;
        # No EC2 evidence: the seed URL on the command line is the datasource. Its name server
        # (`nameserver=`) is an address of the guest's network that nothing answers at
        # (silence, as a DNS server that is down or firewalled).
        dns) args=(--smbios "type=1,manufacturer=QEMU"
            --append "root=/dev/vda1 rw ds=nocloud;s=http://seed.ember.test/ nameserver=169.254.169.53") ;;
        vanish)
            # A user-data of 400 KB: 25 s to read at the CD's 16 KiB/s, so the medium goes
            # in the middle of it.
            mkdir -p "$CASE_DIR/vanish-seed"
            echo 'instance-id: iid-vanish' >"$CASE_DIR/vanish-seed/meta-data"
            { echo '#cloud-config'; printf '# a long comment line that pads the user-data out%.0s\n' $(seq 8000); } \
                >"$CASE_DIR/vanish-seed/user-data"
            make_iso_seed "$CASE_DIR/vanish-seed" "$CASE_DIR/vanish.iso"
            args=(--vanishing-cdrom "$CASE_DIR/vanish.iso" --smbios "type=1,manufacturer=QEMU"
                --append "root=/dev/vda1 rw")
            ;;
    esac
    case $fault in dns | vanish) ;; *) args+=(--smbios "type=1,manufacturer=Amazon EC2,product=t3.micro" --append "root=/dev/vda1 rw") ;; esac
    ssh_port=$(free_port)
    started=$SECONDS
    WORK=$CASE_DIR boot "$name" --disk "$disk" --net "$FAULT_PORT" --ssh "$ssh_port" \
        --mac 0e:49:61:0f:c3:11 --memory 1024 "${args[@]}" --timeout $((bound + 120)) &
    vm=$!
    # A failing check stops the VM (its `timeout` passes the signal on) and the service.
    # shellcheck disable=SC2064 # the PIDs are this cell's
    trap "pkill -TERM -P $vm 2>/dev/null; ${FAULT_PID:+kill $FAULT_PID 2>/dev/null}" EXIT
    # Port 22 answers when sshd sends its banner (slirp accepts the connection at once).
    until [ -n "$port22" ]; do
        now=$((SECONDS - started))
        kill -0 $vm 2>/dev/null || fail "$cell: QEMU stopped before port 22 answered"
        [ $now -lt "$bound" ] || fail "$cell: port 22 did not answer within $bound s"
        # shellcheck disable=SC2016 # expanded by the inner shell
        if timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && head -c 4 <&3' sh "$ssh_port" 2>/dev/null |
            grep -q '^SSH-'; then
            port22=$now
        else
            sleep 1
        fi
    done
    # The waiter, as Packer runs it: log in as soon as sshd lets us, then wait.
    until out=$(fault_ssh "$ssh_port" true 2>&1); do
        [ $((SECONDS - started)) -lt "$bound" ] || fail "$cell: no ssh login within $bound s: $out"
        sleep 1
    done
    rc=0
    out=$(fault_ssh "$ssh_port" cloud-init status --wait 2>&1) || rc=$?
    waited=$((SECONDS - started))
    echo "$out" >"$CASE_DIR/$name.status"
    fault_ssh "$ssh_port" 'systemctl list-jobs --no-legend' >"$CASE_DIR/$name.jobs" 2>&1 || true
    jobs=$(wc -l <"$CASE_DIR/$name.jobs")
    fault_ssh "$ssh_port" 'cloud-init status --long; systemctl --failed --no-legend' \
        >>"$CASE_DIR/$name.status" 2>&1 || true
    fault_checks "$cell" "$ssh_port"
    # As debian.sh's guest_poweroff: an attempt can meet sshd re-executing itself (ember-hostkeys
    # reloads it) and never arrive.
    for _ in 1 2 3; do
        SSH_TRIES=1 fault_ssh "$ssh_port" sudo poweroff 2>/dev/null || true
        for _ in $(seq 30); do
            kill -0 $vm 2>/dev/null || break 2
            sleep 1
        done
    done
    wait $vm 2>/dev/null || true
    trap - EXIT
    [ -z "$FAULT_PID" ] || kill "$FAULT_PID" 2>/dev/null || true
    rm -f "$disk"
    printf '%-18s %-16s %-4s %-10s %-12s %s\n' "$cell" \
        "$(sed -n 's/^status: //p' "$CASE_DIR/$name.status" | head -n 1)" "$rc" "$port22" "$waited" "$jobs" \
        >>"$CASE_DIR/table"
    [ "$waited" -le "$bound" ] || fail "$cell: cloud-init status --wait returned after $waited s (bound $bound s)"
    [ "$rc" = "$want" ] || fail "$cell: cloud-init status --wait exited $rc, not $want: $out"
}
