# Vultr in QEMU: DMI says Vultr with the SUBID as serial (-smbios), no ds=. First boot, no ip=,
# ember.on-error=halt: ember leases an address with its own DHCP client, but QEMU's DHCP
# server routes nothing to 169.254.169.254 (Vultr's do, by option 121), so, as cloud-init
# judges it, this is not Vultr's network and the metadata is not asked: no request reaches
# the emulator. None stands in, as in cloud-init (ds-identify ends every list with None): the
# failure and the fallback are warnings, so ember.on-error=halt lets the boot go on. Second
# boot, ip=dhcp (the initramfs's own DHCP, a default route): ember reads /v1.json (the cargo
# tests' emulator) in one request with Metadata-Token, and provisions the hostname, the key
# and the user-data, a new instance after None's. The emulator's private NIC is not on this
# VM: the network config is refused as cloud-init refuses it (a warning), and the fallback is
# rendered.
make_busybox_root "$CASE_DIR/root"
mkdir -p "$CASE_DIR/root/etc/cloud/cloud.cfg.d"
echo 'users: [default]' >"$CASE_DIR/root/etc/cloud/cloud.cfg.d/90-users.cfg"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
serve_imds vultr
smbios="type=1,manufacturer=Vultr,product=VC2,serial=42872224"
boot_case no-route --disk "$DISK" --net "$IMDS_PORT" --mac 56:00:03:1b:4e:ca \
    --smbios "$smbios" --append "root=/dev/vda1 ro ember.on-error=halt"
console_lacks 'ember asked to stop the boot'
console_has 'gave no route to 169\.254\.169\.254'
console_has 'used the fallback datasource None'
console_has 'status: (done|degraded)'
[ ! -s "$CASE_DIR/imds.requests" ] || fail "a request without Vultr's route: $(cat "$CASE_DIR/imds.requests")"
disk_exists "$DISK" /etc/vultr-secret && fail "provisioned without the metadata"
boot_case dhcp --disk "$DISK" --net "$IMDS_PORT" --mac 56:00:03:1b:4e:ca \
    --smbios "$smbios" --append "root=/dev/vda1 ro ip=dhcp"
console_has 'status: (done|degraded)'
file_is "$DISK" /etc/hostname vultr-guest
file_has "$DISK" /home/debian/.ssh/authorized_keys 'vultr-key'
mode_is "$DISK" /etc/vultr-secret 600
file_has "$DISK" /var/log/ember-status.json '"datasource": "vultr"'
file_has "$DISK" /var/log/ember-status.json 'nic-missing'
[ "$(wc -l <"$CASE_DIR/imds.requests")" -eq 1 ] || fail "expected 1 request: $(cat "$CASE_DIR/imds.requests")"
