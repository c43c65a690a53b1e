# Stands for initramfs-tools' init around ember's boot scripts: scripts/functions' helpers, and
# each script run in its own process (a subshell here, to keep the stubs) in init's order.
# $1: the directory of the staged scripts. The halting panic() stands for an operator who stays
# in the shell: it ends the boot with status 99, or returns with $EMBER_TEST_HALT_RETURNS set
# (the operator typed exit).
scripts=$1

log() { echo "$*" >> "$EMBER_TEST_LOG"; }
log_failure_msg() { log "log_failure_msg $*"; }
log_warning_msg() { log "log_warning_msg $*"; }
configure_networking() { log "configure_networking IP=$IP"; }
panic() {
    log "panic $*"
    [ -n "$EMBER_TEST_HALT_RETURNS" ] || exit 99
}

run() {
    (. "$1")
    rc=$?
    [ "$rc" -eq 99 ] && exit 99
    [ "$rc" -eq 0 ] || log "script $1 exited $rc"
}

run "$scripts/local-premount"
log "root mounted"
run "$scripts/local-bottom"
log "switch_root"
