#!/bin/sh
# ember, dracut pre-pivot hook: the local stage on the mounted root, writable for the stage
# (ember-initrd-local remounts a read-only root and puts it back).

type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh

if [ -z "$ember_disabled" ]; then
    ember-initrd-local "${NEWROOT:-/sysroot}"
    ember_rc=$?
    case $ember_rc in
        0) ;;
        1) warn "ember: the local stage recorded errors (ember status shows them); booting on" ;;
        3) die "ember: the local stage failed and ember.on-error=halt is set" ;;
        *) warn "ember: ember-initrd local exited with $ember_rc (a bug); booting on" ;;
    esac
fi
