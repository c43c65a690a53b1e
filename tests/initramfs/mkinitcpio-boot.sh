# Stands for mkinitcpio's init around ember's runtime hook: init_functions' helpers, and
# run_hookfunctions sourcing the hook for run_hook before the root is mounted and for
# run_latehook after. $1: the staged hook. The halting launch_interactive_shell stands for an
# operator who stays in the shell: it ends the boot with status 99, or returns with
# $EMBER_TEST_HALT_RETURNS set (the operator typed exit).
hook=$1

log() { echo "$*" >> "$EMBER_TEST_LOG"; }
msg() { :; }
err() { log "err $*"; }
launch_interactive_shell() {
    log "launch_interactive_shell"
    [ -n "$EMBER_TEST_HALT_RETURNS" ] || exit 99
}
run_hookfunctions() {
    unset -f "$1"
    . "$hook"
    type "$1" > /dev/null && "$1"
}

run_hookfunctions run_hook
log "root mounted"
run_hookfunctions run_latehook
log "switch_root"
