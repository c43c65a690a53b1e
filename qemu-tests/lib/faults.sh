# shellcheck shell=bash
# The boot matrix's fault cells (issue 37): the Debian root with ember, booted through ember's
# initramfs as an EC2 instance whose metadata service fails in one way, timed from the host as
# an image pipeline sees it: when port 22 answers, and what a Packer-style waiter gets (an ssh
# login as soon as sshd answers, then `cloud-init status --wait`: its exit code, its word and
# when it returned). Loaded after common.sh, checks.sh and debian.sh; needs root.

# fault_image: FAULT_DISK and FAULT_KEY, the Debian image with ember installed as debian-ssh
# installs it, and a login of the image's own (user `packer` with FAULT_KEY, password-less
# sudo), as an image builder's template has: the waiter logs in whether or not ember
# provisioned anything.
fault_image() {
    local root=$CASE_DIR/root
    FAULT_KEY=$CASE_DIR/id_ed25519 FAULT_DISK=$CASE_DIR/disk.img
    debian_image_root "$root" || fail "cannot prepare the image root"
    debian_install_ember "$root"
    "$EMBER_REPO/initramfs/install-into-root" "$root" "$EMBER_INITRD" >/dev/null || fail "install-into-root failed"
    ssh-keygen -q -t ed25519 -N '' -C packer@ember-faults -f "$FAULT_KEY" || fail "ssh-keygen failed"
    chroot "$root" useradd -m -s /bin/bash packer || fail "useradd failed"
    install -d -m 0700 "$root/home/packer/.ssh"
    install -m 0600 "$FAULT_KEY.pub" "$root/home/packer/.ssh/authorized_keys"
    chroot "$root" chown -R packer: /home/packer/.ssh
    echo 'packer ALL=(ALL) NOPASSWD:ALL' >"$root/etc/sudoers.d/packer"
    make_disk "$root" "$FAULT_DISK" 1024
    rm -rf "$root"
}

# fault_service FAULT: FAULT_PORT, the loopback port the guest's 169.254.169.254:80 reaches:
# the EC2 emulator (none), a port nothing listens on (down), or fault-server.py (5xx, hang).
# FAULT_PID is the server's, if any.
fault_service() {
    FAULT_PID=""
    case $1 in
        none) serve_imds ec2; FAULT_PORT=$IMDS_PORT FAULT_PID=$IMDS_PID ;;
        down) FAULT_PORT=$(free_port) ;;
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

# fault_ssh PORT COMMAND…: COMMAND on the guest as packer.
fault_ssh() {
    local port=$1
    shift
    timeout 120 ssh -q -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -i "$FAULT_KEY" -p "$port" packer@127.0.0.1 "$@"
}

# fault_cell FAULT BOUND EXIT: boots FAULT_DISK under FAULT and appends its row to CASE_DIR/table:
# the fault, `cloud-init status --wait`'s word and exit code, the seconds from QEMU's start to
# port 22 answering and to the waiter's return, and the jobs still queued then (listed in
# CASE_DIR/FAULT.jobs). Fails the
# case when the waiter does not return by BOUND seconds with exit code EXIT, or port 22 never
# answers.
fault_cell() {
    local fault=$1 bound=$2 want=$3 ssh_port vm started now port22="" waited="" out rc jobs disk
    disk=$CASE_DIR/disk-$fault.img
    cp --sparse=always "$FAULT_DISK" "$disk"
    fault_service "$fault"
    ssh_port=$(free_port)
    started=$SECONDS
    WORK=$CASE_DIR boot "$fault" --disk "$disk" --net "$FAULT_PORT" --ssh "$ssh_port" \
        --mac 0e:49:61:0f:c3:11 --smbios "type=1,manufacturer=Amazon EC2,product=t3.micro" \
        --memory 1024 --append "root=/dev/vda1 rw" --timeout $((bound + 120)) &
    vm=$!
    # A failing check stops the VM (its `timeout` passes the signal on) and the service.
    # shellcheck disable=SC2064 # the PIDs are this cell's
    trap "pkill -TERM -P $vm 2>/dev/null; ${FAULT_PID:+kill $FAULT_PID 2>/dev/null}" EXIT
    # Port 22 answers when sshd sends its banner (slirp accepts the connection at once).
    until [ -n "$port22" ]; do
        now=$((SECONDS - started))
        kill -0 $vm 2>/dev/null || fail "$fault: QEMU stopped before port 22 answered"
        [ $now -lt "$bound" ] || fail "$fault: port 22 did not answer within $bound s"
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
        [ $((SECONDS - started)) -lt "$bound" ] || fail "$fault: no ssh login within $bound s: $out"
        sleep 1
    done
    rc=0
    out=$(fault_ssh "$ssh_port" cloud-init status --wait 2>&1) || rc=$?
    waited=$((SECONDS - started))
    echo "$out" >"$CASE_DIR/$fault.status"
    fault_ssh "$ssh_port" 'systemctl list-jobs --no-legend' >"$CASE_DIR/$fault.jobs" 2>&1 || true
    jobs=$(wc -l <"$CASE_DIR/$fault.jobs")
    fault_ssh "$ssh_port" 'cloud-init status --long; systemctl --failed --no-legend' \
        >>"$CASE_DIR/$fault.status" 2>&1 || true
    fault_ssh "$ssh_port" sudo poweroff 2>/dev/null || true
    wait $vm 2>/dev/null || true
    trap - EXIT
    [ -z "$FAULT_PID" ] || kill "$FAULT_PID" 2>/dev/null || true
    rm -f "$disk"
    printf '%-8s %-16s %-4s %-10s %-12s %s\n' "$fault" \
        "$(sed -n 's/^status: //p' "$CASE_DIR/$fault.status" | head -n 1)" "$rc" "$port22" "$waited" "$jobs" \
        >>"$CASE_DIR/table"
    [ "$waited" -le "$bound" ] || fail "$fault: cloud-init status --wait returned after $waited s (bound $bound s)"
    [ "$rc" = "$want" ] || fail "$fault: cloud-init status --wait exited $rc, not $want: $out"
}
