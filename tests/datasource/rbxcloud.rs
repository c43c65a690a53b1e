#![cfg(feature = "ds-rbxcloud")]
//! RbxCloud end to end: `ember-initrd all` on a real VFAT volume (`mkfs.vfat -n CLOUDMD`)
//! holding cloud.json and user.data as the platform writes them: the default user from
//! cloud.json (its SHA-512 hash, keys, sudo), the adapters rendered for networkd by MAC, a
//! broken cloud.json named by file, an ISO with the label ignored (cloud-init mounts FAT only),
//! and the password hash kept out of world-readable files.

use crate::common;
use crate::common::target::Accounts;
use common::{have, stderr, Machine};

const MAC: &str = "00:15:5d:ff:0f:03";
const HASH: &str = "$6$rounds=4096$rbxsalt$Zm9vYmFyYmF6aGFzaHZhbHVlZm9ydGVzdHM";
const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRbx guru@rbx";

fn machine(name: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    m.write(t, "usr/lib/systemd/systemd-networkd", b"");
    Accounts::root().group("sudo", 27).shadow().write(t);
    m.write(t, "etc/cloud/cloud.cfg", b"users: [default]\n");
    for (file, value) in [("address", MAC), ("type", "1"), ("carrier", "1")] {
        let path = format!("sys/class/net/eth0/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
    m
}

fn cloud_json() -> String {
    format!(
        r#"{{"vm": {{"_id": "5beab44f680cffd11f0e7a0c", "name": "rbx-vm", "memory": 1024}},
  "additionalMetadata": {{"username": "guru", "sshKeys": ["{KEY}"],
    "password": {{"sha512": "{HASH}"}}}},
  "netadp": [{{"macaddress": "00:15:5D:FF:0F:03", "ip": [{{"address": "62.181.8.174"}}],
    "network": {{"netmask": "255.255.248.0", "gateway": "62.181.8.1",
      "dns": {{"nameservers": ["8.8.8.8", "8.8.4.4"]}}}}}}]}}"#
    )
}

const USER_DATA: &str = "#cloud-config\nruncmd:\n  - echo rbx-user-data-ran\n";

fn tools() -> bool {
    let ok = have("mkfs.vfat") && have("mcopy");
    if !ok {
        common::skip("dosfstools or mtools missing");
    }
    ok
}

#[test]
fn cloudmd_volume_provisions() {
    if !tools() {
        return;
    }
    let m = machine("rbx");
    let json = cloud_json();
    m.vfat_seed(
        "vdb",
        "CLOUDMD",
        &[("cloud.json", &json), ("user.data", USER_DATA)],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["datasource"], "rbxcloud", "{st}");
    assert_eq!(st["instance_id"], "5beab44f680cffd11f0e7a0c", "{st}");
    assert_eq!(
        st["datasource_detail"],
        "DataSourceRbxCloud [seed=/dev/vdb]"
    );
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "rbx-vm");
    // The platform's user is the default user, with its hash, keys and sudo.
    assert!(
        m.target_file("etc/passwd").contains("guru:"),
        "no user guru"
    );
    let shadow = m.target_file("etc/shadow");
    assert!(shadow.contains(&format!("guru:{HASH}:")), "{shadow}");
    assert!(m
        .target_file("home/guru/.ssh/authorized_keys")
        .contains(KEY));
    let sudoers = m.target_file("etc/sudoers.d/90-cloud-init-users");
    assert!(sudoers.contains("guru ALL=(ALL) NOPASSWD:ALL"), "{sudoers}");
    assert!(m
        .handoff_module("runcmd")
        .to_string()
        .contains("rbx-user-data-ran"));
    let dir = m.target.join("etc/systemd/network");
    let net: String = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for want in [
        &format!("MACAddress={MAC}"),
        "Address=62.181.8.174/21",
        "Gateway=62.181.8.1",
        "DNS=8.8.8.8",
    ] {
        assert!(net.contains(want), "{want} missing in\n{net}");
    }
    m.assert_secret_not_world_readable(HASH);
}

#[test]
fn broken_cloud_json_is_named_and_iso_is_not_read() {
    if !tools() {
        return;
    }
    let m = machine("rbx-broken");
    m.vfat_seed(
        "vdb",
        "cloudmd",
        &[("cloud.json", "{\"vm\": {\"_id\": \"x-secret")],
    );
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-invalid").expect("a diagnostic");
    assert_eq!(d["file"], "/dev/vdb: cloud.json", "{d}");
    assert!(!d.to_string().contains("x-secret"), "{d}");

    let m = machine("rbx-no-netadp");
    m.vfat_seed(
        "vdb",
        "CLOUDMD",
        &[("cloud.json", r#"{"vm": {"_id": "a"}}"#)],
    );
    m.initrd("all");
    let d = m.diag_with_code("missing-key").expect("netadp named");
    assert_eq!(d["key"], "netadp", "{d}");

    if have("xorriso") {
        let m = machine("rbx-iso");
        m.iso_seed("sr0", "CLOUDMD", &[("cloud.json", &cloud_json())]);
        let out = m.initrd("detect");
        assert!(
            !common::stdout(&out).contains("rbxcloud"),
            "{}",
            common::stdout(&out)
        );
    }
}
