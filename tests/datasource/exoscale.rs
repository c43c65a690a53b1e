//! The Exoscale datasource end to end: `ember-initrd all` against the CloudStack-style
//! emulator with Exoscale's API version `1.0` (`ember.metadata-url=`) and its password server
//! (the image's `password_server_port`), DMI in the host tree: the host name, keys, user-data,
//! the password set for the default user and acknowledged, never written in clear; no
//! password, a password server that fails or refuses (warnings, the boot goes on), metadata
//! faults (500 then 200, no instance id, slow), weak DMI refused.
#![cfg(feature = "ds-exoscale")]

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::cloudstack::{self as md, Server};
use emulator::{ok, status, Answer};
use std::path::Path;
use std::time::{Duration, Instant};

pub(crate) fn exoscale_vm(name: &str, server: &Server) -> Machine {
    let m = Machine::new(name);
    m.dmi("sys_vendor", "Exoscale");
    m.dmi("product_name", "Exoscale Compute Platform");
    target(&m, server.password_port);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

fn target(m: &Machine, password_port: u16) {
    let t = &m.target;
    Accounts::root().user("ubuntu").shadow().write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = format!("users: [default]\nsystem_info:\n  default_user:\n    name: ubuntu\ndatasource:\n  Exoscale:\n    password_server_port: {password_port}\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n");
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

/// Nowhere in what ember wrote, whatever the mode.
fn assert_nowhere(dir: &Path, secret: &str) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            assert_nowhere(&path, secret);
        } else if path.is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            assert!(
                !text.contains(secret),
                "clear password in {}",
                path.display()
            );
        }
    }
}

fn shadow_of(m: &Machine, user: &str) -> String {
    let shadow = m.target_file("etc/shadow");
    let line = shadow.lines().find(|l| l.starts_with(&format!("{user}:")));
    line.unwrap_or_default()
        .split(':')
        .nth(1)
        .unwrap_or_default()
        .to_string()
}

#[test]
fn provisions_with_the_password_servers_password() {
    let server = md::start_exoscale();
    let m = exoscale_vm("exo-full", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::ID, "{status}");
    assert_eq!(status["datasource"], "exoscale", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    let keys = m.target_file("home/ubuntu/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/cs-secret").trim(),
        "user-data-secret-4d8b"
    );
    // The default user's password set from the server's, acknowledged after it was read.
    assert!(
        shadow_of(&m, "ubuntu").starts_with("$6$"),
        "{}",
        m.target_file("etc/shadow")
    );
    assert_eq!(
        server.password_requests(),
        ["send_my_password", "saved_password"]
    );
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["availability_zone"], "ch-gva-2", "{idata}");
    assert_eq!(idata["v1"]["cloud_id"], "exoscale", "{idata}");
    // user-data, the listing, each leaf.
    let paths = server.paths();
    assert_eq!(paths[0], "/1.0/user-data");
    assert_eq!(paths[1], "/1.0/meta-data/");
    assert_eq!(paths.len(), 2 + md::leaves().len(), "{paths:?}");
    assert_nowhere(&m.dir, md::PASSWORD);
    assert!(!stderr(&out).contains(md::PASSWORD));
    m.assert_secret_not_world_readable("user-data-secret-4d8b");
    eprintln!(
        "exoscale emulator: {} requests, ember-initrd all in {took:?}",
        paths.len() + 2
    );
}

#[test]
fn no_password_or_a_failing_password_server_leaves_the_password_alone() {
    for (name, answers, want) in [
        ("exo-saved", vec![ok("saved_password")], None),
        ("exo-empty", vec![ok("")], None),
        ("exo-bad", vec![ok("bad_request")], Some("metadata-status")),
        // Read, but the acknowledgement fails: not used (the server keeps it).
        (
            "exo-noack",
            vec![ok(md::PASSWORD), status(403)],
            Some("metadata-status"),
        ),
    ] {
        let server = md::start_exoscale();
        server.set_password_answers(answers);
        let m = exoscale_vm(name, &server);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(shadow_of(&m, "ubuntu"), "!", "{name}");
        assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME, "{name}");
        match want {
            None => assert!(m.diags().is_empty(), "{name}: {:?}", m.diags()),
            Some(code) => {
                let d = m.diag_with_code(code).expect(name);
                assert_eq!(d["severity"], "warning", "{d}");
                assert!(
                    d["file"]
                        .as_str()
                        .unwrap()
                        .contains(&server.password_port.to_string()),
                    "{d}"
                );
            }
        }
        assert_nowhere(&m.dir, md::PASSWORD);
    }
}

#[test]
fn metadata_faults() {
    // 500 then the listing.
    let server = md::start_exoscale();
    server.set(
        "meta-data/",
        vec![
            status(500),
            ok(&md::leaves()
                .iter()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>()
                .join("\n")),
        ],
    );
    let m = exoscale_vm("exo-retry", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::ID);

    // No instance id: nothing provisions, and no password is asked for.
    let server = md::start_exoscale();
    server.set("meta-data/instance-id", vec![status(404)]);
    let m = exoscale_vm("exo-noid", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert_eq!(d["key"], "instance-id", "{d}");
    assert!(server.password_requests().is_empty());

    // Slow: the deadline ends it.
    let server = md::start_exoscale();
    server.set(
        "user-data",
        vec![Answer::Slow(Duration::from_secs(6), Box::new(ok("x")))],
    );
    let m = exoscale_vm("exo-slow", &server);
    m.cmdline(&format!(
        "ro ember.metadata-url={} ember.metadata-timeout=1.5",
        server.url()
    ));
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(started.elapsed() < Duration::from_secs(5));
    m.fell_back(&out);
    let codes = ["metadata-unreachable", "fetch-deadline"];
    assert!(
        codes.iter().any(|c| m.diag_with_code(c).is_some()),
        "{:?}",
        m.diags()
    );
    common::assert_no_panic(&out);
}

#[test]
fn weak_dmi_evidence_is_not_exoscale() {
    let server = md::start_exoscale();
    let m = Machine::new("exo-weak");
    m.dmi("sys_vendor", "Exoscale");
    m.dmi("product_name", "KVM");
    target(&m, server.password_port);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.paths().is_empty() && server.password_requests().is_empty());
}
