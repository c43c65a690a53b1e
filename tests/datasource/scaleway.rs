#![cfg(feature = "ds-scaleway")]
//! The Scaleway datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback, detection by DMI, command line and /var/run/scaleway: the document, then
//! user-data and vendor-data from a privileged source port (the emulator refuses others, as
//! Scaleway does), three requests; host name, the account's and the tagged keys; 404 as no
//! data; a held port skipped; faults (500 then 200, bad JSON, no id, slow); weak DMI refused.
//! The privileged ports need root: without it the tests say SKIP.

use crate::common::emulator::scaleway as md;
use crate::common::emulator::scripted::PEER_PORT;
use crate::common::emulator::{ok, status};
use crate::common::{self, stderr, Machine};
use crate::vps_machine::{codes, machine};
use std::time::{Duration, Instant};

fn root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status.lines().find_map(|l| l.strip_prefix("Uid:"));
    let root = uid.and_then(|u| u.split_whitespace().nth(1)) == Some("0");
    if !root {
        common::skip("scaleway: binding a privileged source port needs root");
    }
    root
}

pub(crate) fn scw(name: &str, url: &str) -> Machine {
    machine(
        name,
        &[("sys_vendor", "Scaleway")],
        &[("eth0", md::MAC)],
        url,
    )
}

#[test]
fn provisions_a_scaleway_instance_from_privileged_ports() {
    if !root() {
        return;
    }
    let server = md::start();
    let m = scw("scw-full", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::ID, "{status}");
    assert_eq!(status["datasource"], "scaleway", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "scw-test");
    let keys = m.target_file("home/admin/.ssh/authorized_keys");
    assert!(
        keys.contains(md::KEY) && keys.contains(md::TAG_KEY),
        "{keys}"
    );
    assert_eq!(
        m.target_file("etc/scaleway-secret").trim(),
        "user-data-secret-2aa9"
    );
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["ds"]["meta_data"]["net_in_use"], "ipv4", "{idata}");
    assert_eq!(idata["v1"]["cloud_id"], "scaleway", "{idata}");
    let reqs = server.requests();
    let paths: Vec<_> = reqs.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        ["/conf?format=json", md::USER_DATA, md::VENDOR_DATA],
        "{paths:?}"
    );
    for r in &reqs[1..] {
        let port: u16 = r.header(PEER_PORT).unwrap().parse().unwrap();
        assert!(port < 1024, "{} from port {port}", r.path);
    }
    m.assert_secret_not_world_readable("user-data-secret-2aa9");
    assert!(!stderr(&out).contains("user-data-secret-2aa9"));
}

#[test]
fn detected_by_command_line_or_the_initrd_file_and_not_by_weak_dmi() {
    if !root() {
        return;
    }
    let server = md::start();
    let m = machine(
        "scw-weak",
        &[("board_vendor", "Scaleway")],
        &[("eth0", md::MAC)],
        &server.url(),
    );
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");

    let m = machine("scw-cmdline", &[], &[("eth0", md::MAC)], &server.url());
    m.cmdline(&format!("ro scaleway ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "scaleway");

    let m = machine("scw-file", &[], &[("eth0", md::MAC)], &server.url());
    m.write(&m.host, "var/run/scaleway", b"");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "scaleway");
}

#[test]
fn no_data_a_refused_port_and_faults() {
    if !root() {
        return;
    }
    // 404: no user-data, no vendor-data, nothing wrong.
    let server = md::start();
    server.set(md::USER_DATA, vec![status(404)]);
    server.set(md::VENDOR_DATA, vec![status(404)]);
    let m = scw("scw-404", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert!(!m.target.join("etc/scaleway-secret").exists());

    // Rate-limited on the first port: the next port is asked.
    let server = md::start();
    server.set(md::USER_DATA, vec![status(429), ok(md::USER_DATA_TEXT)]);
    let m = scw("scw-429", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        m.target_file("etc/scaleway-secret").trim(),
        "user-data-secret-2aa9"
    );
    let ports: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.path == md::USER_DATA)
        .map(|r| r.header(PEER_PORT).unwrap().to_string())
        .collect();
    assert_eq!(ports.len(), 2, "{ports:?}");
    assert_ne!(ports[0], ports[1]);

    // Refused on every port: a warning naming the URL, the rest provisions.
    let server = md::start();
    server.set(md::USER_DATA, vec![status(403)]);
    let m = scw("scw-403", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("fetch-failed").expect("diag");
    assert!(d["file"].as_str().unwrap().ends_with(md::USER_DATA), "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), "scw-test");

    let mut no_id = md::conf();
    no_id.as_object_mut().unwrap().remove("id");
    // An answer past the deadline, and 500 then 200, are the conformance table's.
    for (name, answer, code) in [
        ("scw-json", ok("{\"id\":"), &["metadata-invalid"][..]),
        ("scw-noid", ok(&no_id.to_string()), &["metadata-invalid"]),
    ] {
        let server = md::start();
        server.set(md::CONF, vec![answer]);
        let m = scw(name, &server.url());
        m.cmdline(&format!(
            "ro ember.metadata-url={} ember.metadata-timeout=1.5",
            server.url()
        ));
        let started = Instant::now();
        let out = m.initrd("all");
        assert!(started.elapsed() < Duration::from_secs(5), "{name}");
        m.fell_back(&out);
        let found = codes(&m);
        assert!(
            code.iter().any(|c| found.contains(&c.to_string())),
            "{name}: {found:?}"
        );
        common::assert_no_panic(&out);
    }
}
