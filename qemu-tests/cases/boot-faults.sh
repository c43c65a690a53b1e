# Issue 37, part 2: the Debian root with ember boots under a fault (lib/faults.sh's kinds: the
# EC2 metadata service down, answering 503, never answering; a first NIC with no carrier; a
# NoCloud seed URL by name with no DNS answering; a NoCloud CD taken out mid-read) on each
# network stack (systemd-networkd, ifupdown, NetworkManager, and networkd with Debian's
# cloud-init beside ember). In every cell port 22 must answer and a Packer-style waiter (ssh as
# soon as sshd answers, then `cloud-init status --wait`) must get a terminal state within the
# bound, with cloud-init's exit code: 0 when the metadata arrived; 2 (degraded) when it did
# not, None then standing in as in cloud-init. BOOT_FAULTS names the cells (STACK/FAULT; CI's
# subset below, every stack at least once, with and without cloud-init); scripts/boot-matrix
# boots them all. The table is in the case's log.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/package.sh
. "$EMBER_REPO/qemu-tests/lib/package.sh"
# shellcheck source=qemu-tests/lib/faults.sh
. "$EMBER_REPO/qemu-tests/lib/faults.sh"

debian_required
command -v socat >/dev/null || fail "no socat (apt-get install socat)"
ensure_debian_root || fail "debootstrap failed (see the log)"
printf '%-18s %-16s %-4s %-10s %-12s %s\n' cell status exit port22-s terminal-s jobs >"$CASE_DIR/table"
cells=${BOOT_FAULTS:-networkd/none networkd/hang networkd/nocarrier networkd/dns networkd/vanish
ifupdown/down nm/hang beside/down}
for cell in $cells; do
    fault_cell "$cell" "${BOOT_FAULT_BOUND:-400}" "$(fault_want "$cell")"
done
cat "$CASE_DIR/table"
