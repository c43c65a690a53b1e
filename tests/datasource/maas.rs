#![cfg(feature = "ds-maas")]
//! The MAAS datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback, which checks every OAuth PLAINTEXT header as MAAS does, with the credentials in
//! the image config: the files into the instance, one signed GET each; a wrong token refused;
//! a service clock an hour off (the skew from its Date, one retry); 500 then 200; a required
//! file missing; the seed directory; partial credentials; no config, no request; secrets kept.

use crate::common;
use crate::common::emulator::maas::{self as md, Server};
use crate::common::emulator::{status, Answer};
use crate::common::target::Accounts;
use common::{stderr, Machine};
use std::time::{Duration, Instant};

pub(crate) fn config(server: &Server, token_secret: &str) -> String {
    format!(
        "datasource:\n  MAAS:\n    metadata_url: {}\n    consumer_key: {}\n    token_key: {}\n    token_secret: {token_secret}\n    consumer_secret: ''\n",
        server.url(),
        md::CONSUMER_KEY,
        md::TOKEN_KEY
    )
}

pub(crate) fn node(name: &str, ds_config: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    Accounts::root().user("admin").write(t);
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 1500\n    datasource_timeout_ms: 6000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    // Where curtin leaves MAAS's settings, 0600 as it writes them.
    let path = t.join("etc/cloud/cloud.cfg.d/90_dpkg_maas.cfg");
    m.write(
        t,
        "etc/cloud/cloud.cfg.d/90_dpkg_maas.cfg",
        ds_config.as_bytes(),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    m
}

/// No file ember wrote that others may read (the run directory, the target) holds `secret`,
/// and neither does stderr.
fn assert_kept(m: &Machine, out: &std::process::Output, secret: &str) {
    m.assert_secret_not_world_readable(secret);
    assert!(!stderr(out).contains(secret), "secret on stderr");
    let status = m.run_file("ember/status.json");
    assert!(!status.contains(secret), "secret in status.json");
}

#[test]
fn provisions_a_node_with_signed_requests() {
    let server = md::start();
    let m = node("maas-full", &config(&server, md::TOKEN_SECRET));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["datasource"], "maas", "{status}");
    assert_eq!(status["instance_id"], md::INSTANCE_ID, "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert!(m
        .target_file("etc/hostname")
        .trim()
        .starts_with("node-4y3h7n"));
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(md::KEY));
    assert_eq!(
        m.target_file("etc/maas-secret").trim(),
        "maas-user-data-6c1b"
    );
    let inst = format!("var/lib/cloud/instances/{}", md::INSTANCE_ID);
    let vendor = m.target_file(&format!("{inst}/vendor-data.txt"));
    assert_eq!(vendor, "#cloud-config\nbootcmd: [echo maas-vendor-03aa]\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 5, "{reqs:?}");
    assert_eq!(
        reqs[0].path,
        "/MAAS/metadata/2012-03-01/meta-data/instance-id"
    );
    assert!(reqs.iter().all(|r| r.header("authorization").is_some()));
    let v1 = &m.json("ember/instance-data.json")["v1"];
    assert_eq!(v1["platform"], "maas", "{v1}");
    for s in ["token-secret-9d4e", md::TOKEN_KEY, "maas-user-data-6c1b"] {
        assert_kept(&m, &out, s);
    }
}

#[test]
fn a_wrong_token_is_refused_and_named_without_its_value() {
    let server = md::start();
    let m = node("maas-badtoken", &config(&server, "not-the-secret-51aa"));
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-status").expect("diag");
    let msg = d["message"].as_str().unwrap();
    assert!(msg.contains("401") && msg.contains("refused"), "{d}");
    // The clocks agree: nothing to correct, so no second try.
    assert_eq!(server.requests().len(), 1);
    assert_kept(&m, &out, "not-the-secret-51aa");
}

#[test]
fn a_service_clock_an_hour_ahead_is_followed() {
    let server = md::start();
    server
        .clock_offset
        .store(3600, std::sync::atomic::Ordering::SeqCst);
    let m = node("maas-skew", &config(&server, md::TOKEN_SECRET));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::INSTANCE_ID);
    // One refusal teaches the skew; the five files follow with it.
    assert_eq!(server.requests().len(), 6, "{:?}", server.requests());
}

#[test]
fn server_errors_retried_optional_files_absent_required_missing() {
    let server = md::start();
    server.set(
        "user-data",
        vec![status(500), Answer::Body(200, b"#!/bin/sh\n".to_vec())],
    );
    server.set("meta-data/public-keys", vec![status(404)]);
    server.set(
        "meta-data/vendor-data",
        vec![Answer::Body(200, b"[1, 2]".to_vec())],
    );
    let m = node("maas-retry", &config(&server, md::TOKEN_SECRET));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 6);
    let d = m
        .diag_with_code("metadata-invalid")
        .expect("vendor-data diag");
    assert_eq!(d["key"], "meta-data/vendor-data", "{d}");

    let server = md::start();
    server.set("meta-data/local-hostname", vec![status(404)]);
    let m = node("maas-missing", &config(&server, md::TOKEN_SECRET));
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-not-found").expect("diag");
    assert_eq!(d["key"], "meta-data/local-hostname", "{d}");

    let server = md::start();
    let slow = Answer::Slow(Duration::from_secs(8), Box::new(status(200)));
    server.set("meta-data/instance-id", vec![slow]);
    let m = node("maas-slow", &config(&server, md::TOKEN_SECRET));
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(started.elapsed() < Duration::from_secs(8));
    m.fell_back(&out);
    common::assert_no_panic(&out);
}

#[test]
fn the_seed_directory_needs_no_network() {
    let server = md::start();
    let m = node("maas-seed", &config(&server, md::TOKEN_SECRET));
    let dir = "var/lib/cloud/seed/maas";
    for (f, body) in [
        ("meta-data/instance-id", "node-seeded"),
        ("meta-data/local-hostname", "seeded"),
        ("user-data", "#cloud-config\n"),
    ] {
        m.write(&m.target, &format!("{dir}/{f}"), body.as_bytes());
    }
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "node-seeded");
    assert!(server.requests().is_empty());
    let v1 = &m.json("ember/instance-data.json")["v1"];
    assert_eq!(
        v1["subplatform"], "seed-dir (/var/lib/cloud/seed/maas)",
        "{v1}"
    );
}

#[test]
fn partial_credentials_and_no_config() {
    let server = md::start();
    let partial = format!(
        "datasource:\n  MAAS:\n    metadata_url: {}\n    consumer_key: {}\n",
        server.url(),
        md::CONSUMER_KEY
    );
    let m = node("maas-partial", &partial);
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(
        m.diag_with_code("config-invalid").is_some(),
        "{:?}",
        m.diags()
    );
    assert!(server.requests().is_empty());

    let m = node("maas-none", "datasource:\n  MAAS: {}\n");
    m.initrd("all");
    assert_eq!(m.status()["datasource"], "none");
}
