# Stands for dracut's shell init (modules.d/99base/init.sh) around ember's hooks: the
# dracut-lib functions they use, and the hooks sourced in one shell in init's order.
# $1: the directory of the staged hooks. The halting die() stands for an operator who stays in
# the emergency shell: it ends the boot with status 99.
hooks=$1

log() { echo "$*" >> "$EMBER_TEST_LOG"; }
info() { log "info $*"; }
warn() { log "warn $*"; }
die() {
    log "die $*"
    exit 99
}
# dracut's getarg over the test's command line: KEY=VALUE matches that word exactly, KEY= and
# KEY print the value of KEY's first word.
getarg() {
    read -r line < "$EMBER_TEST_CMDLINE"
    for word in $line; do
        case $1 in
            *=?*)
                [ "$word" = "$1" ] && return 0
                ;;
            *)
                key=${1%=}
                case $word in
                    "$key") return 0 ;;
                    "$key"=*)
                        echo "${word#*=}"
                        return 0
                        ;;
                esac
                ;;
        esac
    done
    return 1
}

. "$hooks/ember-cmdline.sh"
. "$hooks/ember-pre-mount.sh"
log "root mounted"
. "$hooks/ember-pre-pivot.sh"
log "switch_root"
