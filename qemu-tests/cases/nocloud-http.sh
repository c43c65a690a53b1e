# `ds=nocloud;s=http://169.254.169.254/seed/` over the network: the initramfs brings the NIC
# up (ip=dhcp), QEMU forwards 169.254.169.254:80 to a loopback web server holding the seed.
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
    --append "root=/dev/vda1 ro ip=dhcp ds=nocloud;s=http://169.254.169.254/seed/"
disk=$CASE_DIR/disk.img
console_has 'status: done'
grep -q 'GET /seed/meta-data' "$CASE_DIR/http.log" || fail "meta-data was not fetched over http"
grep -q 'GET /seed/user-data' "$CASE_DIR/http.log" || fail "user-data was not fetched over http"
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /home/tester/.ssh/authorized_keys 'tester@ember-qemu$'
file_is "$disk" /var/log/ember-test-runcmd instance
