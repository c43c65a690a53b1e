# OpenStack config drive in QEMU: an ISO9660 volume labelled config-2 on the CD drive, DMI
# says OpenStack Nova, no ip= and no ds=: ember reads openstack/<newest known version>/ from
# the drive in-process (no mount, no network) and provisions the hostname, the default
# user's key, the user-data and the network config from network_data.json, matched by the
# QEMU NIC's MAC.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
MAC=fa:16:3e:0d:00:01
KEY='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOpenStackQemuKeyForTestsOnly os-qemu-key'
drive=$CASE_DIR/drive
for v in 2013-04-04 2018-08-27 latest; do
    mkdir -p "$drive/openstack/$v"
    cat >"$drive/openstack/$v/meta_data.json" <<JSON
{"uuid": "os-qemu-$v", "hostname": "os-qemu.novalocal", "name": "os-qemu",
 "availability_zone": "nova", "public_keys": {"os-qemu-key": "$KEY"}}
JSON
    printf '#cloud-config\nruncmd:\n  - echo EMBER-OS-USERDATA-RAN\n' >"$drive/openstack/$v/user_data"
done
cat >"$drive/openstack/2018-08-27/network_data.json" <<JSON
{"links": [{"id": "tap0", "type": "ovs", "ethernet_mac_address": "$MAC", "mtu": 1450}],
 "networks": [{"id": "n0", "type": "ipv4", "link": "tap0", "ip_address": "10.0.2.15",
   "netmask": "255.255.255.0",
   "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.0.2.2"}]}],
 "services": [{"type": "dns", "address": "10.0.2.3"}]}
JSON
xorriso -as mkisofs -quiet -V config-2 -J -R -o "$CASE_DIR/config-2.iso" "$drive" 2>/dev/null ||
    fail "xorriso failed"
boot_case first --disk "$DISK" --cdrom "$CASE_DIR/config-2.iso" --mac "$MAC" \
    --smbios "type=1,manufacturer=OpenStack Foundation,product=OpenStack Nova" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
console_has 'EMBER-OS-USERDATA-RAN'
console_lacks 'degraded'
file_is "$DISK" /etc/hostname os-qemu
file_has "$DISK" /home/debian/.ssh/authorized_keys 'os-qemu-key$'
file_has "$DISK" /var/lib/ember/data/instance-id 'os-qemu-2018-08-27'
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" "MACAddress=$MAC"
file_has "$DISK" "/etc/systemd/network/$net" 'Address=10.0.2.15/24'
file_has "$DISK" "/etc/systemd/network/$net" 'DNS=10.0.2.3'
# Read whole before grep: `grep -q` closing the pipe early fails debugfs under pipefail.
status=$(disk_cat "$DISK" /var/log/ember-status.json)
grep -q '"datasource": "configdrive"' <<<"$status" || fail "status.json: datasource is not configdrive"
grep -qE 'DataSourceConfigDrive \[local,ver=2\]\[source=/dev/sr0\]' <<<"$status" || fail "status.json: not the expected source"
