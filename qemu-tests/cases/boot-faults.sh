# Issue 37, part 2: the Debian root with ember boots as an EC2 instance whose metadata service
# is fine (none), refuses connections (down), answers 503 to everything (5xx) or never answers
# (hang). In every cell port 22 must answer and a Packer-style waiter (ssh as soon as sshd
# answers, then `cloud-init status --wait`) must get a terminal state with exit code 0, 1 or 2
# within the bound. BOOT_FAULTS names the cells; the table is in the case's log.
# By default only `none` runs: in the fault cells today ember's fetch fails with no stand-in
# (None stands in only when the image lists it), so no host key is made and sshd cannot
# start; cloud-init would go on as None (ds-identify ends every list with None). Issue 37's
# next step changes that, and then the fault cells join the default.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/faults.sh
. "$EMBER_REPO/qemu-tests/lib/faults.sh"

debian_required
ensure_debian_root || fail "debootstrap failed (see the log)"
fault_image
printf '%-8s %-16s %-4s %-10s %-12s %s\n' fault status exit port22-s terminal-s jobs >"$CASE_DIR/table"
for fault in ${BOOT_FAULTS:-none}; do
    fault_cell "$fault" "${BOOT_FAULT_BOUND:-400}"
done
cat "$CASE_DIR/table"
