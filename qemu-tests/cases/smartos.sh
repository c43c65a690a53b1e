# SmartOS in QEMU: DMI says SmartDC HVM (-smbios) and the guest's second serial port (ttyS1) is
# connected to the metadata agent emulator (the cargo tests' own) on a host unix socket. ember
# probes the line, negotiates protocol v2 and reads every key over the UART, no network: the
# hostname, the default user's key, the user-data, the user-script as a file; the built-in
# vendor-data's per-boot script runs it (as bash, which busybox stands in for here).
make_busybox_root "$CASE_DIR/root"
printf '#!/bin/sh\nexec /bin/sh "$@"\n' >"$CASE_DIR/root/bin/bash"
chmod 0755 "$CASE_DIR/root/bin/bash"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_serial smartos
boot_case first --disk "$DISK" --serial2 "$SERIAL_SOCKET" --mac 90:b8:d0:ae:64:51 \
    --smbios "type=1,manufacturer=Joyent,product=SmartDC HVM" \
    --append "root=/dev/vda1 ro"
console_has 'status: (done|degraded)'
file_is "$DISK" /etc/hostname triton-vm
file_has "$DISK" /home/debian/.ssh/authorized_keys 'joyent-key'
mode_is "$DISK" /etc/smartos-secret 600
DATA=/var/lib/cloud/instances/6e2d3e8a-4c5b-4a0e-9d3f-1b7c2a9e5f01/data
file_has "$DISK" "$DATA/user-script" '^#!/bin/bash'
mode_is "$DISK" "$DATA/user-script" 700
file_is "$DISK" /var/lib/user-script-ran ran
file_has "$DISK" /var/log/ember-status.json '"datasource": "smartos"'
grep -q '^GET sdc:uuid$' "$CASE_DIR/imds.requests" || fail "the agent was not asked for sdc:uuid"
grep -q '^KEYS' "$CASE_DIR/imds.requests" || fail "the agent was not asked for its keys"
