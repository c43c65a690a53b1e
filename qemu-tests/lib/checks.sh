# shellcheck shell=bash
# What a case uses: CASE_DIR (its own folder), boot_case, and the checks. `fail` and `skip`
# end the case with a reason; the runner prints it.

fail() { echo "FAIL: $*" >"$CASE_DIR/result"; exit 1; }
skip() { echo "SKIP: $*" >"$CASE_DIR/result"; exit 0; }

# boot_case NAME [boot options]: boot with the console in CASE_DIR/NAME.console; a timeout
# or a boot that did not reach the target's last marker fails the case.
boot_case() {
    local name=$1 rc=0
    shift
    WORK=$CASE_DIR boot "$name" "$@" || rc=$?
    use_console "$name"
    [ $rc -ne 124 ] || fail "$name: no power-off within the time limit"
    grep -q 'EMBER-TARGET: done' "$CONSOLE" || fail "$name: the target never finished booting"
}

# busybox_disk: the small busybox target root on a fresh disk, CASE_DIR/disk.img (as DISK).
busybox_disk() {
    make_busybox_root "$CASE_DIR/root"
    DISK=$CASE_DIR/disk.img
    make_disk "$CASE_DIR/root" "$DISK"
}

# serve_seed DIR: DIR's files at http://169.254.169.254/seed/ for the guest (boot --net
# "$SEED_PORT"), from a loopback web server that stops with the case; its log is
# CASE_DIR/http.log.
serve_seed() {
    mkdir -p "$CASE_DIR/www/seed"
    cp "$1"/* "$CASE_DIR/www/seed/"
    SEED_PORT=$(free_port)
    python3 -m http.server --bind 127.0.0.1 --directory "$CASE_DIR/www" "$SEED_PORT" \
        >"$CASE_DIR/http.log" 2>&1 &
    SEED_SERVER=$!
    trap 'kill $SEED_SERVER 2>/dev/null' EXIT
}

# use_console NAME: the checks below read CASE_DIR/NAME.console (boot_case sets it itself).
use_console() { CONSOLE=$CASE_DIR/$1.console; }

console_has() { grep -qE -- "$1" "$CONSOLE" || fail "console lacks /$1/"; }
console_lacks() { ! grep -qE -- "$1" "$CONSOLE" || fail "console has /$1/"; }

# file_is DISK PATH TEXT: the file exists and holds exactly TEXT (plus a final newline).
file_is() {
    local got
    disk_exists "$1" "$2" || fail "$2 is missing"
    got=$(disk_cat "$1" "$2")
    [ "$got" = "$3" ] || fail "$2 holds '$got', not '$3'"
}
file_has() {
    local text
    disk_exists "$1" "$2" || fail "$2 is missing"
    # Read whole first: `grep -q` closing the pipe early would fail debugfs under pipefail.
    text=$(disk_cat "$1" "$2")
    grep -qE -- "$3" <<<"$text" || fail "$2 lacks /$3/"
}
mode_is() {
    local got
    got=$(disk_mode "$1" "$2")
    [ "$got" = "$3" ] || fail "$2 has mode $got, not $3"
}
absent() { ! disk_exists "$1" "$2" || fail "$2 exists"; }

# serve_imds PLATFORM: start_imds for the case (requests in $CASE_DIR/imds.requests), for the
# guest at 169.254.169.254 (boot --net). It stops with the case.
serve_imds() {
    local rc=0
    start_imds "$1" "$CASE_DIR" || rc=$?
    [ -z "${IMDS_PID:-}" ] || trap 'kill $IMDS_PID 2>/dev/null' EXIT
    [ $rc -eq 0 ] || fail "the imds emulator did not build or start"
}

# serve_serial PLATFORM: the tests' metadata agent of a serial-port cloud (examples/imds.rs, as
# serve_imds) on a unix socket, SERIAL_SOCKET, for boot --serial2; requests are logged in
# $CASE_DIR/imds.requests. It stops with the case.
serve_serial() {
    serve_imds "$1"
    SERIAL_SOCKET=$IMDS_PORT
    trap 'kill $IMDS_PID 2>/dev/null; rm -f "$SERIAL_SOCKET"' EXIT
    [ -S "$SERIAL_SOCKET" ] || fail "the $1 agent made no socket"
}
