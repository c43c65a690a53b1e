# An LXD container, as far as a container here can be one: the cached Debian root boots with
# `systemd-nspawn -b` (lib/nspawn.sh) with the tests' devlxd emulator (examples/imds.rs lxd,
# the cargo tests' code) bind-mounted at /dev/lxd/sock and no seed of any other kind. ember's
# early unit finds the socket, reads the instance over it (meta-data, the config keys, the
# devices) and provisions: hostname c1 from the meta-data, the write_files of
# cloud-init.user-data (not of its older user.user-data twin), LXD's fallback network config
# for eth0; `cloud-init status --wait` says done and instance data has LXD's keys.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/nspawn.sh
. "$EMBER_REPO/qemu-tests/lib/nspawn.sh"

why=$(nspawn_unavailable)
if [ -n "$why" ]; then
    [ -z "${CI:-}" ] || fail "the nspawn-lxd case cannot run: $why"
    skip "$why"
fi
stamp() { echo "nspawn-lxd: [$(($(date +%s) - case_start)) s] $*"; }
case_start=$(date +%s)
ensure_debian_root || fail "debootstrap failed (see the log)"
root=$CASE_DIR/root
nspawn_root "$root"
stamp "root ready"

# The emulator on a socket of the case's own; it stops with the case.
imds=${CARGO_TARGET_DIR:-$EMBER_REPO/target}/debug/examples/imds
(cd "$EMBER_REPO" && cargo build -q --example imds) || fail "cannot build the imds emulator"
sock=$CASE_DIR/lxd.sock
"$imds" lxd "$sock" --log "$CASE_DIR/lxd.requests" >"$CASE_DIR/imds.out" 2>"$CASE_DIR/imds.log" &
imds_pid=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || fail "the devlxd emulator did not start"

boot_nspawn lxd "$root" --bind="$sock:/dev/lxd/sock"
trap 'stop_nspawn; kill $imds_pid 2>/dev/null' EXIT
stamp "container booted"

# Exit 2: done with a recoverable error, the fixture's user.user-data losing to its
# cloud-init.* twin (cloud-init 26 warns the same); status.json is checked below.
in_container cloud-init status --wait >"$CASE_DIR/status.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "cloud-init status --wait exited $rc, not 2: $(tr '\n' ' ' <"$CASE_DIR/status.out")"
grep -qx 'status: done' "$CASE_DIR/status.out" || fail "cloud-init status --wait did not say done"
# shellcheck disable=SC2016 # expanded in the container
in_container sh -c 'hostname; stat -c "%a" /etc/lxd-secret; cat /etc/lxd-secret; echo
    test -e /etc/lxd-old && echo old-applied
    cat /etc/systemd/network/*.network
    cloud-init query v1.platform' \
    >"$CASE_DIR/state" 2>&1
cat "$CASE_DIR/state"
[ "$(sed -n 1p "$CASE_DIR/state")" = c1 ] || fail "the hostname is not the meta-data's c1"
[ "$(sed -n 2p "$CASE_DIR/state")" = 600 ] || fail "/etc/lxd-secret is not 0600"
[ "$(sed -n 3p "$CASE_DIR/state")" = lxd-user-data-secret-91ac ] || fail "cloud-init.user-data not applied"
! grep -q old-applied "$CASE_DIR/state" || fail "user.user-data was applied over cloud-init.user-data"
if ! grep -q '^Name=eth0' "$CASE_DIR/state" || ! grep -q '^DHCP=ipv4' "$CASE_DIR/state"; then
    fail "no LXD fallback network config for eth0"
fi
grep -qx lxd "$CASE_DIR/state" || fail "v1.platform is not lxd"
in_container cat /run/ember/status.json >"$CASE_DIR/status.json" || fail "no status.json"
python3 - "$CASE_DIR/status.json" <<'PY' || fail "status.json: not LXD, a stage not done, or an unexpected diagnostic"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["datasource"] == "lxd", s["datasource"]
codes = []
for name, stage in s["stages"].items():
    assert stage["state"] == "done", (name, stage)
    codes += [d["code"] for d in stage["errors"] + stage["recoverable_errors"]]
assert codes == ["duplicate-key"], codes
PY
# Every request the emulator got, in order: ember-local's only.
printf '%s\n' 'GET /1.0/meta-data' 'GET /1.0/config' 'GET /1.0/config/cloud-init.user-data' \
    'GET /1.0/config/cloud-init.vendor-data' 'GET /1.0/config/user.role' \
    'GET /1.0/config/user.user-data' 'GET /1.0/devices' >"$CASE_DIR/lxd.expected"
diff -u "$CASE_DIR/lxd.expected" "$CASE_DIR/lxd.requests" || fail "the emulator saw other requests"
! grep -q -e lxd-user-data-secret-91ac -e lxd-vendor-marker-44b1 "$CONSOLE" ||
    fail "a secret is on the console"
stamp "provisioning checked"
