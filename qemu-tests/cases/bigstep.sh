# Bigstep in QEMU: the image carries /var/lib/cloud/data/seed/bigstep/url naming the endpoint
# emulator (the cargo tests' own, at 169.254.169.254 through guestfwd, its token in the query);
# no DMI sign, no ds=: the initramfs has no default route, so ember takes its own DHCP lease,
# reads the document in one request and provisions the hostname, user-data and vendor-data.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/var/lib/cloud/data/seed/bigstep"
echo 'http://169.254.169.254/v1/instance.json?token=bs-token-5e1c90' \
    >"$CASE_DIR/root/var/lib/cloud/data/seed/bigstep/url"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds bigstep
boot_case first --disk "$DISK" --net "$IMDS_PORT" --append "root=/dev/vda1 ro"
console_has 'status: done'
console_has 'bigstep-vendor-ran'
file_is "$DISK" /etc/hostname bs-node
file_has "$DISK" /etc/bs-secret 'bigstep-user-data-secret-2d8'
mode_is "$DISK" /etc/bs-secret 600
file_has "$DISK" /var/lib/ember/data/instance-id 'bigstep-instance-4411'
status=$(disk_cat "$DISK" /var/log/ember-status.json)
grep -q '"datasource": "bigstep"' <<<"$status" || fail "status.json: datasource is not bigstep"
grep -q 'bs-token' <<<"$status" && fail "status.json shows the URL's token"
requests=$(cat "$CASE_DIR/imds.requests")
[ "$(grep -c . <<<"$requests")" = 1 ] || fail "expected one request, got: $requests"
