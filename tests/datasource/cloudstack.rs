//! The CloudStack datasource end to end: `ember-initrd all` against the CloudStack emulator
//! (`ember.metadata-url=` standing for the virtual router, which the unit tests find by
//! data-server, DHCP server and gateway) and its password server, DMI in the host tree: the
//! host name, keys, user-data under `latest`, the password set and acknowledged, never
//! written in clear; a failing password server and metadata faults; weak DMI refused.
#![cfg(feature = "ds-cloudstack")]

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::cloudstack::{self as md, Server};
use emulator::{ok, status, Answer};
use std::time::{Duration, Instant};

pub(crate) fn cs_vm(name: &str, server: &Server) -> Machine {
    let m = Machine::new(name);
    m.dmi("sys_vendor", "Apache Software Foundation");
    m.dmi("product_name", "CloudStack KVM Hypervisor");
    let t = &m.target;
    Accounts::root().user("cloud").shadow().write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = format!("users: [default]\nsystem_info:\n  default_user:\n    name: cloud\ndatasource:\n  CloudStack:\n    password_server_port: {}\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n", server.password_port);
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

/// Nowhere in what ember wrote, whatever the mode: only its hash is kept.
fn assert_nowhere(dir: &std::path::Path, secret: &str) {
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
fn provisions_from_the_virtual_router() {
    let server = md::start();
    let m = cs_vm("cs-full", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::ID, "{status}");
    assert_eq!(status["datasource"], "cloudstack", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    let keys = m.target_file("home/cloud/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/cs-secret").trim(),
        "user-data-secret-4d8b"
    );
    assert!(
        shadow_of(&m, "cloud").starts_with("$6$"),
        "{}",
        m.target_file("etc/shadow")
    );
    assert_eq!(
        server.password_requests(),
        ["send_my_password", "saved_password"]
    );
    let paths = server.paths();
    assert_eq!(paths[..2], ["/latest/user-data", "/latest/meta-data/"]);
    assert_eq!(paths.len(), 2 + md::leaves().len(), "{paths:?}");
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["cloud_id"], "cloudstack", "{idata}");
    assert_eq!(idata["v1"]["availability_zone"], "ch-gva-2", "{idata}");
    m.assert_secret_not_world_readable("user-data-secret-4d8b");
    m.assert_secret_not_world_readable(md::PASSWORD);
    assert_nowhere(&m.dir, md::PASSWORD);
    assert!(!stderr(&out).contains(md::PASSWORD));
    eprintln!(
        "cloudstack emulator: {} requests, ember-initrd all in {took:?}",
        paths.len() + 2
    );
}

#[test]
fn a_refusing_or_silent_password_server_is_a_warning() {
    for (name, answers) in [
        ("cs-bad", vec![ok("bad_request")]),
        ("cs-500", vec![status(500)]),
    ] {
        let server = md::start();
        server.set_password_answers(answers);
        let m = cs_vm(name, &server);
        m.cmdline(&format!(
            "ro ember.metadata-url={} ember.metadata-timeout=3",
            server.url()
        ));
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(shadow_of(&m, "cloud"), "!", "{name}");
        let warned = m.diags().into_iter().find(|d| {
            d["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("password server")
        });
        let d = warned.unwrap_or_else(|| panic!("{name}: {:?}", m.diags()));
        assert_eq!(d["severity"], "warning", "{d}");
        assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    }
}

#[test]
fn metadata_faults() {
    let server = md::start();
    server.set("user-data", vec![status(404)]);
    server.set(
        "meta-data/local-hostname",
        vec![status(500), ok("renamed-vm")],
    );
    let m = cs_vm("cs-noud", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!m.target.join("etc/cs-secret").exists());
    assert_eq!(m.target_file("etc/hostname").trim(), "renamed-vm");

    let server = md::start();
    server.set(
        "meta-data/",
        vec![Answer::Slow(
            Duration::from_secs(6),
            Box::new(ok("instance-id")),
        )],
    );
    let m = cs_vm("cs-slow", &server);
    m.cmdline(&format!(
        "ro ember.metadata-url={} ember.metadata-timeout=1.5",
        server.url()
    ));
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(started.elapsed() < Duration::from_secs(5));
    m.fell_back(&out);
    let codes = ["metadata-unreachable", "fetch-deadline", "fetch-failed"];
    assert!(
        codes.iter().any(|c| m.diag_with_code(c).is_some()),
        "{:?}",
        m.diags()
    );
    assert!(server.password_requests().is_empty());
    common::assert_no_panic(&out);
}

#[test]
fn weak_dmi_evidence_is_not_cloudstack() {
    let server = md::start();
    let m = cs_vm("cs-weak", &server);
    m.dmi("product_name", "Apache CloudStack");
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.paths().is_empty() && server.password_requests().is_empty());
}
