# Issue 19, the other way: a Debian root with its own kernel where cloud-init was installed
# (Debian's package, its units enabled) gets `dpkg -i` of ember and ember-cloud-init and nothing
# else. dpkg removes cloud-init in ember-cloud-init's favour (Conflicts and Replaces), the
# trigger rebuilds the initramfs with ember, and the boot is provisioned by ember alone: no
# cloud-init process ran, yet `cloud-init status --wait` says done and a unit ordered
# After=cloud-final.service ran after ember's final stage.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/package.sh
. "$EMBER_REPO/qemu-tests/lib/package.sh"

kernel_root
debian_variant cloud-init "$PACKAGE_ROOT" cloud-init || fail "cannot install cloud-init into the root"
package_debs

root=$CASE_DIR/root
debian_image_root "$root" "$PACKAGE_ROOT" || fail "cannot prepare the image root"
[ -e "$root/usr/lib/python3/dist-packages/cloudinit" ] || fail "the root has no cloud-init to replace"
package_install "$root" ember ember-cloud-init
cat "$CASE_DIR/dpkg.log"
grep -q 'Removing cloud-init' "$CASE_DIR/dpkg.log" || fail "dpkg did not remove cloud-init in ember's favour"
[ ! -e "$root/usr/lib/python3/dist-packages/cloudinit" ] || fail "cloud-init's code is still installed"
[ "$(readlink "$root/usr/bin/cloud-init")" = ember ] || fail "/usr/bin/cloud-init is not ember"
after_final_unit "$root"
root_kernel "$root"
grep -qx 'usr/bin/ember-initrd' "$ROOT_INITRD.list" || fail "the trigger's initramfs lacks ember-initrd"
package_image "$root" 2048
rm -rf "$root"

package_boot boot
provisioned_checks
# No cloud-init process ran: its log was never written, and its names are ember's stand-ins
# (linked by ember-generator: cloud-init's removal masked its units, ember-cloud-init lifted that).
guest 'test -e /var/log/cloud-init.log && echo cloud-init-log
    systemctl show -P FragmentPath cloud-final.service cloud-init.target' >"$CASE_DIR/names" 2>&1
cat "$CASE_DIR/names"
! grep -q cloud-init-log "$CASE_DIR/names" || fail "cloud-init wrote its log: it ran"
[ "$(grep -c '^/run/systemd/generator.late/' "$CASE_DIR/names")" = 2 ] ||
    fail "cloud-final.service and cloud-init.target are not ember's stand-ins"
package_poweroff
