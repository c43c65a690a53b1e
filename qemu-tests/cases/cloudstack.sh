# CloudStack in QEMU: DMI says CloudStack (-smbios), no ip= and no ds=: ember detects
# CloudStack, leases an address with its own DHCP client and looks for the virtual router as
# cloud-init does, by the name data-server first: a loopback dnsmasq (reached over TCP at
# nameserver=169.254.169.53, the restricted network dropping UDP) says 169.254.169.254, where
# the emulator (the cargo tests' own) serves latest/user-data and the meta-data tree and,
# on 8080, the password server. Had the name not been used, the DHCP server (QEMU's
# 169.254.169.2, which serves nothing) would have been asked and the case would fail.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds cloudstack
PW_PORT=$(sed -n 2p "$CASE_DIR/imds.port")
[ -n "$PW_PORT" ] || fail "the emulator gave no password server port"
DNS_PORT=$(free_port)
dnsmasq --no-daemon --conf-file=/dev/null --no-resolv --no-hosts --log-queries --pid-file= \
    --listen-address=127.0.0.1 --bind-interfaces --port="$DNS_PORT" \
    --address=/data-server/169.254.169.254 >"$CASE_DIR/dns.log" 2>&1 &
DNS_SERVER=$!
trap 'kill $IMDS_PID $DNS_SERVER 2>/dev/null' EXIT
boot_case first --disk "$DISK" --net "$IMDS_PORT" --dns "$DNS_PORT" \
    --fwd "169.254.169.254:8080:$PW_PORT" --mac 1e:00:2a:00:00:07 \
    --smbios "type=1,manufacturer=Apache Software Foundation,product=CloudStack KVM Hypervisor" \
    --append "root=/dev/vda1 ro nameserver=169.254.169.53"
console_has 'status: done'
grep -q 'query\[A\] data-server from 127.0.0.1' "$CASE_DIR/dns.log" || fail "data-server was not asked"
file_is "$DISK" /etc/hostname cs-vm-1
file_has "$DISK" /home/debian/.ssh/authorized_keys 'cs-key'
mode_is "$DISK" /etc/cs-secret 600
file_has "$DISK" /etc/shadow '^debian:\$6\$'
file_has "$DISK" /var/log/ember-status.json '"datasource": "cloudstack"'
# Only data-server's answer leads to 169.254.169.254: the DHCP server and gateway are .2.
grep -q '^GET /latest/meta-data/instance-id$' "$CASE_DIR/imds.requests" || fail "no instance-id read"
# (`degraded` is expected: the test's nameserver= has no interface to be rendered on.)
