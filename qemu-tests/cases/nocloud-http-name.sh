# `ds=nocloud;s=http://seed.example/seed/` by name, without `ip=`: ember leases an address
# itself and resolves the name with its own resolver. The lease's DNS server (QEMU's own) is
# silent on a restricted network, so the answer comes from `nameserver=` on the command line:
# a loopback dnsmasq that knows only seed.example (no upstream), reached over TCP, since the
# restricted network drops UDP. Had QEMU passed a query on to the host's resolver, its
# NXDOMAIN would have stopped the lookup and the case would fail.
busybox_disk
serve_seed "$EMBER_REPO/tests/fixtures/seeds/basic"
DNS_PORT=$(free_port)
dnsmasq --no-daemon --conf-file=/dev/null --no-resolv --no-hosts --log-queries --pid-file= \
    --listen-address=127.0.0.1 --bind-interfaces --port="$DNS_PORT" \
    --address=/seed.example/169.254.169.254 >"$CASE_DIR/dns.log" 2>&1 &
DNS_SERVER=$!
trap 'kill $SEED_SERVER $DNS_SERVER 2>/dev/null' EXIT
boot_case boot --disk "$DISK" --net "$SEED_PORT" --dns "$DNS_PORT" \
    --append "root=/dev/vda1 ro nameserver=169.254.169.53 ds=nocloud;s=http://seed.example/seed/"
disk=$DISK
console_has 'status: done'
grep -q 'query\[A\] seed.example from 127.0.0.1' "$CASE_DIR/dns.log" || fail "seed.example was not asked"
grep -q 'GET /seed/user-data' "$CASE_DIR/http.log" || fail "user-data was not fetched over http"
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /var/log/ember-status.json '"ephemeral network eth0"'
