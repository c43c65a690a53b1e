# Stands for dracut's build side (dracut-init.sh) around ember's module-setup.sh: the inst_*
# functions and messages it may call, each recording its call, and check, depends,
# installkernel and install run in that order in one shell, as dracut does.
# $1: the staged module directory; $EMBER_TEST_DRACUT_MODULES: the modules in the image.
set -u
moddir=$1
initdir=$EMBER_TEST_DIR/initdir
systemdsystemunitdir=/usr/lib/systemd/system
hostonly=-h
hookdirs="cmdline pre-udev pre-trigger netroot initqueue pre-mount pre-pivot cleanup mount emergency shutdown"

log() { printf '%s\n' "$*" >> "$EMBER_TEST_LOG"; }
inst_binary() { log "inst_binary $*"; }
inst_script() { log "inst_script $*"; }
inst_simple() {
    [[ -e $1 ]] || return 1
    log "inst_simple $*"
}
inst_multiple() { log "inst_multiple $*"; }
inst_hook() {
    [[ -f $3 ]] || { log "inst_hook of a missing file $3"; exit 1; }
    [[ $hookdirs == *$1* ]] || { log "inst_hook to an unknown hook $1"; exit 1; }
    log "inst_hook $1 $2 ${3##*/}"
}
instmods() { log "instmods hostonly=<$hostonly> $*"; }
dracut_module_included() { [[ " $EMBER_TEST_DRACUT_MODULES " == *" $1 "* ]]; }
dracut_need_initqueue() { log "dracut_need_initqueue"; }
fake_systemctl() { log "systemctl $*"; }
SYSTEMCTL=fake_systemctl
dfatal() { log "dfatal $*"; }
derror() { log "derror $*"; }
dwarn() { log "dwarn $*"; }
dinfo() { :; }

. "$moddir/module-setup.sh"
check
log "check returned $?"
depends > /dev/null
log "depends returned $?"
installkernel
log "installkernel returned $?"
install
log "install returned $?"
