# `ds=nocloud;s=http://…` with no `ip=` on the command line: ember brings the NIC up with its
# own DHCP client (no udhcpc, no `ip` binary), fetches the seed, and takes the lease down again
# before the pivot, so the booted system finds the link without an address.
busybox_disk
serve_seed "$EMBER_REPO/tests/fixtures/seeds/basic"
boot_case boot --disk "$DISK" --net "$SEED_PORT" \
    --append "root=/dev/vda1 ro ds=nocloud;s=http://169.254.169.254/seed/"
disk=$DISK
console_has 'status: done'
console_has 'EMBER-TARGET: ipv4 \[\]'
grep -q 'GET /seed/user-data' "$CASE_DIR/http.log" || fail "user-data was not fetched over http"
file_is "$disk" /etc/hostname ember-qemu
file_has "$disk" /var/log/ember-status.json '"ephemeral network eth0"'
file_has "$disk" /var/log/ember-status.json '"result": "ok \(dhcp'
