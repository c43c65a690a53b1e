#!/bin/sh
# ember, dracut cmdline hook: reads the disable toggles once, so that the later hooks cost a
# variable test when ember is disabled, and makes the initqueue wait for the network asked for.

type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh

if getarg ember=disabled > /dev/null || getarg cloud-init=disabled > /dev/null; then
    # Exported: dracut keeps exported variables across its hooks (dracut-state.sh).
    export ember_disabled=1
    info "ember: disabled on the kernel command line"
elif getarg ip= > /dev/null && ! getarg rd.neednet > /dev/null; then
    # Without rd.neednet the initqueue can finish before the interface is up, and the
    # pre-mount fetch of an http seed would find no network. An explicit rd.neednet wins.
    echo rd.neednet=1 > /etc/cmdline.d/90ember-neednet.conf
fi
