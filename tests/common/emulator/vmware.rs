//! VMware's guest-side interfaces, emulated: the OVF environment a vSphere vApp (or
//! `ovftool`) writes on the CD (DSP0243's `Environment`/`PropertySection`), and the guestinfo
//! table behind a stand-in `vmware-rpctool` (a shell script over a directory, one file per
//! key) that answers `info-get` and `info-set` as open-vm-tools' does: the value on stdout,
//! or "No value found" on stderr with exit 1. QEMU has no VMware RPC channel, so this script is
//! as close as a test gets to the hypervisor's table.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/vmware.html>

use base64::Engine as _;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

pub const INSTANCE_ID: &str = "iid-vmware-7d1e";
pub const HOSTNAME: &str = "vmw-guest-1";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIVmwareGuestinfoKeyForTestsX vmw-key";
pub const OVF_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIVmwareOvfKeyForTestsOnlyX ovf-key";
pub const PASSWORD: &str = "ovf-pw-secret-91c3";
pub const MAC: &str = "00:50:56:aa:bb:01";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/vmware-ud\n    content: guestinfo-user-data-secret-3b7f\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str = "#cloud-config\nruncmd:\n  - echo vmware-vendor-data-ran\n";
pub const OVF_USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/ovf-ud\n    content: ovf-user-data-secret-0e44\n    permissions: '0600'\n";

pub fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

pub fn gz_b64(text: &str) -> String {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    base64::engine::general_purpose::STANDARD.encode(enc.finish().unwrap())
}

/// The guestinfo metadata (YAML, as VMware's documentation shows it): the instance, a
/// netplan-style network matched by MAC with a static address, and `redact`.
pub fn metadata() -> String {
    format!(
        "instance-id: {INSTANCE_ID}\nlocal-hostname: {HOSTNAME}\npublic-keys-data: {KEY}\nredact:\n  - userdata\n  - vendordata\nnetwork:\n  version: 2\n  ethernets:\n    nic0:\n      match:\n        macaddress: \"{MAC}\"\n      set-name: ens192\n      addresses: [192.168.10.20/24]\n      routes:\n        - to: default\n          via: 192.168.10.1\n      nameservers:\n        addresses: [192.168.10.1]\n"
    )
}

/// The table of a VM given metadata, gzip'ed user-data and base64 vendor-data.
pub fn table() -> Vec<(String, String)> {
    vec![
        ("metadata".into(), metadata()),
        ("userdata".into(), gz_b64(USER_DATA)),
        ("userdata.encoding".into(), "gzip+base64".into()),
        ("vendordata".into(), b64(VENDOR_DATA)),
        ("vendordata.encoding".into(), "base64".into()),
    ]
}

/// ovf-env.xml with these properties, as vSphere writes it.
pub fn ovf_env(props: &[(&str, &str)]) -> String {
    let mut x = String::from(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<Environment\n     xmlns=\"http://schemas.dmtf.org/ovf/environment/1\"\n",
        "     xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n",
        "     xmlns:oe=\"http://schemas.dmtf.org/ovf/environment/1\"\n",
        "     xmlns:ve=\"http://www.vmware.com/schema/ovfenv\"\n",
        "     oe:id=\"\"\n     ve:vCenterId=\"vm-42\">\n",
        "   <PlatformSection>\n      <Kind>VMware ESXi</Kind>\n      <Version>8.0.0</Version>\n",
        "      <Vendor>VMware, Inc.</Vendor>\n      <Locale>en</Locale>\n   </PlatformSection>\n",
        "   <PropertySection>\n",
    ));
    for (k, v) in props {
        x.push_str(&format!(
            "         <Property oe:key=\"{k}\" oe:value=\"{v}\"/>\n"
        ));
    }
    x.push_str("   </PropertySection>\n</Environment>\n");
    x
}

/// The OVF fixture: every property cloud-init reads, and a network config.
pub fn ovf_props() -> Vec<(&'static str, String)> {
    let net = "network:\n  version: 2\n  ethernets:\n    nic0:\n      match: {macaddress: \"00:50:56:aa:bb:01\"}\n      dhcp4: true\n";
    vec![
        ("instance-id", "iid-ovf-5a2c".into()),
        ("hostname", "ovf-guest-1".into()),
        ("public-keys", OVF_KEY.into()),
        ("user-data", b64(OVF_USER_DATA)),
        ("password", PASSWORD.into()),
        ("network-config", b64(net)),
    ]
}

pub fn ovf_fixture() -> String {
    let props = ovf_props();
    let refs: Vec<(&str, &str)> = props.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ovf_env(&refs)
}

/// Writes a stand-in `vmware-rpctool` into `bin_dir` over the table in `table_dir`; each call
/// is appended to `table_dir/.calls` (the command only: `info-set` values are `---` or a
/// space here). `fail` makes every call fail as on a machine that is not VMware.
pub fn fake_rpctool(bin_dir: &Path, table_dir: &Path, table: &[(String, String)], fail: bool) {
    let seen = table_dir.display().to_string();
    fake_rpctool_seen(bin_dir, table_dir, &seen, table, fail);
}

/// `fake_rpctool` for a tool that runs chrooted: the script names the table `seen`, the
/// path of `table_dir` inside the target.
pub fn fake_rpctool_seen(
    bin_dir: &Path,
    table_dir: &Path,
    seen: &str,
    table: &[(String, String)],
    fail: bool,
) {
    std::fs::create_dir_all(bin_dir).unwrap();
    std::fs::create_dir_all(table_dir).unwrap();
    for (k, v) in table {
        std::fs::write(table_dir.join(k), v).unwrap();
    }
    let dir = seen;
    let body = if fail {
        "echo 'Failed sending message to VMware.' >&2\nexit 1\n".to_string()
    } else {
        format!(
            "case \"$1\" in\n\
             'info-get guestinfo.'*)\n  k=${{1#info-get guestinfo.}}\n  echo \"get $k\" >> {dir}/.calls\n  \
             if [ -f \"{dir}/$k\" ]; then cat \"{dir}/$k\"; else echo 'No value found' >&2; exit 1; fi ;;\n\
             'info-set guestinfo.'*)\n  r=${{1#info-set guestinfo.}}\n  k=${{r%% *}}\n  echo \"set $k\" >> {dir}/.calls\n  \
             printf %s \"${{r#* }}\" > \"{dir}/$k\" ;;\n\
             *) echo 'Unknown command' >&2; exit 1 ;;\nesac\n"
        )
    };
    let tool = bin_dir.join("vmware-rpctool");
    std::fs::write(&tool, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
}
