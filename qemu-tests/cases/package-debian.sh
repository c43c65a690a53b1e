# Issue 19's proof: a Debian root with initramfs-tools and its own Debian kernel, ember installed
# with `dpkg -i` of the two packages (ember, ember-cloud-init) and nothing else: the package's
# trigger rebuilds the initramfs with ember in it, and the root's own kernel boots that
# initramfs and is provisioned from a NoCloud seed (ssh login, `cloud-init status --wait` done,
# a unit ordered After=cloud-final.service runs after ember). Then `dpkg --purge` of both in the
# powered-off root: the initramfs is rebuilt without ember, ember's state is gone, and the
# system still boots (the provisioned user logs in).
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/package.sh
. "$EMBER_REPO/qemu-tests/lib/package.sh"

kernel_root
package_debs

root=$CASE_DIR/root
debian_image_root "$root" "$PACKAGE_ROOT" || fail "cannot prepare the image root"
package_install "$root" ember ember-cloud-init
cat "$CASE_DIR/dpkg.log"
grep -q 'Processing triggers for initramfs-tools' "$CASE_DIR/dpkg.log" ||
    fail "installing ember did not trigger initramfs-tools"
# An upgrade (the same packages again: dpkg runs the old prerm and the new postinst) triggers
# the rebuild again and keeps the units enabled.
: >"$CASE_DIR/dpkg.log"
package_install "$root" ember ember-cloud-init
grep -q 'Processing triggers for initramfs-tools' "$CASE_DIR/dpkg.log" ||
    fail "upgrading ember did not trigger initramfs-tools"
for unit in ember-init ember-config ember-final; do
    [ -L "$root/etc/systemd/system/multi-user.target.wants/$unit.service" ] || fail "$unit is not enabled after the upgrade"
done
after_final_unit "$root"
root_kernel "$root"
grep -qx 'usr/bin/ember-initrd' "$ROOT_INITRD.list" || fail "the trigger's initramfs lacks ember-initrd"
[ "$(readlink "$root/usr/bin/cloud-init")" = ember ] || fail "/usr/bin/cloud-init is not ember"
package_image "$root" 2048
rm -rf "$root"

package_boot first
provisioned_checks
package_poweroff

# Purge, as an administrator would on the stopped image; the system must still boot.
mnt=$CASE_DIR/mnt
mkdir -p "$mnt"
mount -o loop,offset=$PART_OFFSET "$DISK" "$mnt" || fail "cannot mount the disk image"
purge_rc=0
in_chroot "$mnt" dpkg --purge ember-cloud-init ember >"$CASE_DIR/purge.log" 2>&1 || purge_rc=$?
cat "$CASE_DIR/purge.log"
left=$(cd "$mnt" && ls -d var/lib/ember var/lib/cloud usr/bin/ember usr/lib/ember 2>/dev/null)
CASE_DIR=$CASE_DIR root_kernel "$mnt"
umount "$mnt"
[ $purge_rc -eq 0 ] || fail "dpkg --purge failed"
grep -q 'Processing triggers for initramfs-tools' "$CASE_DIR/purge.log" ||
    fail "removing ember did not trigger initramfs-tools"
[ -z "$left" ] || fail "left after purge: $left"
! grep -q 'ember' "$ROOT_INITRD.list" || fail "the initramfs still holds ember after purge"

package_boot after-purge
! grep -q 'ember-initramfs:' "$CONSOLE" || fail "ember ran after it was purged"
guest 'systemctl is-system-running --wait; test -e /var/lib/ember && echo ember-state' \
    >"$CASE_DIR/after-purge" 2>&1 || true
cat "$CASE_DIR/after-purge"
! grep -q ember-state "$CASE_DIR/after-purge" || fail "ember wrote state after it was purged"
package_poweroff
