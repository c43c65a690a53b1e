# `ds=nocloud;s=http://…` with no `ip=` on the command line: ember brings the NIC up with its
# own DHCP client (no udhcpc, no `ip` binary), fetches the seed, and takes the lease down again
# before the pivot, so the booted system finds the link without an address.
make_busybox_root "$CASE_DIR/root"
make_disk "$CASE_DIR/root" "$CASE_DIR/disk.img"
mkdir -p "$CASE_DIR/www/seed"
cp "$EMBER_REPO"/qemu-tests/seeds/basic/* "$CASE_DIR/www/seed/"
port=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$CASE_DIR/www" "$port" \
    >"$CASE_DIR/http.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
boot_case boot --disk "$CASE_DIR/disk.img" --net "$port" \
    --append "root=/dev/vda1 ro ds=nocloud;s=http://169.254.169.254/seed/"
disk=$CASE_DIR/disk.img
console_has 'status: done'
console_has 'EMBER-TARGET: ipv4 \[\]'
grep -q 'GET /seed/user-data' "$CASE_DIR/http.log" || fail "user-data was not fetched over http"
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /var/log/ember-status.json '"ephemeral network eth0"'
file_has "$disk" /var/log/ember-status.json '"result": "ok \(dhcp'
