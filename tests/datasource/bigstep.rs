#![cfg(feature = "ds-bigstep")]
//! Bigstep end to end: `ember-initrd all` with the image's url file naming the endpoint
//! emulator on loopback: one request, meta-data, user- and vendor-data; faults (500 then 200,
//! 404, bad JSON, a bad url file) named by the redacted URL or the file; no request without
//! the url file; the token in the URL kept out of world-readable files.

use crate::common;
use crate::common::emulator;
use common::{stderr, Machine};
use emulator::bigstep as bs;
use emulator::{ok, status};

const URL_FILE: &str = "var/lib/cloud/data/seed/bigstep/url";

pub(crate) fn machine(name: &str, url: &str) -> Machine {
    let m = Machine::new(name);
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 1000\n    datasource_timeout_ms: 6000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m.write(&m.target, URL_FILE, format!("{url}\n").as_bytes());
    m
}

#[test]
fn provisions_from_the_url_file() {
    let server = bs::start();
    let m = machine("bs", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.paths(), [bs::PATH], "one request");
    let st = m.status();
    assert_eq!(st["datasource"], "bigstep", "{st}");
    assert_eq!(st["instance_id"], bs::INSTANCE_ID, "{st}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "bs-node");
    assert_eq!(
        m.target_file("etc/bs-secret").trim(),
        "bigstep-user-data-secret-2d8"
    );
    assert!(m
        .handoff_module("runcmd")
        .to_string()
        .contains("bigstep-vendor-ran"));
    m.assert_secret_not_world_readable("bigstep-user-data-secret-2d8");
    m.assert_secret_not_world_readable("bs-token-5e1c90");
}

#[test]
fn faults_are_retried_or_named() {
    let server = bs::start();
    server.set(vec![status(503), ok(&bs::document().to_string())]);
    let m = machine("bs-retry", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.paths().len(), 2);

    for (name, answer, code) in [
        ("bs-404", status(404), "metadata-not-found"),
        (
            "bs-json",
            ok("{\"metadata\": {\"x\": \"bs-secret-val"),
            "metadata-invalid",
        ),
        (
            "bs-nometa",
            ok("{\"userdata_raw\": \"\"}"),
            "metadata-invalid",
        ),
    ] {
        let server = bs::start();
        server.set(vec![answer]);
        let m = machine(name, &server.url());
        let out = m.initrd("all");
        m.fell_back(&out);
        let d = m
            .diag_with_code(code)
            .unwrap_or_else(|| panic!("{name}: {:?}", m.diags()));
        let file = d["file"].as_str().unwrap();
        assert!(file.starts_with("http://127.0.0.1:"), "{d}");
        assert!(!d.to_string().contains("bs-secret-val"), "{d}");
    }

    let m = machine("bs-badurl", "ftp://example.invalid/x");
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("bad-value").expect("the url file named");
    assert_eq!(d["file"], "/var/lib/cloud/data/seed/bigstep/url", "{d}");
}

#[test]
fn no_request_without_the_url_file() {
    let server = bs::start();
    let m = machine("bs-none", &server.url());
    std::fs::remove_file(m.target.join(URL_FILE)).unwrap();
    let out = m.initrd("all");
    assert_ne!(m.status()["datasource"], "bigstep", "{}", stderr(&out));
    assert!(server.paths().is_empty(), "no packet without evidence");
}
