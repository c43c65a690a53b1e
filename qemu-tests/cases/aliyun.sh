# AliYun in QEMU: DMI says Alibaba Cloud ECS (-smbios), no ip= and no ds=: ember detects
# AliYun, leases an address on a 100.100.100.0/24 user network with its own DHCP client,
# asks the ECS metadata emulator (the cargo tests' own) at 100.100.100.200 for a token under
# AliYun's header names, then user-data, vendor-data and meta-data/all, and provisions the
# hostname, the default user's key, the user-data and the per-MAC network config.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds aliyun
boot_case first --disk "$DISK" --subnet 100.100.100 --fwd "100.100.100.200:80:$IMDS_PORT" \
    --mac 00:16:3e:0a:0b:0c --smbios "type=1,manufacturer=Alibaba Cloud,product=Alibaba Cloud ECS" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
file_is "$DISK" /etc/hostname iZbp1emulatorZ
file_has "$DISK" /home/debian/.ssh/authorized_keys 'ecs-key'
mode_is "$DISK" /etc/ecs-secret 600
net=$(disk_debugfs "$DISK" "ls -l /etc/systemd/network" | grep -o '10-cloud-init-[^ ]*\.network' | head -n1)
[ -n "$net" ] || fail "no networkd file rendered"
file_has "$DISK" "/etc/systemd/network/$net" 'MACAddress=00:16:3e:0a:0b:0c'
file_has "$DISK" /var/log/ember-status.json '"datasource": "aliyun"'
grep -q '^PUT /latest/api/token$' "$CASE_DIR/imds.requests" || fail "no token asked"
grep -q '^GET /2016-01-01/meta-data/all$' "$CASE_DIR/imds.requests" || fail "no meta-data/all"
console_lacks 'degraded'
