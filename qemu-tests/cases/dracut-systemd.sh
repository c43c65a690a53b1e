# The nocloud-iso case through an initramfs that Debian's dracut builds with
# ember's integration installed (dracut's systemd initrd: ember's units).
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
. "$EMBER_REPO/qemu-tests/lib/generators.sh"
generator_case dracut-systemd
