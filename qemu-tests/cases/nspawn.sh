# A machine with no initramfs: the cached Debian bookworm root boots as a container with
# `systemd-nspawn -b` (no QEMU), with ember installed as an image builder would
# (initramfs/install-into-root: ember-initrd, ember-local.service, ember-generator; and the
# runner's units). With no ember stage in an initramfs, the generator enables
# ember-local.service, which runs detect, fetch and local in the booted system from the NoCloud
# seed directory /var/lib/cloud/seed/nocloud, before networkd and sshd. The checks enter the
# container (nsenter: this host's init is not systemd, so machinectl and `systemd-run -M` have
# no machined to ask), log in as the seed's user with `su -`, and run `cloud-init status
# --wait`: hostname, user, write_files, runcmd, status done; KERNEL_CMDLINE given to the
# container's init (`--setenv`) is what ember read; no secret in the console or journal. A
# second boot of the same root provisions nothing again.
# No network: --private-network (the container has only its own loopback).
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/nspawn.sh
. "$EMBER_REPO/qemu-tests/lib/nspawn.sh"

why=$(nspawn_unavailable)
if [ -n "$why" ]; then
    [ -z "${CI:-}" ] || fail "the nspawn case cannot run: $why"
    skip "$why"
fi
stamp() { echo "nspawn: [$(($(date +%s) - case_start)) s] $*"; }
case_start=$(date +%s)
ensure_debian_root || fail "debootstrap failed (see the log)"

root=$CASE_DIR/root key=$CASE_DIR/id_ed25519
nspawn_root "$root"
ssh-keygen -q -t ed25519 -N '' -C tester@ember-debian -f "$key" || fail "ssh-keygen failed"
debian_seed "$root/var/lib/cloud/seed/nocloud" "$key.pub"
stamp "root ready"

kcmd="ro cc: final_message: ember-kc-marker-5d2e end_cc"
boot_nspawn first "$root" --setenv=KERNEL_CMDLINE="$kcmd"
stamp "container booted"

# Log in as the seed's user (a login shell, PAM's su) and wait as cloud-init users do.
in_container su - tester -c 'sudo cloud-init status --wait' >"$CASE_DIR/status.out" 2>&1
rc=$?
cat "$CASE_DIR/status.out"
[ $rc -eq 0 ] || fail "cloud-init status --wait exited $rc: $(tr '\n' ' ' <"$CASE_DIR/status.out")"
grep -qx 'status: done' "$CASE_DIR/status.out" || fail "cloud-init status --wait did not say done"
stamp "status done"

# shellcheck disable=SC2016 # expanded in the container
in_container sh -c 'hostname; id -un tester; stat -c "%a %U" /etc/ember-test-secret
    cat /etc/ember-test-secret; echo; cat /var/log/ember-test-runcmd
    systemctl is-active ember-local ember-init ember-config ember-final cloud-init-local
    for u in ember-local systemd-networkd ssh; do
        echo "$u $(systemctl show -P ExecMainExitTimestampMonotonic $u.service) $(systemctl show -P ExecMainStartTimestampMonotonic $u.service)"
    done
    systemctl --failed --no-legend --plain
    echo "journal-secrets: $(journalctl -b -o cat | grep -c -e ember-secret-marker -e ember-pw-marker)"' \
    >"$CASE_DIR/state" 2>&1
cat "$CASE_DIR/state"
line() { sed -n "${1}p" "$CASE_DIR/state"; }
[ "$(line 1)" = ember-debian ] || fail "the running hostname is $(line 1), not ember-debian"
[ "$(line 2)" = tester ] || fail "the seed's user tester was not made"
[ "$(line 3)" = "600 root" ] || fail "write_files: /etc/ember-test-secret is $(line 3), not 600 root"
[ "$(line 4)" = ember-secret-marker-7f3a ] || fail "write_files: wrong content"
[ "$(line 5)" = instance ] || fail "runcmd's marker is '$(line 5)'"
[ "$(sed -n '6,10p' "$CASE_DIR/state" | sort -u)" = active ] ||
    fail "ember-local, the runner's units or the cloud-init-local stand-in is not active"
read -r _ local_exit _ < <(grep '^ember-local ' "$CASE_DIR/state")
for unit in systemd-networkd ssh; do
    read -r _ _ started < <(grep "^$unit " "$CASE_DIR/state")
    [ "${started:-0}" != 0 ] || fail "$unit did not start"
    if [ "${local_exit:-0}" = 0 ] || [ "$local_exit" -gt "$started" ]; then
        fail "$unit started ($started us) before ember-local.service finished (${local_exit:-never} us)"
    fi
done
grep -q '^journal-secrets: 0$' "$CASE_DIR/state" || fail "a secret of the seed is in the journal"
! grep -q -e ember-secret-marker -e ember-pw-marker "$CONSOLE" || fail "a secret of the seed is on the console"
stamp "provisioning checked"

# What ember read as the command line: KERNEL_CMDLINE given to the container's init, whose
# `cc:` cloud-config set final_message (the seed's user-data has none).
in_container journalctl -b -o cat -u ember-final >"$CASE_DIR/final.journal" 2>&1
grep -q ember-kc-marker-5d2e "$CASE_DIR/final.journal" ||
    fail "the final message from KERNEL_CMDLINE's cc: is not in ember-final's journal"
in_container cat /run/ember/status.json >"$CASE_DIR/status.json" || fail "no /run/ember/status.json"
python3 - "$CASE_DIR/status.json" <<'PY' || fail "status.json: not NoCloud, or a stage not done"
import json, sys
s = json.load(open(sys.argv[1]))
assert s.get("datasource", "").lower().startswith("nocloud"), s.get("datasource")
for stage in ("detect", "fetch", "local", "config", "final"):
    assert s["stages"][stage]["state"] == "done", (stage, s["stages"][stage])
PY
stop_nspawn
stamp "first boot done"

# The second boot of the same instance: the initramfs-less path again, nothing provisioned
# twice (runcmd ran once), and status done again.
boot_nspawn second "$root" --setenv=KERNEL_CMDLINE="$kcmd"
in_container cloud-init status --wait >"$CASE_DIR/status2.out" 2>&1 ||
    fail "second boot: cloud-init status --wait failed: $(tr '\n' ' ' <"$CASE_DIR/status2.out")"
in_container cat /var/log/ember-test-runcmd >"$CASE_DIR/runcmd2"
[ "$(cat "$CASE_DIR/runcmd2")" = instance ] || fail "second boot: runcmd ran again"
stop_nspawn
stamp "second boot done"
