#![cfg(feature = "ds-ibmcloud")]
//! IBM Cloud end to end: `ember-initrd all` on real VFAT config drives (`mkfs.vfat -i 9796932E
//! -n config-2`, IBM's mark) and ISO9660 METADATA volumes on a host that shows Xen: the OS-code
//! drive with its network_data.json, the template drive with networking left to IBM, the
//! provisioning boot left alone, and an OpenStack config-2 (unmarked, or not on Xen) left to
//! ConfigDrive.

use crate::common;
use crate::common::target::Accounts;
use common::{have, stderr, Machine};
use std::process::Command;

const MAC: &str = "06:b4:8e:00:00:01";
const KEY: &str = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQIbm ibm@example";
const UUID: &str = "ibm-vsi-2f7c";

fn machine(name: &str, xen: bool) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    m.write(t, "usr/lib/systemd/systemd-networkd", b"");
    Accounts::root().user("admin").write(t);
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    for (file, value) in [("address", MAC), ("type", "1"), ("carrier", "1")] {
        let path = format!("sys/class/net/eth0/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
    if xen {
        std::fs::create_dir_all(m.host.join("proc/xen")).unwrap();
    }
    m
}

fn drive_files() -> Vec<(&'static str, String)> {
    let md = format!(
        r#"{{"uuid": "{UUID}", "hostname": "ibm-vsi", "name": "ibm-vsi", "domain": "example.com",
            "public_keys": {{"1234": "{KEY}"}}, "random_seed": "aWJtLXNlZWQ="}}"#
    );
    let net = format!(
        r#"{{"links": [{{"id": "interface_1", "type": "phy", "ethernet_mac_address": "{MAC}"}}],
            "networks": [{{"id": "n1", "type": "ipv4", "link": "interface_1",
              "ip_address": "10.10.0.5", "netmask": "255.255.255.192",
              "routes": [{{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.10.0.1"}}]}}],
            "services": [{{"type": "dns", "address": "10.0.80.11"}}]}}"#
    );
    vec![
        ("openstack/latest/meta_data.json", md),
        ("openstack/latest/network_data.json", net),
        (
            "openstack/latest/user_data",
            "#cloud-config\nruncmd:\n  - echo ibm-user-data-ran\n".into(),
        ),
        (
            "openstack/latest/vendor_data.json",
            r##"{"cloud-init": "#cloud-config\nbootcmd:\n  - echo ibm-vendor-ran\n"}"##.into(),
        ),
    ]
}

/// A VFAT drive at /dev/<dev> with `uuid` as its serial (`9796932E`), with directories.
fn vfat_drive(m: &Machine, dev: &str, label: &str, serial: &str) {
    let sys = m.host.join("sys/class/block").join(dev);
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::write(sys.join("removable"), "0\n").unwrap();
    std::fs::write(sys.join("size"), "8192\n").unwrap();
    let node = m.host.join("dev").join(dev);
    let run = |cmd: &mut Command| {
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{cmd:?}: {}", stderr(&out));
    };
    run(Command::new("truncate").args(["-s", "4M"]).arg(&node));
    run(Command::new("mkfs.vfat")
        .args(["-n", label, "-i", serial])
        .arg(&node));
    for dir in ["::openstack", "::openstack/latest"] {
        run(Command::new("mmd").arg("-i").arg(&node).arg(dir));
    }
    for (i, (path, body)) in drive_files().iter().enumerate() {
        let src = m.dir.join(format!("vfat-src-{i}"));
        std::fs::write(&src, body).unwrap();
        run(Command::new("mcopy")
            .arg("-i")
            .arg(&node)
            .arg(&src)
            .arg(format!("::{path}")));
    }
}

fn networkd(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return String::new();
    };
    entries
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect()
}

fn tools() -> bool {
    let ok = have("mkfs.vfat") && have("mcopy") && have("mmd");
    if !ok {
        common::skip("dosfstools or mtools missing");
    }
    ok
}

#[test]
fn os_code_drive_provisions() {
    if !tools() {
        return;
    }
    let m = machine("ibm-oscode", true);
    vfat_drive(&m, "xvdh", "config-2", "9796932E");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["datasource"], "ibmcloud", "{st}");
    assert_eq!(st["instance_id"], UUID, "{st}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    let detail = st["datasource_detail"].as_str().unwrap();
    assert_eq!(detail, "DataSourceIBMCloud [OS-Code/Live /dev/xvdh]");
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["subplatform"], "OS-Code/Live (/dev/xvdh)");
    assert_eq!(idata["v1"]["cloud_name"], "ibmcloud");
    let md = &idata["ds"]["meta_data"];
    assert_eq!(md["local-hostname"], "ibm-vsi", "{md}");
    assert!(
        md.get("random_seed").is_none() && md.get("domain").is_none(),
        "{md}"
    );
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(KEY));
    assert!(m
        .handoff_module("runcmd")
        .to_string()
        .contains("ibm-user-data-ran"));
    let net = networkd(&m);
    for want in [
        &format!("MACAddress={MAC}"),
        "Address=10.10.0.5/26",
        "Gateway=10.10.0.1",
        "DNS=10.0.80.11",
    ] {
        assert!(net.contains(want), "{want} missing in\n{net}");
    }
    m.assert_secret_not_world_readable("aWJtLXNlZWQ=");
}

#[test]
fn openstack_config_drives_stay_with_configdrive() {
    if !tools() {
        return;
    }
    // IBM's mark, but not on Xen: cloud-init's IBMCloud does not run; it is a config drive.
    let m = machine("ibm-notxen", false);
    vfat_drive(&m, "vdb", "config-2", "9796932E");
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "configdrive", "{}", stderr(&out));
    // On Xen, a config-2 without IBM's UUID is OpenStack's.
    let m = machine("ibm-unmarked", true);
    vfat_drive(&m, "xvdh", "config-2", "12345678");
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "configdrive", "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], UUID);
}

#[test]
fn template_metadata_volume_leaves_network_to_ibm() {
    if !have("xorriso") {
        return common::skip("xorriso missing");
    }
    let m = machine("ibm-template", true);
    let files = drive_files();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, b)| (*p, b.as_str())).collect();
    m.iso_seed("xvdi", "METADATA", &files);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["datasource"], "ibmcloud", "{st}");
    assert_eq!(
        st["datasource_detail"],
        "DataSourceIBMCloud [Template/Live/Metadata /dev/xvdi]"
    );
    assert!(networkd(&m).is_empty(), "{}", networkd(&m));
    assert!(m
        .handoff_module("runcmd")
        .to_string()
        .contains("ibm-user-data-ran"));

    // The provisioning boot (IBM's config there, no install log yet): IBM's agent owns it.
    let m = machine("ibm-provisioning", true);
    m.iso_seed("xvdi", "METADATA", &files);
    m.write(&m.target, "root/provisioningConfiguration.cfg", b"x\n");
    let out = m.initrd("detect");
    assert!(
        !common::stdout(&out).contains("ibmcloud"),
        "{}",
        common::stdout(&out)
    );
}
