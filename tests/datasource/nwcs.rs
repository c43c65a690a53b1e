#![cfg(feature = "ds-nwcs")]
//! The NWCS datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback, DMI in the host tree, a networkd target: one request; host name, keys,
//! user-data; the network renamed by MAC; faults (500 then 200, 404, bad JSON, no id, no
//! network); weak DMI refused; secrets kept.

use crate::common::emulator::nwcs as md;
use crate::common::emulator::ok;
use crate::common::{self, stderr, Machine};
use crate::vps_machine::{codes, machine, networkd_files};

pub(crate) fn nwcs(name: &str, url: &str) -> Machine {
    machine(name, &[("sys_vendor", "NWCS")], &[("ens3", md::MAC)], url)
}

#[test]
fn provisions_an_nwcs_server_with_its_network() {
    let server = md::start();
    let m = nwcs("nw-full", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::ID, "{status}");
    assert_eq!(status["datasource"], "nwcs", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "nwcs-test");
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(md::KEY));
    assert_eq!(
        m.target_file("etc/nwcs-secret").trim(),
        "user-data-secret-b17d"
    );
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", md::MAC),
        "Address=192.0.2.10/24",
        "Gateway=192.0.2.1",
        "DNS=192.0.2.53",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    assert_eq!(server.paths(), [md::DOCUMENT]);
    m.assert_secret_not_world_readable("user-data-secret-b17d");
}

#[test]
fn faults() {
    // 500 then 200 and 404 are the conformance table's.
    let mut no_net = md::document();
    no_net.as_object_mut().unwrap().remove("network");
    let server = md::start();
    server.set(md::DOCUMENT, vec![ok(&no_net.to_string())]);
    let m = nwcs("nw-nonet", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert_eq!(d["key"], "network.config", "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), "nwcs-test");

    let mut no_id = md::document();
    no_id.as_object_mut().unwrap().remove("instance-id");
    for (name, answer, code) in [
        ("nw-json", ok("{\"instance-id\": "), "metadata-invalid"),
        ("nw-noid", ok(&no_id.to_string()), "metadata-invalid"),
    ] {
        let server = md::start();
        server.set(md::DOCUMENT, vec![answer]);
        let m = nwcs(name, &server.url());
        let out = m.initrd("all");
        m.fell_back(&out);
        assert!(
            codes(&m).contains(&code.to_string()),
            "{name}: {:?}",
            codes(&m)
        );
        common::assert_no_panic(&out);
    }
}

#[test]
fn weak_dmi_evidence_is_not_nwcs() {
    let server = md::start();
    let m = machine(
        "nw-weak",
        &[("board_vendor", "NWCS")],
        &[("ens3", md::MAC)],
        &server.url(),
    );
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");
}
