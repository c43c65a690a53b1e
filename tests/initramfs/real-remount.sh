# Run inside a private mount namespace (unshare -m): the real ember-initrd-local, unchanged,
# against real tmpfs mounts read through the kernel's /proc/mounts, with the fake ember-initrd
# and whichever mount is first on PATH (util-linux or busybox).
# $1: the sandbox directory (a canonical path); $2: ember-initrd-local.
sb=$1
helper=$2
log() { echo "$*" >> "$EMBER_TEST_LOG"; }
options() {
    while read -r _dev mnt _type opts _rest; do
        [ "$mnt" = "$1" ] && echo "${opts%%,*}"
    done < /proc/mounts
}

mkdir -p "$sb/sysroot" "$sb/rwroot"
mount -t tmpfs -o ro,size=1m ember-test "$sb/sysroot" || exit 1
mount -t tmpfs -o rw,size=1m ember-test "$sb/rwroot" || exit 1
# mkinitcpio's /new_root is a link to /sysroot in newer versions.
ln -s sysroot "$sb/new_root"

"$helper" "$sb/new_root"
log "read-only root: exit $? now $(options "$sb/sysroot")"
"$helper" "$sb/rwroot"
log "read-write root: exit $? now $(options "$sb/rwroot")"
