# AltCloud (vSphere) in QEMU: DMI product_name "VMware Virtual Platform" (-smbios) and a CD
# labelled CDROM holding user-data.txt, no ds=: ember reads the user-data in-process and runs
# it; OpenNebula, which shares the CDROM label, leaves the CD alone (it has no context.sh).
make_busybox_root "$CASE_DIR/root"
DISK=$CASE_DIR/disk.img
make_disk "$CASE_DIR/root" "$DISK"
cd_dir=$CASE_DIR/cdrom
mkdir -p "$cd_dir"
printf '#cloud-config\nruncmd:\n  - echo EMBER-ALTCLOUD-USERDATA-RAN\n' >"$cd_dir/user-data.txt"
xorriso -as mkisofs -quiet -V CDROM -J -R -o "$CASE_DIR/cdrom.iso" "$cd_dir" 2>/dev/null ||
    fail "xorriso failed"
boot_case first --disk "$DISK" --cdrom "$CASE_DIR/cdrom.iso" \
    --smbios "type=1,manufacturer=VMware,product=VMware Virtual Platform" \
    --append "root=/dev/vda1 ro"
console_has 'status: done'
console_has 'EMBER-ALTCLOUD-USERDATA-RAN'
file_has "$DISK" /var/lib/ember/data/instance-id '^455$'
status=$(disk_cat "$DISK" /var/log/ember-status.json)
grep -q '"datasource": "altcloud"' <<<"$status" || fail "status.json: datasource is not altcloud"
grep -qF 'vsphere (/dev/sr0)' <<<"$status" || grep -qF 'DataSourceAltCloud [seed=/dev/sr0]' <<<"$status" ||
    fail "status.json: not the expected seed"
