# Issue 37, part 2: the Debian root with ember boots as an EC2 instance whose metadata service
# is fine (none), refuses connections (down), answers 503 to everything (5xx) or never answers
# (hang). In every cell port 22 must answer and a Packer-style waiter (ssh as soon as sshd
# answers, then `cloud-init status --wait`) must get a terminal state within the bound, with
# cloud-init's exit code: 0 when the service answered; 2 (degraded) when it failed, None then
# standing in as in cloud-init. BOOT_FAULTS names the cells (none, down and hang by default);
# the table is in the case's log.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/faults.sh
. "$EMBER_REPO/qemu-tests/lib/faults.sh"

debian_required
ensure_debian_root || fail "debootstrap failed (see the log)"
fault_image
printf '%-8s %-16s %-4s %-10s %-12s %s\n' fault status exit port22-s terminal-s jobs >"$CASE_DIR/table"
for fault in ${BOOT_FAULTS:-none down hang}; do
    want=2
    [ "$fault" != none ] || want=0
    fault_cell "$fault" "${BOOT_FAULT_BOUND:-400}" "$want"
done
cat "$CASE_DIR/table"
