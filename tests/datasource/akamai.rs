#![cfg(feature = "ds-akamai")]
//! The Akamai datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback, DMI in the host tree: token, instance and user-data in three requests with the
//! headers the API wants; the token never written anywhere; local data only when the
//! service is silent or refuses the token, as cloud-init; the settings from DMI and the
//! image; faults (500 then 200, bad JSON, bad base64); weak DMI refused.

use crate::common::emulator::akamai as md;
use crate::common::emulator::{ok, status, Answer};
use crate::common::{self, stderr, Machine};
use crate::vps_machine::{codes, machine};
use std::time::{Duration, Instant};

pub(crate) fn linode(name: &str, url: &str) -> Machine {
    let id = md::ID.to_string();
    let dmi = [
        ("sys_vendor", "Linode"),
        ("product_name", "Compute Instance"),
        ("product_serial", id.as_str()),
    ];
    machine(name, &dmi, &[("eth0", md::MAC)], url)
}

#[test]
fn provisions_a_linode_with_token_instance_and_user_data() {
    let server = md::start();
    let m = linode("ak-full", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::ID.to_string(), "{status}");
    assert_eq!(status["datasource"], "akamai", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "linode-host");
    assert_eq!(
        m.target_file("etc/akamai-secret").trim(),
        "user-data-secret-e81b"
    );
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["region"], "us-ord", "{idata}");
    assert_eq!(idata["v1"]["cloud_id"], "akamai", "{idata}");
    assert_eq!(
        idata["ds"]["meta_data"]["label"], "linode51423587",
        "{idata}"
    );
    let reqs = server.requests();
    let seen: Vec<_> = reqs
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(
        seen,
        ["PUT /v1/token", "GET /v1/instance", "GET /v1/user-data"],
        "{seen:?}"
    );
    assert_eq!(reqs[0].header("metadata-token-expiry-seconds"), Some("300"));
    assert_eq!(reqs[1].header("accept"), Some("application/json"));
    for s in [md::TOKEN, "user-data-secret-e81b"] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(&out).contains(s), "secret on stderr");
    }
    let sensitive =
        std::fs::read_to_string(m.run.join("ember/instance-data-sensitive.json")).unwrap();
    assert!(
        !sensitive.contains(md::TOKEN),
        "the token is kept in memory only"
    );
}

#[test]
fn silence_or_a_refused_token_gives_local_data_only() {
    for (name, path, answer) in [
        (
            "ak-silent",
            md::TOKEN_PATH,
            Answer::Garbage(b"\x00".to_vec()),
        ),
        ("ak-no-token", md::TOKEN_PATH, status(403)),
        ("ak-401", md::INSTANCE, status(401)),
    ] {
        let server = md::start();
        server.set(path, vec![answer]);
        let m = linode(name, &server.url());
        m.cmdline(&format!(
            "ro ember.metadata-url={} ember.metadata-timeout=1.5",
            server.url()
        ));
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(m.status()["instance_id"], md::ID.to_string(), "{name}");
        let d = m.diag_with_code("metadata-unreachable").expect("diag");
        assert!(
            d["message"].as_str().unwrap().contains("local data only"),
            "{name}: {d}"
        );
        assert!(!m.target.join("etc/akamai-secret").exists(), "{name}");
        common::assert_no_panic(&out);
    }
}

#[test]
fn settings_can_forbid_the_fetch() {
    // `ais=0` in the baseboard serial with a network already up (a test host has no route
    // table, which ember takes as someone else's network): cloud-init's init stage refused.
    let server = md::start();
    let m = linode("ak-dmi-ais", &server.url());
    m.dmi("board_serial", "ais=0;v6=1");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(server.requests().is_empty(), "{:?}", server.paths());
    assert_eq!(m.status()["instance_id"], md::ID.to_string());

    // Both families forbidden by the image: local data only, nothing sent.
    let server = md::start();
    let m = linode("ak-img", &server.url());
    let cfg = m.target_file("etc/cloud/cloud.cfg")
        + "datasource:\n  Akamai:\n    allow_ipv4: false\n    allow_ipv6: false\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(server.requests().is_empty(), "{:?}", server.paths());
    let d = m.diag_with_code("metadata-unreachable").expect("diag");
    assert!(d["message"].as_str().unwrap().contains("forbid"), "{d}");
}

#[test]
fn faults() {
    // 500 then 200 and an answer past the deadline are the conformance table's.
    // User-data that is not base64 is used as it came, with a warning naming it.
    let server = md::start();
    server.set(md::USER_DATA, vec![ok(md::USER_DATA_TEXT)]);
    let m = linode("ak-b64", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("base64-invalid").expect("diag");
    assert!(d["file"].as_str().unwrap().ends_with(md::USER_DATA), "{d}");
    assert_eq!(
        m.target_file("etc/akamai-secret").trim(),
        "user-data-secret-e81b"
    );

    // The fetch fails: None stands in.
    for (name, answer, code, fell_back) in [
        ("ak-json", ok("{\"id\": "), "metadata-invalid", true),
        ("ak-array", ok("[1]"), "metadata-invalid", true),
    ] {
        let server = md::start();
        server.set(md::INSTANCE, vec![answer]);
        let m = linode(name, &server.url());
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
        assert!(
            codes(&m).contains(&code.to_string()),
            "{name}: {:?}",
            codes(&m)
        );
        common::assert_no_panic(&out);
    }
}

#[test]
fn weak_dmi_evidence_is_not_akamai() {
    let server = md::start();
    let m = machine(
        "ak-weak",
        &[("board_vendor", "Linode")],
        &[("eth0", md::MAC)],
        &server.url(),
    );
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");
}
