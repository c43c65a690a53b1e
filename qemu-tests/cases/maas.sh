# MAAS in QEMU: no DMI evidence; the image holds the settings curtin writes for a deployed
# machine (cloud.cfg.d/90_dpkg_maas.cfg: metadata_url and the node's OAuth credentials). ember
# takes a DHCP lease of its own (no default route in the initramfs), reads the five files of
# the metadata emulator (the cargo tests' own, which refuses a request without a valid OAuth
# PLAINTEXT header) at 169.254.169.254, and provisions the host name, key and user-data.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
cat >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90_dpkg_maas.cfg" <<'CFG'
datasource:
  MAAS:
    metadata_url: http://169.254.169.254/MAAS/metadata/
    consumer_key: Xh4nFhQyYMbzKjqXmz
    token_key: Lm9g3fc2x8KhxT7Ryc
    token_secret: token-secret-9d4e/NQZ
    consumer_secret: ''
CFG
chmod 0600 "$CASE_DIR/root/etc/cloud/cloud.cfg.d/90_dpkg_maas.cfg"
# detect and fetch run before the root is mounted: the settings go into the initramfs too.
mkdir -p "$CASE_DIR/initrd-extra/etc/cloud/cloud.cfg.d"
cp -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d/90_dpkg_maas.cfg" "$CASE_DIR/initrd-extra/etc/cloud/cloud.cfg.d/"
initrd_plus "$CASE_DIR/initrd-extra" "$CASE_DIR/initrd.img"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds maas
boot_case first --disk "$DISK" --net "$IMDS_PORT" --initrd "$CASE_DIR/initrd.img" \
    --append "root=/dev/vda1 ro"
console_has 'status: (done|degraded)'
file_is "$DISK" /etc/hostname node-4y3h7n
file_has "$DISK" /home/debian/.ssh/authorized_keys 'maas-key'
mode_is "$DISK" /etc/maas-secret 600
file_has "$DISK" /var/log/ember-status.json '"datasource": "maas"'
[ "$(grep -c '^GET /MAAS/metadata/2012-03-01/' "$CASE_DIR/imds.requests")" = 5 ] ||
    fail "not five signed requests: $(cat "$CASE_DIR/imds.requests")"
console_lacks 'token-secret-9d4e'
