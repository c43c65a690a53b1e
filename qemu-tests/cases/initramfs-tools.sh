# The nocloud-iso case through an initramfs that Debian's initramfs-tools (mkinitramfs) builds with
# ember's integration installed (local-premount and local-bottom scripts).
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
. "$EMBER_REPO/qemu-tests/lib/generators.sh"
generator_case initramfs-tools
