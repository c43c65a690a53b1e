# Azure in QEMU: DMI carries Azure's chassis asset tag (-smbios type=3), the provisioning media
# is a CD holding ovf-env.xml (UDF with an ISO9660 bridge where genisoimage is there, else
# ISO9660), no ip= and no ds=: ember detects Azure, reads ovf-env.xml in-process, leases an
# address with its own DHCP client, reads the IMDS emulator (the cargo tests' own) at
# 169.254.169.254, reports ready to the wireserver emulator (on the same forwarded address:
# QEMU's DHCP cannot send option 245, so ember.azure.wireserver= names it), and provisions the
# admin user with the password only as a hash, its key, the host name, the custom data, the
# network config matched by MAC and the agent's sanitized ovf-env.xml.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds azure
mkdir -p "$CASE_DIR/media"
"$IMDS_BIN" azure-ovf >"$CASE_DIR/media/ovf-env.xml" || fail "no ovf-env.xml fixture"
if command -v genisoimage >/dev/null; then
    genisoimage -quiet -udf -V rd_rdfe_stable.161212-1209 -o "$CASE_DIR/ovf.iso" "$CASE_DIR/media"
else
    echo "azure: genisoimage missing: the media is ISO9660 only, not UDF"
    xorriso -as mkisofs -quiet -V rd_rdfe_stable -o "$CASE_DIR/ovf.iso" "$CASE_DIR/media"
fi
boot_case first --disk "$DISK" --cdrom "$CASE_DIR/ovf.iso" --net "$IMDS_PORT" \
    --mac 00:0d:3a:04:75:98 --smbios "type=3,asset=7783-7084-3265-9085-8269-3286-77" \
    --smbios "type=1,manufacturer=Microsoft Corporation,product=Virtual Machine" \
    --append "root=/dev/vda1 ro ember.azure.wireserver=169.254.169.254"
console_has 'status: done'
file_is "$DISK" /etc/hostname azure-vm-1
file_has "$DISK" /home/azureuser/.ssh/authorized_keys 'azure-key'
file_has "$DISK" /etc/shadow 'azureuser:\$6\$'
mode_is "$DISK" /etc/azure-custom 600
mode_is "$DISK" /var/lib/waagent/ovf-env.xml 600
file_has "$DISK" /var/lib/waagent/ovf-env.xml 'REDACTED'
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" 'MACAddress=00:0d:3a:04:75:98'
file_has "$DISK" /var/log/ember-status.json '"datasource": "azure"'
grep -q 'POST /machine?comp=health' "$CASE_DIR/imds.requests" || fail "no ready report reached the wireserver"
console_lacks 'degraded'
