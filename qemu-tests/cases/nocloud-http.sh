# `ds=nocloud;s=http://169.254.169.254/seed/` over the network: the initramfs brings the NIC
# up (ip=dhcp), QEMU forwards 169.254.169.254:80 to a loopback web server holding the seed.
busybox_disk
serve_seed "$EMBER_REPO/tests/fixtures/seeds/basic"
boot_case boot --disk "$DISK" --net "$SEED_PORT" \
    --append "root=/dev/vda1 ro ip=dhcp ds=nocloud;s=http://169.254.169.254/seed/"
disk=$DISK
console_has 'status: done'
grep -q 'GET /seed/meta-data' "$CASE_DIR/http.log" || fail "meta-data was not fetched over http"
grep -q 'GET /seed/user-data' "$CASE_DIR/http.log" || fail "user-data was not fetched over http"
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /home/tester/.ssh/authorized_keys 'tester@ember-qemu$'
file_is "$disk" /var/log/ember-test-runcmd instance
