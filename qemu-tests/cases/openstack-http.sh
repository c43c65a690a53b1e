# OpenStack metadata service in QEMU: DMI says OpenStack Nova, no config drive, no ip=: ember
# leases an address with its own DHCP client, asks the Nova emulator (the cargo tests' own)
# at 169.254.169.254 for its versions and the newest known one's files, and provisions the
# hostname, the key, the user-data and network_data.json's bond and VLAN by MAC.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds openstack
boot_case first --disk "$DISK" --net "$IMDS_PORT" --mac fa:16:3e:00:00:01 \
    --smbios "type=1,manufacturer=OpenStack Foundation,product=OpenStack Nova" \
    --append "root=/dev/vda1 ro"
console_has 'status: (done|degraded)'
console_has 'EMBER-TARGET: ipv4 \[\]'
file_is "$DISK" /etc/hostname os-test
file_has "$DISK" /home/debian/.ssh/authorized_keys 'mykey$'
mode_is "$DISK" /etc/os-secret 600
file_has "$DISK" /var/lib/ember/data/instance-id '83679162-1378-4288-a2d4-70e13ec132aa'
# Read whole before grep: `grep -q` closing the pipe early fails debugfs under pipefail.
status=$(disk_cat "$DISK" /var/log/ember-status.json)
grep -q '"datasource": "openstack"' <<<"$status" || fail "status.json: datasource is not openstack"
grep -qE 'DataSourceOpenStack \[net,ver=2\]\[source=http://169.254.169.254\]' <<<"$status" || fail "status.json: not the expected source"
nets=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network")
echo "$nets" | grep -q 'netdev' || fail "no bond or vlan netdev rendered"
