#![cfg(feature = "ds-upcloud")]
//! The UpCloud datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback, DMI in the host tree, a networkd target: one request; host name, keys, zone,
//! user-data; the network as cloud-init's helper converts it; a NIC the host lacks; faults
//! (500 then 200, 404, slow, bad JSON, no id); weak DMI refused; secrets kept.

use crate::common::emulator::upcloud as md;
use crate::common::emulator::{ok, status};
use crate::common::{self, stderr, Machine};
use crate::vps_machine::{codes, machine, networkd_files};
use std::time::{Duration, Instant};

pub(crate) fn upcloud(name: &str, url: &str) -> Machine {
    let dmi = [
        ("sys_vendor", "UpCloud"),
        ("product_name", "Cloud Server"),
        ("product_uuid", md::UUID),
    ];
    let nics = [("eth0", md::PUBLIC_MAC), ("eth1", md::PRIVATE_MAC)];
    machine(name, &dmi, &nics, url)
}

#[test]
fn provisions_an_upcloud_server_with_its_network() {
    let server = md::start();
    let m = upcloud("uc-full", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::UUID, "{status}");
    assert_eq!(status["datasource"], "upcloud", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "upcloud-test");
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(md::KEY));
    assert_eq!(
        m.target_file("etc/upcloud-secret").trim(),
        "user-data-secret-40c7"
    );
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["availability_zone"], "fi-hel2", "{idata}");
    assert_eq!(idata["v1"]["cloud_id"], "upcloud", "{idata}");
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", md::PUBLIC_MAC),
        &format!("MACAddress={}", md::PRIVATE_MAC),
        "DHCP=ipv4",
        "Address=94.237.105.50/32",
        "Address=172.30.1.10/24",
        "Gateway=172.30.1.1",
        "DNS=172.30.1.2",
        "DNS=94.237.127.9",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    assert_eq!(server.paths(), [md::DOCUMENT]);
    m.assert_secret_not_world_readable("user-data-secret-40c7");
    assert!(!stderr(&out).contains("user-data-secret-40c7"));
}

#[test]
fn a_nic_the_host_lacks_leaves_the_network_to_the_fallback() {
    let server = md::start();
    let m = upcloud("uc-nic", &server.url());
    std::fs::remove_dir_all(m.host.join("sys/class/net/eth1")).unwrap();
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("nic-missing").expect("diag");
    assert_eq!(d["key"], "network.interfaces.1.mac", "{d}");
    assert!(!networkd_files(&m).contains("172.30.1.10"));
}

#[test]
fn faults() {
    let server = md::start();
    let doc = md::document().to_string();
    server.set(md::DOCUMENT, vec![status(503), ok(&doc)]);
    let m = upcloud("uc-retry", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 2);

    // No instance_id: the DMI UUID names the server, as in cloud-init.
    let mut no_id = md::document();
    no_id.as_object_mut().unwrap().remove("instance_id");
    let server = md::start();
    server.set(md::DOCUMENT, vec![ok(&no_id.to_string())]);
    let m = upcloud("uc-noid", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::UUID);

    // JSON cut short: named, in time. 404 and an answer past the deadline are the
    // conformance table's.
    let server = md::start();
    server.set(md::DOCUMENT, vec![ok(&doc[..doc.len() / 3])]);
    let m = upcloud("uc-json", &server.url());
    m.cmdline(&format!(
        "ro ember.metadata-url={} ember.metadata-timeout=1.5",
        server.url()
    ));
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(started.elapsed() < Duration::from_secs(5));
    m.fell_back(&out);
    assert!(codes(&m).contains(&"metadata-invalid".to_string()));
    common::assert_no_panic(&out);
}

#[test]
fn weak_dmi_evidence_is_not_upcloud() {
    let server = md::start();
    let m = machine(
        "uc-weak",
        &[("board_vendor", "UpCloud")],
        &[("eth0", md::PUBLIC_MAC)],
        &server.url(),
    );
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");
}
