#!/bin/sh
# ember, dracut pre-mount hook: detect and fetch, before the root is mounted at $NEWROOT.
# Both write only in /run/ember; switch_root moves /run to the new root (which has a /run).

type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh

# ember_check RC STAGE: 3 is ember.on-error=halt; anything else lets the boot go on.
ember_check() {
    case $1 in
        0) ;;
        1) warn "ember: the $2 stage recorded errors (ember status shows them); booting on" ;;
        3) die "ember: the $2 stage failed and ember.on-error=halt is set" ;;
        *) warn "ember: ember-initrd $2 exited with $1 (a bug); booting on" ;;
    esac
}

if [ -z "$ember_disabled" ]; then
    ember-initrd --target "${NEWROOT:-/sysroot}" detect
    ember_check $? detect
    ember-initrd --target "${NEWROOT:-/sysroot}" fetch
    ember_check $? fetch
fi
