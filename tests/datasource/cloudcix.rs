#![cfg(feature = "ds-cloudcix")]
//! CloudCIX end to end: `ember-initrd all` against the metadata emulator on loopback
//! (`ember.metadata-url=`), DMI product_name CloudCIX in the host tree, a networkd target: the
//! instance id, host name, keys, the base64 user-data, the metadata's network config, exactly
//! two requests, faults (500 then 200, 404, bad JSON, no instance id, refused), and no request
//! without evidence.

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::cloudcix::{self as cix, Server};
use emulator::{ok, status};

pub(crate) fn machine(name: &str, url: &str) -> Machine {
    let m = Machine::new(name);
    m.dmi("product_name", "CloudCIX");
    let t = &m.target;
    m.write(t, "usr/lib/systemd/systemd-networkd", b"");
    Accounts::root().user("admin").write(t);
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 1000\n    datasource_timeout_ms: 6000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    for (file, value) in [("address", cix::MAC), ("type", "1"), ("carrier", "1")] {
        m.write(
            &m.host,
            &format!("sys/class/net/ens3/{file}"),
            format!("{value}\n").as_bytes(),
        );
    }
    m.cmdline(&format!("ro ember.metadata-url={url}"));
    m
}

#[test]
fn provisions_from_the_metadata_service() {
    let server = cix::start();
    let m = machine("cix", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.paths(), [cix::METADATA, cix::USERDATA]);
    let st = m.status();
    assert_eq!(st["datasource"], "cloudcix", "{st}");
    assert_eq!(st["instance_id"], cix::INSTANCE_ID, "{st}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["cloud_name"], "cloudcix");
    assert_eq!(m.target_file("etc/hostname").trim(), "cix-vm");
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(cix::KEY));
    assert_eq!(
        m.target_file("etc/cix-secret").trim(),
        "cix-user-data-secret-91a"
    );
    let dir = m.target.join("etc/systemd/network");
    let net: String = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for want in [
        &format!("MACAddress={}", cix::MAC),
        "Address=10.254.3.5/24",
        "Gateway=10.254.3.1",
        "DNS=10.254.3.2",
    ] {
        assert!(net.contains(want), "{want} missing in\n{net}");
    }
    m.assert_secret_not_world_readable("cix-user-data-secret-91a");
    m.assert_secret_not_world_readable(&cix::userdata());
}

#[test]
fn faults_are_retried_or_named() {
    // 500 then 200 is the conformance table's.
    // A user-data the service does not have: the datasource fails, the URL named.
    let server = cix::start();
    server.set(cix::USERDATA, vec![status(404)]);
    let m = machine("cix-404", &server.url());
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-not-found").expect("404 named");
    assert!(d["file"].as_str().unwrap().ends_with("/v1/userdata"), "{d}");
    // Bad JSON and a missing instance id are named by URL (and key), never by content.
    for (name, body, key) in [
        ("cix-json", "{\"instance-id\": \"cix-sec", None),
        (
            "cix-noid",
            "{\"local-hostname\": \"h\"}",
            Some("instance-id"),
        ),
    ] {
        let server = cix::start();
        server.set(cix::METADATA, vec![ok(body)]);
        let m = machine(name, &server.url());
        let out = m.initrd("all");
        m.fell_back(&out);
        let d = m.diag_with_code("metadata-invalid").expect("named");
        assert!(d["file"].as_str().unwrap().ends_with("/v1/metadata"), "{d}");
        assert_eq!(d["key"].as_str(), key, "{d}");
        assert!(!d.to_string().contains("cix-sec"), "{d}");
    }
    // Nothing listens: retried, then said so.
    let port = common::faults::closed_port();
    let m = machine("cix-refused", &format!("http://127.0.0.1:{port}"));
    m.cmdline(&format!(
        "ro ember.metadata-url=http://127.0.0.1:{port} ember.metadata-timeout=2"
    ));
    let out = m.initrd("all");
    m.fell_back(&out);
    // Retried until the wait ends or the tries run out: either way the URL is named.
    let d = ["metadata-unreachable", "fetch-deadline"]
        .iter()
        .find_map(|c| m.diag_with_code(c))
        .unwrap_or_else(|| panic!("{:?}", m.diags()));
    assert!(d["file"].as_str().unwrap().ends_with("/v1/metadata"), "{d}");
}

#[test]
fn no_request_without_evidence() {
    let server: Server = cix::start();
    let m = machine("cix-none", &server.url());
    m.dmi("product_name", "Standard PC (Q35 + ICH9, 2009)");
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.paths().is_empty(), "no packet without evidence");
}
