#!/bin/sh
# apk runs this when files under /usr/lib/ember change. Where mkinitfs.conf names the "ember"
# feature the images carry ember-initrd: rebuild them for each installed kernel, as mkinitfs's
# own kernel trigger does. Otherwise no image holds ember and there is nothing to do.
conf=/etc/mkinitfs/mkinitfs.conf
# shellcheck disable=SC1090 # mkinitfs.conf is shell, sourced as mkinitfs does
features=$(. "$conf" 2>/dev/null; echo " $features ")
case $features in
*" ember "*) ;;
*) exit 0 ;;
esac
command -v mkinitfs >/dev/null 2>&1 || exit 0
for release in /usr/share/kernel/*/kernel.release; do
	[ -f "$release" ] || continue
	flavor=${release%/kernel.release}
	flavor=${flavor##*/}
	echo "ember: rebuilding /boot/initramfs-$flavor (mkinitfs)"
	mkinitfs -o "/boot/initramfs-$flavor" "$(cat "$release")" || echo "ember: mkinitfs failed for $flavor" >&2
done
exit 0
