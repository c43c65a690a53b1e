# OVF in QEMU: the CD holds the OVF environment (ovf-env.xml, labelled "OVF ENV" as vSphere
# labels it), DMI says VMware (-smbios type=1) but the target has no open-vm-tools, so the
# VMware datasource has nothing to read and OVF, next in cloud-init's order, takes the CD; no
# ip= and no ds=. ember reads the environment in-process (no mount, no network) and provisions
# the instance id, the host name, the default user's key and password (as a hash), the base64
# user-data and the network config of the `network-config` property, matched by MAC.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
IMDS_BIN=${CARGO_TARGET_DIR:-$EMBER_REPO/target}/debug/examples/imds
(cd "$EMBER_REPO" && cargo build -q --example imds) || fail "cannot build the imds fixture printer"
mkdir -p "$CASE_DIR/media"
"$IMDS_BIN" vmware-ovf >"$CASE_DIR/media/ovf-env.xml" || fail "no ovf-env.xml fixture"
xorriso -as mkisofs -quiet -V "OVF ENV" -J -R -o "$CASE_DIR/ovf.iso" "$CASE_DIR/media" 2>/dev/null ||
    fail "xorriso failed"
MAC=00:50:56:aa:bb:01
boot_case first --disk "$DISK" --cdrom "$CASE_DIR/ovf.iso" --mac "$MAC" \
    --smbios "type=1,manufacturer=VMware,, Inc.,product=VMware Virtual Platform" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
console_lacks 'degraded'
file_is "$DISK" /etc/hostname ovf-guest-1
file_has "$DISK" /var/lib/ember/data/instance-id 'iid-ovf-5a2c'
file_has "$DISK" /home/debian/.ssh/authorized_keys 'ovf-key$'
file_has "$DISK" /etc/shadow '^debian:\$6\$'
file_has "$DISK" /etc/ovf-ud 'ovf-user-data-secret-0e44'
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" "MACAddress=$MAC"
file_has "$DISK" "/etc/systemd/network/$net" 'DHCP=ipv4'
# Read whole before grep: `grep -q` closing the pipe early fails debugfs under pipefail.
status=$(disk_cat "$DISK" /var/log/ember-status.json)
grep -q '"datasource": "ovf"' <<<"$status" || fail "status.json: datasource is not ovf"
grep -q 'DataSourceOVF \[seed=iso\]' <<<"$status" || fail "status.json: not the expected source"
