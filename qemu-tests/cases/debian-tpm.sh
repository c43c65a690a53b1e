# Measured provisioning on a real Debian with a TPM 2.0 (swtpm, every bank active): ember-initrd
# measured the NoCloud seed into PCR 12 before using it, and in the booted system tpm2_pcrread
# (tpm2-tools, through the kernel's resource manager) reads in each bank the value the host
# predicts with `pcr-predict` from the same seed and image root. systemd's measurement log holds
# the nine records, `cloud-init status --long` shows the measurement, and a changed user-data
# predicts another value.
# shellcheck source=qemu-tests/lib/debian.sh
. "$EMBER_REPO/qemu-tests/lib/debian.sh"
# shellcheck source=qemu-tests/lib/tpm.sh
. "$EMBER_REPO/qemu-tests/lib/tpm.sh"

debian_required
tpm_required
stamp() { echo "debian-tpm: [$(($(date +%s) - case_start)) s] $*"; }
case_start=$(date +%s)
ensure_debian_root || fail "debootstrap failed (see the log)"

root=$CASE_DIR/root disk=$CASE_DIR/disk.img key=$CASE_DIR/id_ed25519
debian_image_root "$root" || fail "cannot prepare the image root"
debian_install_ember "$root"
"$EMBER_REPO/initramfs/install-into-root" "$root" "$EMBER_INITRD" >/dev/null ||
    fail "install-into-root failed"
ssh-keygen -q -t ed25519 -N '' -C tester@ember-debian -f "$key" || fail "ssh-keygen failed"
debian_seed "$CASE_DIR/seed" "$key.pub"
make_iso_seed "$CASE_DIR/seed" "$CASE_DIR/seed.iso"
# The verifier's side: the value from the seed it handed out and the image it built.
declare -A want
for bank in sha1 sha256 sha384 sha512; do
    want[$bank]=$(predict_pcr "$CASE_DIR/seed" "$root" $bank)
    [ -n "${want[$bank]}" ] || fail "pcr-predict gave no $bank value"
done
cp -r "$CASE_DIR/seed" "$CASE_DIR/seed-changed"
echo 'final_message: changed' >>"$CASE_DIR/seed-changed/user-data"
[ "$(predict_pcr "$CASE_DIR/seed-changed" "$root" sha256)" != "${want[sha256]}" ] ||
    fail "a changed user-data predicts the same PCR 12"
make_disk "$root" "$disk" 1024
rm -rf "$root"
stamp "image ready; predicted sha256:12 ${want[sha256]}"

start_swtpm "$CASE_DIR/tpm"
port=$(free_port)
CONSOLE=$CASE_DIR/debian.console
WORK=$CASE_DIR boot debian --disk "$disk" --cdrom "$CASE_DIR/seed.iso" --ssh "$port" \
    --memory 1024 --append "root=/dev/vda1 rw" --timeout 240 --tpm "$SWTPM_SOCK" &
vm=$!
trap 'pkill -TERM -P $vm 2>/dev/null; kill $SWTPM_PID 2>/dev/null' EXIT

known=$CASE_DIR/known_hosts
guest() {
    ssh_retry timeout 60 ssh -q -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile="$known" -i "$key" -p "$port" tester@127.0.0.1 "$@"
}
deadline=$((SECONDS + 180))
until guest true 2>/dev/null; do
    kill -0 $vm 2>/dev/null || fail "QEMU stopped before ssh answered"
    [ $SECONDS -lt $deadline ] || fail "no ssh login as tester within 180 s"
    sleep 2
done
stamp "logged in"

guest 'sudo cloud-init status --wait --long' >"$CASE_DIR/status.out" 2>&1
cat "$CASE_DIR/status.out"
grep -qx 'status: done' "$CASE_DIR/status.out" || fail "cloud-init status --wait did not say done"
grep -q '^measured: PCR 12, 9 events, banks sha1 sha256 sha384 sha512$' "$CASE_DIR/status.out" ||
    fail "the status does not show the measurement"
guest 'sudo tpm2_pcrread -T device:/dev/tpmrm0 sha1:12+sha256:12+sha384:12+sha512:12' \
    >"$CASE_DIR/pcrread" 2>&1 || fail "tpm2_pcrread failed: $(cat "$CASE_DIR/pcrread")"
cat "$CASE_DIR/pcrread"
for bank in sha1 sha256 sha384 sha512; do
    got=$(awk -v b="$bank:" '$1 == b { on = 1; next } on && $1 == "12:" { print $2; exit }' "$CASE_DIR/pcrread")
    [ "$got" = "0x${want[$bank]}" ] || fail "tpm2_pcrread's $bank:12 is ${got:-nothing}, the host predicted 0x${want[$bank]}"
done
stamp "tpm2_pcrread agrees with the prediction in four banks"
records=$(guest 'sudo cat /run/log/systemd/tpm2-measure.log' | tr -cd '\036' | wc -c)
[ "$records" -eq 9 ] || fail "the measurement log has $records records, not 9"
mode=$(guest 'sudo stat -c %a /run/log/systemd/tpm2-measure.log')
[ "$mode" = 600 ] || fail "the measurement log's mode is $mode"

rc=0
guest_poweroff $vm || rc=$?
trap 'kill $SWTPM_PID 2>/dev/null' EXIT
[ $rc -ne 124 ] || fail "no power-off within the time limit"
file_is "$disk" /etc/hostname ember-debian
