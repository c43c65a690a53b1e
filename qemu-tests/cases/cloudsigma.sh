# CloudSigma in QEMU: DMI says CloudSigma (-smbios) and the guest's second serial port (ttyS1)
# is connected to the server-context emulator (the cargo tests' own) on a host unix socket.
# ember asks for the whole context in one request over the UART, no network, and provisions
# the host name (the server's name), the default user's key, the base64 user-data.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_serial cloudsigma
boot_case first --disk "$DISK" --serial2 "$SERIAL_SOCKET" \
    --smbios "type=1,manufacturer=CloudSigma,product=CloudSigma" \
    --append "root=/dev/vda1 ro"
console_has 'status: (done|degraded)'
file_is "$DISK" /etc/hostname sigma-server
file_has "$DISK" /home/debian/.ssh/authorized_keys 'sigma-key'
mode_is "$DISK" /etc/sigma-secret 600
file_has "$DISK" /var/log/ember-status.json '"datasource": "cloudsigma"'
[ "$(cat "$CASE_DIR/imds.requests")" = "GET " ] || fail "not one request for the whole context"
