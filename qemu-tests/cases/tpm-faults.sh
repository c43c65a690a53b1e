# Measured provisioning on the small busybox root, three machines:
# - a working TPM (swtpm, every bank): the kernel's own PCR 12 (sysfs) in each bank is what
#   `pcr-predict` computes on the host from the same seed and root, and the status says so;
# - a TPM that dies once the kernel found it: the measurement is a `tpm-failed` error, the boot
#   goes on and provisions (the image does not require the measurement);
# - an image that requires the measurement, on a machine with no TPM: nothing is provisioned.
# shellcheck source=qemu-tests/lib/tpm.sh
. "$EMBER_REPO/qemu-tests/lib/tpm.sh"
tpm_required
seed=$EMBER_REPO/tests/fixtures/seeds/basic
make_iso_seed "$seed" "$CASE_DIR/seed.iso"

# 1. A working TPM.
busybox_disk
start_swtpm "$CASE_DIR/tpm1"
boot_case live --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" --tpm "$SWTPM_SOCK" --append "root=/dev/vda1 ro"
console_has 'measured: PCR 12, 9 events, banks sha1 sha256 sha384 sha512'
console_has 'EMBER-TARGET: status exit 0'
for bank in sha1 sha256 sha384 sha512; do
    want=$(predict_pcr "$seed" "$CASE_DIR/root" $bank)
    [ -n "$want" ] || fail "pcr-predict gave no $bank value"
    got=$(awk -v b="pcr-$bank" '$2 == "pcr" && $3 == b { print $4 }' "$CONSOLE" | tr -d '\r')
    [ "$got" = "$want" ] || fail "PCR 12 $bank: the kernel reads ${got:-nothing}, ember predicts $want"
done
# What measuring cost this boot (status.json's step, TCG-emulated guest, swtpm on the host).
took=$(disk_cat "$DISK" /var/log/ember-status.json | python3 -c 'import json, sys
steps = json.load(sys.stdin)["stages"]["local"]["steps"]
print(next("%.1f" % (s["duration_us"] / 1000) for s in steps if s["name"] == "measure"))') ||
    fail "status.json has no measure step"
echo "tpm-faults: PCR 12 in four banks as predicted; the measure step took $took ms"
file_is "$DISK" /etc/hostname ember-qemu
kill "$SWTPM_PID" 2>/dev/null

# 2. A TPM that dies once the kernel found it (its probe line on the console), long before ember
# starts: QEMU then answers every command with a TPM 1.2 failure frame.
busybox_disk
start_swtpm "$CASE_DIR/tpm2"
WORK=$CASE_DIR boot dies --disk "$DISK" --cdrom "$CASE_DIR/seed.iso" --tpm "$SWTPM_SOCK" \
    --append "root=/dev/vda1 ro" &
vm=$!
probe='tpm_tis .*: 2\.0 TPM'
for _ in $(seq 1200); do grep -qa "$probe" "$CASE_DIR/dies.console" 2>/dev/null && break; sleep 0.1; done
grep -qa "$probe" "$CASE_DIR/dies.console" || fail "the kernel never found the TPM"
kill "$SWTPM_PID"
wait "$vm" || true
use_console dies
grep -q 'EMBER-TARGET: done' "$CONSOLE" || fail "the boot with a dead TPM did not finish"
console_has 'ember: local: error: TPM2_GetCapability\(PCRS\): not a TPM 2\.0 response'
console_has 'EMBER-TARGET: status exit 1'
file_is "$DISK" /etc/hostname ember-qemu
file_has "$DISK" /var/log/ember-status.json '"code": "tpm-failed"'

# 3. measure: required, and no TPM.
make_busybox_root "$CASE_DIR/root"
printf 'ember: {measure: required}\n' >>"$CASE_DIR/root/etc/cloud/cloud.cfg"
make_disk "$CASE_DIR/root" "$CASE_DIR/required.img"
boot_case required --disk "$CASE_DIR/required.img" --cdrom "$CASE_DIR/seed.iso" --append "root=/dev/vda1 ro"
console_has 'ember\.measure is required and there is no TPM at /dev/tpmrm0'
console_has 'EMBER-TARGET: no handoff'
file_is "$CASE_DIR/required.img" /etc/hostname localhost
