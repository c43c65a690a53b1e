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
    disk_exists "$1" "$2" || fail "$2 is missing"
    disk_cat "$1" "$2" | grep -qE -- "$3" || fail "$2 lacks /$3/"
}
mode_is() {
    local got
    got=$(disk_mode "$1" "$2")
    [ "$got" = "$3" ] || fail "$2 has mode $got, not $3"
}
absent() { ! disk_exists "$1" "$2" || fail "$2 exists"; }
