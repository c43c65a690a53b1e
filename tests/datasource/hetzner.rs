#![cfg(feature = "ds-hetzner")]
//! The Hetzner datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback, DMI in the host tree, a networkd target: three requests; host name, keys,
//! user-data (plain, base64, empty), vendor-data; the metadata's network-config with the
//! private network added; the serial check; faults (500 then 200, 404, slow, bad YAML, a
//! missing key, private networks or user-data failing alone); weak DMI refused; secrets kept.

use crate::common::emulator::hetzner as md;
use crate::common::emulator::{ok, status};
use crate::common::{self, stderr, Machine};
use crate::vps_machine::{codes, machine, networkd_files};
use base64::Engine;
use std::time::{Duration, Instant};

fn server_id() -> String {
    md::SERVER_ID.to_string()
}

pub(crate) fn hetzner(name: &str, url: &str) -> Machine {
    let serial = server_id();
    let dmi = [
        ("sys_vendor", "Hetzner"),
        ("product_name", "vServer"),
        ("product_serial", serial.as_str()),
    ];
    let nics = [("eth0", md::PUBLIC_MAC), ("eth1", md::PRIVATE_MAC)];
    machine(name, &dmi, &nics, url)
}

#[test]
fn provisions_a_hetzner_server_with_its_network() {
    let server = md::start();
    let m = hetzner("hz-full", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], server_id(), "{status}");
    assert_eq!(status["datasource"], "hetzner", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "cx22-test");
    let keys = m.target_file("home/admin/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/hetzner-secret").trim(),
        "user-data-secret-91fa"
    );
    let idata = m.json("ember/instance-data.json");
    let v1 = &idata["v1"];
    for (key, want) in [
        ("cloud_id", "hetzner"),
        ("platform", "hetzner"),
        ("local_hostname", "cx22-test"),
        ("instance_id", "42881234"),
    ] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    let ds_md = &idata["ds"]["meta_data"];
    assert_eq!(ds_md["private-networks"][0]["ip"], "10.0.0.2", "{ds_md}");
    // The metadata's v1: eth0 by MAC, DHCPv4, the static IPv6 with its link-local gateway;
    // the private network by MAC with DHCPv4.
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", md::PUBLIC_MAC),
        &format!("MACAddress={}", md::PRIVATE_MAC),
        "Address=2a01:4f8:c012:abcd::1/64",
        "Gateway=fe80::1",
        "DNS=185.12.64.1",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    assert_eq!(net.matches("DHCP=ipv4").count(), 2, "{net}");
    let paths = server.paths();
    assert_eq!(
        paths,
        [md::METADATA, md::PRIVATE_NETWORKS, md::USERDATA],
        "{paths:?}"
    );
    m.assert_secret_not_world_readable("user-data-secret-91fa");
    assert!(
        !stderr(&out).contains("user-data-secret-91fa"),
        "secret on stderr"
    );
}

#[test]
fn user_data_base64_empty_or_missing() {
    let encoded = base64::engine::general_purpose::STANDARD.encode(md::USER_DATA);
    let server = md::start();
    server.set(md::USERDATA, vec![ok(&encoded)]);
    let m = hetzner("hz-b64", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        m.target_file("etc/hetzner-secret").trim(),
        "user-data-secret-91fa"
    );

    // No user-data: a 204, or an empty 200; the rest provisions, nothing is wrong.
    for (name, answer) in [("hz-204", status(204)), ("hz-empty", ok(""))] {
        let server = md::start();
        server.set(md::USERDATA, vec![answer]);
        let m = hetzner(name, &server.url());
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(m.diags().is_empty(), "{name}: {:?}", m.diags());
        assert!(!m.target.join("etc/hetzner-secret").exists(), "{name}");
        assert_eq!(m.target_file("etc/hostname").trim(), "cx22-test");
    }

    // A user-data that fails alone is a warning naming it; the metadata still provisions.
    let server = md::start();
    server.set(md::USERDATA, vec![status(403)]);
    let m = hetzner("hz-ud-403", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-status").expect("diag");
    assert!(d["file"].as_str().unwrap().ends_with(md::USERDATA), "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), "cx22-test");
}

#[test]
fn private_networks_failing_or_for_a_missing_nic_leave_the_public_config() {
    let server = md::start();
    server.set(md::PRIVATE_NETWORKS, vec![ok("- [broken")]);
    let m = hetzner("hz-pn-bad", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("yaml-syntax").expect("diag");
    assert!(
        d["file"].as_str().unwrap().ends_with(md::PRIVATE_NETWORKS),
        "{d}"
    );
    let net = networkd_files(&m);
    assert!(
        net.contains(md::PUBLIC_MAC) && !net.contains(md::PRIVATE_MAC),
        "{net}"
    );

    let server = md::start();
    let m = hetzner("hz-pn-nic", &server.url());
    std::fs::remove_dir_all(m.host.join("sys/class/net/eth1")).unwrap();
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("nic-missing").expect("diag");
    assert_eq!(d["key"], "private-networks.0.mac_address", "{d}");
    assert!(networkd_files(&m).contains(md::PUBLIC_MAC));
}

#[test]
fn the_serial_must_be_the_server_id() {
    let server = md::start();
    let m = hetzner("hz-serial", &server.url());
    m.dmi("product_serial", "999");
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert_eq!(d["key"], "instance-id", "{d}");
    assert!(d["file"].as_str().unwrap().ends_with(md::METADATA), "{d}");
    assert!(!m.target.join("etc/hostname").exists());
}

#[test]
fn faults_in_the_metadata() {
    // 500 then 200, 404 and an answer past the deadline are the conformance table's.
    let without_id = md::metadata().replace("instance-id:", "server-id:");
    let without_net = md::metadata()
        .split("network-config:")
        .next()
        .unwrap()
        .to_string();
    // The fetch fails and None stands in, or the instance is provisioned with a warning.
    for (name, answer, code, fell_back) in [
        ("hz-yaml", ok("hostname: [x\n"), &["yaml-syntax"][..], true),
        ("hz-list", ok("- 1\n"), &["wrong-type"], true),
        ("hz-noid", ok(&without_id), &["metadata-invalid"], true),
        ("hz-nonet", ok(&without_net), &["metadata-invalid"], false),
    ] {
        let server = md::start();
        server.set(md::METADATA, vec![answer]);
        let m = hetzner(name, &server.url());
        m.cmdline(&format!(
            "ro ember.metadata-url={} ember.metadata-timeout=1.5",
            server.url()
        ));
        let started = Instant::now();
        let out = m.initrd("all");
        assert!(started.elapsed() < Duration::from_secs(5), "{name}");
        if fell_back {
            m.fell_back(&out);
        } else {
            assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        }
        let found = codes(&m);
        assert!(
            code.iter().any(|c| found.contains(&c.to_string())),
            "{name}: {found:?}"
        );
        common::assert_no_panic(&out);
    }
}

#[test]
fn weak_dmi_evidence_is_not_hetzner() {
    let server = md::start();
    let dmi = [("board_vendor", "Hetzner"), ("product_name", "vServer")];
    let m = machine("hz-weak", &dmi, &[("eth0", md::PUBLIC_MAC)], &server.url());
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");

    // The vendor without the serial: cloud-init refuses, the id cannot be checked.
    let m = machine(
        "hz-noserial",
        &[("sys_vendor", "Hetzner")],
        &[],
        &server.url(),
    );
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(server.requests().is_empty());
}
