# A real Debian bookworm (systemd, udev, openssh-server) with ember and its units installed
# boots through the busybox initramfs from a NoCloud ISO seed: the seed's user logs in over ssh
# with the seed's key, sshd starts with the Ed25519 and ECDSA keys ember-initrd made and answers
# before the RSA key exists, which ember-hostkeys.service makes in the background and sshd then
# offers, `cloud-init status --wait` says done, no secret of the seed is in the journal or on the
# console, and the disk shows the provisioning after `sudo poweroff`.
# The root is debootstrapped once into the cache (lib/debian.sh).
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"

debian_required
stamp() { echo "debian-ssh: [$(($(date +%s) - case_start)) s] $*"; }
case_start=$(date +%s)
ensure_debian_root || fail "debootstrap failed (see the log)"
stamp "root cached at $DEBIAN_ROOT"

root=$CASE_DIR/root disk=$CASE_DIR/disk.img key=$CASE_DIR/id_ed25519
debian_image_root "$root" || fail "cannot prepare the image root"
debian_install_ember "$root"
# The booted system's early unit too, as install-into-root lays it out: the initramfs ran
# ember-initrd this boot, so ember-generator must leave ember-local.service disabled.
"$EMBER_REPO/initramfs/install-into-root" "$root" "$EMBER_INITRD" >/dev/null ||
    fail "install-into-root failed"
# cloud-init's unit names for units written for cloud-init (dist/README.md): ember-generator
# (installed above) links ember's stand-ins, as cloud-init is not installed. Two such units
# record when they ran: one `After=cloud-final.service` wanted by cloud-init.target, one
# `After=cloud-config.service` wanted by multi-user.target, the forms cloud-init's own
# documentation and images use.
compat_unit() { # NAME AFTER WANTED_BY
    mkdir -p "$root/etc/systemd/system/$3.wants"
    printf '%s\n' '[Unit]' "After=$2" '[Service]' 'Type=oneshot' 'RemainAfterExit=yes' \
        "ExecStart=/bin/sh -c 'cut -d\" \" -f1 /proc/uptime >/run/$1'" '[Install]' "WantedBy=$3" \
        >"$root/etc/systemd/system/$1.service"
    ln -s "/etc/systemd/system/$1.service" "$root/etc/systemd/system/$3.wants/$1.service"
}
compat_unit ember-test-after-final cloud-final.service cloud-init.target
compat_unit ember-test-after-config cloud-config.service multi-user.target
ssh-keygen -q -t ed25519 -N '' -C tester@ember-debian -f "$key" || fail "ssh-keygen failed"
debian_seed "$CASE_DIR/seed" "$key.pub"
make_iso_seed "$CASE_DIR/seed" "$CASE_DIR/seed.iso"
make_disk "$root" "$disk" 1024
rm -rf "$root"
stamp "image ready"

# QEMU runs in the background while the checks talk to the guest over ssh; its own time limit
# is the backstop, and a failing check stops it (its `timeout` passes the signal on).
port=$(free_port)
CONSOLE=$CASE_DIR/debian.console
WORK=$CASE_DIR boot debian --disk "$disk" --cdrom "$CASE_DIR/seed.iso" --ssh "$port" \
    --memory 1024 --append "root=/dev/vda1 rw" --timeout 240 &
vm=$!
trap 'pkill -TERM -P $vm 2>/dev/null' EXIT

known=$CASE_DIR/known_hosts
guest() {
    timeout 60 ssh -q -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile="$known" -i "$key" -p "$port" tester@127.0.0.1 "$@"
}

# Wait for the login (slirp accepts the TCP connection at once; sshd answers much later). The
# first login says the guest's time, and whether the RSA key existed yet.
deadline=$((SECONDS + 180))
# shellcheck disable=SC2016 # expanded in the guest
until first=$(guest 'echo "$(date +%s.%6N) $(test -e /etc/ssh/ssh_host_rsa_key && echo rsa || echo no-rsa)"' 2>/dev/null); do
    kill -0 $vm 2>/dev/null || fail "QEMU stopped before ssh answered"
    [ $SECONDS -lt $deadline ] || fail "no ssh login as tester within 180 s"
    sleep 2
done
read -r first_login rsa_at_login <<<"$first"
stamp "logged in over ssh (guest time $first_login, RSA key then: $rsa_at_login)"

# ed25519 and ecdsa (from the initramfs) are older than the ssh unit's start; rsa is newer: sshd
# started without it, and ember-hostkeys.service made it and reloaded sshd. Once that unit is
# done, each host key sshd offers is the one on the guest's disk.
# The reload may refuse a connection while sshd re-executes itself: a refused one is tried again.
# shellcheck disable=SC2016 # expanded in the guest
keys_script='for i in $(seq 50); do [ "$(systemctl show -P ActiveState ember-hostkeys.service)" = active ] && break; sleep 1; done
    for t in ed25519 ecdsa rsa; do
        echo "$t $(stat -c %.6Y /etc/ssh/ssh_host_${t}_key) $(cut -d" " -f2 /etc/ssh/ssh_host_${t}_key.pub)"
    done
    echo "sshd $(date -d "$(systemctl show -P InactiveExitTimestamp --timestamp=us+utc ssh.service)" +%s.%6N)"
    echo "hostkeys $(systemctl show -P ActiveState ember-hostkeys.service) $(systemctl show -P ExecMainStatus ember-hostkeys.service)"'
for try in 1 2 3 4; do
    guest "$keys_script" >"$CASE_DIR/guest-keys" && break
    [ $try -lt 4 ] || fail "cannot read the host keys in the guest"
    sleep 3
done
cat "$CASE_DIR/guest-keys"
grep -qx 'hostkeys active 0' "$CASE_DIR/guest-keys" || fail "ember-hostkeys.service did not finish well"
# Nothing waits for it: neither sshd nor multi-user.target, after which ember-final runs.
for unit in ssh.service multi-user.target ember-final.service; do
    after=$(guest "systemctl show -P After $unit") || fail "cannot read $unit's ordering"
    case " $after " in *" ember-hostkeys.service "*) fail "$unit is ordered after ember-hostkeys.service" ;; esac
done
sshd_start=$(awk '$1 == "sshd" { print $2 }' "$CASE_DIR/guest-keys")
[ -n "$sshd_start" ] || fail "no start time for ssh.service"
for type in ed25519 ecdsa rsa; do
    read -r _ mtime blob < <(grep "^$type " "$CASE_DIR/guest-keys")
    [ -n "${blob:-}" ] || fail "the guest has no $type host key"
    # sshd re-executes itself on the reload: a scan may meet it between its sockets.
    for _ in 1 2 3 4 5; do
        offered=$(ssh-keyscan -T 20 -t "$type" -p "$port" 127.0.0.1 2>/dev/null | awk '{ print $3 }')
        [ -z "$offered" ] || break
        sleep 2
    done
    [ "$offered" = "$blob" ] || fail "sshd offers another $type key than /etc/ssh/ssh_host_${type}_key.pub"
    if [ "$type" = rsa ]; then
        awk -v k="$mtime" -v s="$sshd_start" 'BEGIN { exit !(k > s) }' ||
            fail "the rsa host key ($mtime) is older than ssh.service's start ($sshd_start): sshd waited for it"
        echo "debian-ssh: sshd started at $sshd_start, first login at $first_login, rsa key made at $mtime"
    else
        awk -v k="$mtime" -v s="$sshd_start" 'BEGIN { exit !(k < s) }' ||
            fail "the $type host key ($mtime) is not older than ssh.service's start ($sshd_start)"
    fi
done
grep -q "$(awk '$1 == "ed25519" { print $3 }' "$CASE_DIR/guest-keys")" "$known" ||
    fail "the known_hosts entry is not the guest's ed25519 key"
stamp "host keys checked"

guest sudo cloud-init status --wait >"$CASE_DIR/status.out" 2>&1
rc=$?
cat "$CASE_DIR/status.out"
[ $rc -eq 0 ] || fail "cloud-init status --wait exited $rc: $(tr '\n' ' ' <"$CASE_DIR/status.out")"
grep -qx 'status: done' "$CASE_DIR/status.out" || fail "cloud-init status --wait did not say done"
guest 'hostname; systemctl is-active ember-init ember-config ember-final ember-hostkeys; sudo cloud-init status --long;
    systemctl --failed --no-legend' >"$CASE_DIR/guest-state" 2>&1
cat "$CASE_DIR/guest-state"
! grep -q 'unable to resolve host' "$CASE_DIR/guest-state" || fail "sudo cannot resolve the hostname"
[ "$(head -n1 "$CASE_DIR/guest-state")" = ember-debian ] || fail "the running hostname is not ember-debian"
[ "$(sed -n '2,5p' "$CASE_DIR/guest-state" | sort -u)" = active ] || fail "an ember unit is not active"
stamp "status done"

# An image with both: the initramfs provisioned, the booted system's ember-local never started.
guest 'systemctl show -P ActiveState ember-local.service; systemctl show -P ConditionResult ember-local.service
    test -e /run/systemd/generator/sysinit.target.wants/ember-local.service && echo linked' \
    >"$CASE_DIR/ember-local" 2>&1
cat "$CASE_DIR/ember-local"
[ "$(head -n1 "$CASE_DIR/ember-local")" = inactive ] || fail "ember-local.service ran after the initramfs's stages"
! grep -qx linked "$CASE_DIR/ember-local" || fail "ember-generator enabled ember-local after an initramfs stage"

# The units ordered on cloud-init's names started after ember's stage finished, by ember's own
# record (status.json's `finished`, CLOCK_BOOTTIME, which is CLOCK_MONOTONIC in a VM that never
# suspended) and by systemd's (the ember unit's exit before the test unit's start).
# shellcheck disable=SC2016 # expanded in the guest
guest 'for i in $(seq 60); do [ -e /run/ember-test-after-final ] && break; sleep 1; done
    for u in ember-test-after-final ember-test-after-config; do
        echo "$u $(cat /run/$u) $(systemctl show -P ExecMainStartTimestampMonotonic $u.service)"
    done
    for u in ember-final ember-config; do
        echo "$u - $(systemctl show -P ExecMainExitTimestampMonotonic $u.service)"
    done
    echo "active: $(systemctl is-active cloud-init.target cloud-final.service cloud-config.service | tr "\n" " ")"' \
    >"$CASE_DIR/compat-units" 2>&1 || fail "cannot read the cloud-init-ordered units' records"
guest 'sudo cat /run/ember/status.json' >"$CASE_DIR/ember-status.json" || fail "cannot read status.json"
cat "$CASE_DIR/compat-units"
grep -q '^active: active active active $' "$CASE_DIR/compat-units" ||
    fail "cloud-init.target, cloud-final.service or cloud-config.service is not active"
for pair in final:ember-test-after-final config:ember-test-after-config; do
    stage=${pair%%:*} unit=${pair#*:}
    read -r _ uptime started < <(grep "^$unit " "$CASE_DIR/compat-units")
    [ "${started:-0}" != 0 ] || fail "$unit did not run (no record)"
    read -r _ _ exited < <(grep "^ember-$stage " "$CASE_DIR/compat-units")
    finished=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stages"][sys.argv[2]]["finished"])' \
        "$CASE_DIR/ember-status.json" "$stage") || fail "status.json has no finished $stage stage"
    echo "debian-ssh: $unit started at ${started} us (uptime $uptime); ember's $stage stage finished at $finished s, its unit exited at $exited us"
    awk -v s="$started" -v f="$finished" -v e="$exited" 'BEGIN { exit !(s / 1e6 > f && s >= e) }' ||
        fail "$unit started before ember's $stage stage finished"
done
stamp "units ordered on cloud-init's names ran after ember's stages"

# The background keys' own record in status.json (no waiter waits for it): one step, ok; its
# time is ssh-keygen's for RSA under emulation, the time sshd no longer waits.
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["stages"]["hostkeys"]
assert s["state"] == "done" and [(t["name"], t["result"]) for t in s["steps"]] == [("hostkeys", "ok")], s
print("debian-ssh: ember-hostkeys made RSA in %.1f s, ending %.1f s after boot; the final stage finished at %.1f s"
      % (s["steps"][0]["duration_us"] / 1e6, s["finished"], json.load(open(sys.argv[1]))["stages"]["final"]["finished"]))' \
    "$CASE_DIR/ember-status.json" || fail "status.json has no good hostkeys record"

# Secrets (RELIABILITY rule 1): the seed's password and file content never reach the journal
# or the console; the journal is the whole boot's and holds ember's units (so it was read).
guest 'sudo journalctl -b --no-pager' >"$CASE_DIR/journal.txt" 2>&1 || fail "cannot read the journal"
grep -q 'ember-final' "$CASE_DIR/journal.txt" || fail "the journal has no ember-final lines"
grep -q 'ember: sshd reloaded to offer the new host keys' "$CASE_DIR/journal.txt" ||
    fail "ember-hostkeys did not reload sshd"
! grep -qi 'ordering cycle' "$CASE_DIR/journal.txt" || fail "systemd found an ordering cycle (see the journal)"
for secret in ember-pw-marker-51c9 ember-secret-marker-7f3a; do
    ! grep -qF "$secret" "$CASE_DIR/journal.txt" || fail "a secret of the seed is in the journal"
    ! grep -qF "$secret" "$CONSOLE" || fail "a secret of the seed is on the console"
done
stamp "no secret in the journal or on the console"

rc=0
guest_poweroff $vm || rc=$?
trap - EXIT
[ $rc -ne 124 ] || fail "no power-off within the time limit"
stamp "powered off"

grep -q 'ember-initramfs: .* ember done' "$CONSOLE" || fail "the initramfs did not run ember"
console_lacks 'Failed to start .*ember'
# The RSA key's fingerprint on the console, as keys_to_console prints the others.
rsa_fp=$(printf 'ssh-rsa %s\n' "$(awk '$1 == "rsa" { print $3 }' "$CASE_DIR/guest-keys")" | ssh-keygen -lf - | awk '{ print $2 }')
grep -qF "$rsa_fp" "$CONSOLE" || fail "the RSA host key's fingerprint ($rsa_fp) is not on the console"
file_is "$disk" /etc/hostname ember-debian
file_has "$disk" /etc/hosts '^127\.0\.1\.1[[:space:]]+ember-debian'
# A fixed string: base64 has `+`, which a regular expression would read as a repeat.
disk_cat "$disk" /home/tester/.ssh/authorized_keys | grep -qF "$(cut -d' ' -f2 "$key.pub")" ||
    fail "authorized_keys lacks the seed's key"
mode_is "$disk" /home/tester/.ssh/authorized_keys 600
file_has "$disk" /etc/sudoers.d/90-cloud-init-users '^tester ALL=\(ALL\) NOPASSWD:ALL'
file_is "$disk" /var/log/ember-test-runcmd instance
file_is "$disk" /etc/ember-test-secret ember-secret-marker-7f3a
mode_is "$disk" /etc/ember-test-secret 600
file_has "$disk" /etc/shadow '^tester:\$6\$'

# The login came over the network ember rendered: networkd's only config is ember's fallback.
file_has "$disk" /etc/systemd/network/10-cloud-init-eth0.network '^MACAddress=52:54:00:12:34:56$'
file_has "$disk" /etc/systemd/network/10-cloud-init-eth0.network '^DHCP=ipv4$'

disk_exists "$disk" /var/lib/cloud/instance/boot-finished || fail "no boot-finished"
[ "$(disk_cat "$disk" /etc/ssh/ssh_host_ed25519_key.pub | cut -d' ' -f2)" = \
    "$(awk '$1 == "ed25519" { print $3 }' "$CASE_DIR/guest-keys")" ] ||
    fail "the ed25519 key on the disk is not the one the guest showed"
