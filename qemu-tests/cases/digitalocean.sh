# DigitalOcean in QEMU: DMI says DigitalOcean with the droplet id as serial (-smbios), no ip=
# and no ds=: ember takes a random link-local address on the first NIC (no DHCP, as cloud-init
# does on a droplet), reads the metadata emulator (the cargo tests' own) at 169.254.169.254
# and provisions the hostname, the default user's key and the user-data. The emulator's
# droplet has a private NIC this VM lacks, so, as in cloud-init, its network config is
# refused (a warning) and the fallback is rendered.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds digitalocean
boot_case first --disk "$DISK" --net "$IMDS_PORT" --mac 04:01:2a:0f:2a:01 \
    --smbios "type=1,manufacturer=DigitalOcean,product=Droplet,serial=2756294" \
    --append "root=/dev/vda1 ro"
console_has 'status: (done|degraded)'
file_is "$DISK" /etc/hostname sample-droplet
file_has "$DISK" /home/debian/.ssh/authorized_keys 'droplet-key'
mode_is "$DISK" /etc/do-secret 600
file_has "$DISK" /var/log/ember-status.json '"datasource": "digitalocean"'
file_has "$DISK" /var/log/ember-status.json 'link-local 169\.254\.'
file_has "$DISK" /var/log/ember-status.json 'nic-missing'
