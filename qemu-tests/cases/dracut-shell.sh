# The nocloud-iso case through an initramfs that Debian's dracut builds with
# ember's integration installed (dracut's shell init: ember's hooks).
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
. "$EMBER_REPO/qemu-tests/lib/generators.sh"
generator_case dracut-shell
