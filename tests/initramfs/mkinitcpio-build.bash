# Stands for mkinitcpio's build side (its functions file) around an install hook: the add_*
# functions and messages a hook may call, each recording its call. Like mkinitcpio, a failing
# add_* call counts as a build error. $1: the staged install hook; $BUILDROOT: the image tree.
set -u
install_hook=$1
errors=0

log() { printf '%s\n' "$*" >> "$EMBER_TEST_LOG"; }
missing() { [[ $1 == /* && ! -e $1 ]]; }

add_binary() {
    log "add_binary $*"
    if missing "$1"; then
        (( ++errors ))
        return 1
    fi
}
add_file() {
    log "add_file $*"
    if missing "$1"; then
        (( ++errors ))
        return 1
    fi
}
add_module() { log "add_module $*"; }
add_all_modules() { log "add_all_modules $*"; }
add_symlink() { log "add_symlink $*"; }
add_systemd_unit() { log "add_systemd_unit $*"; }
add_runscript() { log "add_runscript"; }
add_dir() { log "add_dir $*"; }
msg() { :; }
msg2() { :; }
plain() { :; }
quiet() { :; }
warning() { log "warning $*"; }
error() {
    log "error $*"
    return 1
}

# mkinitcpio sources the hook, checks for build() and runs it.
. "$install_hook"
declare -f build > /dev/null || { log "no build function"; exit 1; }
declare -f help > /dev/null || { log "no help function"; exit 1; }
build
log "build returned $?"
log "build errors $errors"
