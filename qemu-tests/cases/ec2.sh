# EC2 in QEMU: DMI says Amazon EC2 (-smbios), the command line has no ip= and no ds=: ember
# detects EC2, leases an address with its own DHCP client, asks the IMDS emulator (the cargo
# tests' own) at 169.254.169.254 with IMDSv2, and provisions the hostname, the default user's
# keys, the user-data and the network config matched by MAC; the lease is gone after the pivot.
make_busybox_root "$CASE_DIR/root"
# As distributions' cloud.cfg say: the default user, who gets the instance's keys.
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds ec2
boot_case first --disk "$DISK" --net "$IMDS_PORT" --mac 0e:49:61:0f:c3:11 \
    --smbios "type=1,manufacturer=Amazon EC2,product=t3.micro" --append "root=/dev/vda1 ro"
console_has 'status: done'
console_has 'EMBER-TARGET: ipv4 \[\]'
file_is "$DISK" /etc/hostname ip-10-0-1-5
file_has "$DISK" /home/debian/.ssh/authorized_keys 'my-public-key'
file_has "$DISK" /home/debian/.ssh/authorized_keys 'other-key'
mode_is "$DISK" /etc/ec2-secret 600
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" 'MACAddress=0e:49:61:0f:c3:11'
file_has "$DISK" /var/log/ember-status.json '"datasource": "ec2"'
console_lacks 'degraded'
