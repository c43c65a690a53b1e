# Issue 19 with dracut as the generator, and ember beside an installed cloud-init: a Debian root
# with its own kernel, dracut (its systemd initrd) and Debian's cloud-init gets `dpkg -i` of the
# ember package alone. Debian's dracut answers the same update-initramfs trigger, so the
# initramfs the root boots is dracut's with ember in it. ember provisions; cloud-init's own
# units stand down on that boot (ember-generator's drop-in), its commands are left alone, and
# cloud-init's own `cloud-init status --wait` reads ember's record and says done.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/package.sh
. "$EMBER_REPO/qemu-tests/lib/package.sh"

debian_required
ensure_debian_root || fail "debootstrap failed"
debian_variant dracut "$DEBIAN_ROOT" "dracut linux-image-amd64 cloud-init" dracut_for_vm ||
    fail "cannot install dracut, the kernel and cloud-init into the Debian root"
package_debs

root=$CASE_DIR/root
debian_image_root "$root" "$PACKAGE_ROOT" || fail "cannot prepare the image root"
package_install "$root" ember
cat "$CASE_DIR/dpkg.log"
grep -q 'Processing triggers for dracut' "$CASE_DIR/dpkg.log" || fail "installing ember did not trigger dracut"
[ -e "$root/usr/lib/python3/dist-packages/cloudinit" ] || fail "cloud-init is gone: it should stay"
[ "$(readlink -f "$root/usr/bin/cloud-init")" != /usr/bin/ember ] || fail "ember took cloud-init's command"
after_final_unit "$root"
root_kernel "$root"
grep -qx 'usr/bin/ember-initrd' "$ROOT_INITRD.list" || fail "dracut's initramfs lacks ember-initrd"
grep -q 'ember-initrd-early.service$' "$ROOT_INITRD.list" || fail "dracut's initramfs lacks ember's units"
package_image "$root" 2048
rm -rf "$root"

package_boot boot
provisioned_checks
# cloud-init's stages were skipped by their condition, not failed, and never ran.
guest 'for u in cloud-init-local cloud-init cloud-config cloud-final; do
        echo "$u $(systemctl show -P ConditionResult $u.service) $(systemctl show -P ExecMainStartTimestampMonotonic $u.service)"
    done
    head -n 1 /usr/bin/cloud-init' >"$CASE_DIR/cloud-init-units" 2>&1
cat "$CASE_DIR/cloud-init-units"
[ "$(grep -c ' no 0$' "$CASE_DIR/cloud-init-units")" = 4 ] || fail "a cloud-init stage ran beside ember"
grep -q python "$CASE_DIR/cloud-init-units" || fail "/usr/bin/cloud-init is not cloud-init's own"
package_poweroff
