#![cfg(feature = "ds-vultr")]
//! The Vultr datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback, DMI in the host tree, a networkd target: one request with `Metadata-Token` and a
//! User-Agent; host name, region, keys, user-data, vendor-data; the interfaces rendered as
//! cloud-init's helper builds them; the startup script kept out; detection by DMI, command
//! line and /etc/vultr; faults (500 then 200, 404, slow, bad JSON, missing keys, a NIC the
//! host lacks); secrets kept.

use crate::common::emulator::ok;
use crate::common::emulator::vultr as md;
use crate::common::{self, stderr, Machine};
use crate::vps_machine::{codes, machine, networkd_files};
use std::time::{Duration, Instant};

pub(crate) fn vultr(name: &str, url: &str) -> Machine {
    let dmi = [
        ("sys_vendor", "Vultr"),
        ("product_name", "VC2"),
        ("product_serial", md::SUBID),
    ];
    let nics = [("eth0", md::PUBLIC_MAC), ("eth1", md::PRIVATE_MAC)];
    machine(name, &dmi, &nics, url)
}

#[test]
fn provisions_a_vultr_instance_with_its_network() {
    let server = md::start();
    let m = vultr("vu-full", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::INSTANCE_ID, "{status}");
    assert_eq!(status["datasource"], "vultr", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "vultr-guest");
    let keys = m.target_file("home/admin/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/vultr-secret").trim(),
        "user-data-secret-5c2e"
    );
    let idata = m.json("ember/instance-data.json");
    let v1 = &idata["v1"];
    for (key, want) in [
        ("cloud_id", "vultr"),
        ("platform", "vultr"),
        ("region", "us"),
    ] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    assert_eq!(idata["ds"]["meta_data"]["instanceid"], md::SUBID, "{idata}");
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", md::PUBLIC_MAC),
        &format!("MACAddress={}", md::PRIVATE_MAC),
        "DHCP=ipv4",
        "IPv6AcceptRA=yes",
        "Address=2002:19f0:5:28a7::/64",
        "Address=10.1.112.3/20",
        "DNS=108.61.10.10",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    assert_eq!(reqs[0].path, md::DOCUMENT);
    assert_eq!(reqs[0].header("metadata-token"), Some("cloudinit"));
    let ua = reqs[0].header("user-agent").unwrap_or_default();
    assert!(
        ua.starts_with("Cloud-Init/") && ua.ends_with("Variant: debian"),
        "{ua}"
    );
    for s in ["user-data-secret-5c2e", "startup-secret-77ab"] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(&out).contains(s), "secret on stderr");
    }
    // The startup script is not run and not kept, as cloud-init does not run it either.
    let sensitive = std::fs::read_to_string(m.run.join("ember/instance-data-sensitive.json"));
    let sensitive = sensitive.expect("instance-data-sensitive.json");
    assert!(sensitive.contains(md::SUBID) && !sensitive.contains("startup-secret-77ab"));
}

#[test]
fn detected_by_command_line_or_file_and_not_by_weak_dmi() {
    let server = md::start();
    let nics = [("eth0", md::PUBLIC_MAC), ("eth1", md::PRIVATE_MAC)];
    let m = machine(
        "vu-weak",
        &[("board_vendor", "Vultr")],
        &nics,
        &server.url(),
    );
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");

    // Bare metal: `vultr` on the command line.
    let m = machine("vu-metal", &[], &nics, &server.url());
    m.cmdline(&format!("ro vultr ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "vultr");

    // The image's marker file.
    let m = machine("vu-file", &[], &nics, &server.url());
    m.write(&m.target, "etc/vultr", b"");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "vultr");
}

#[test]
fn a_nic_the_host_lacks_leaves_the_network_to_the_fallback() {
    let server = md::start();
    let m = vultr("vu-nic", &server.url());
    std::fs::remove_dir_all(m.host.join("sys/class/net/eth1")).unwrap();
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("nic-missing").expect("diag");
    assert_eq!(d["key"], "interfaces.1.mac", "{d}");
    assert!(d["file"].as_str().unwrap().ends_with(md::DOCUMENT), "{d}");
    assert!(!networkd_files(&m).contains("10.1.112.3"));
    assert_eq!(m.target_file("etc/hostname").trim(), "vultr-guest");
}

#[test]
fn empty_payloads_and_hostname() {
    let mut doc = md::document();
    doc["user-data"] = serde_json::json!([]);
    doc["vendor-data"] = serde_json::json!("");
    doc["hostname"] = serde_json::json!("");
    let server = md::start();
    server.set(md::DOCUMENT, vec![ok(&doc.to_string())]);
    let m = vultr("vu-empty", &server.url());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "guest");
    assert!(!m.target.join("etc/vultr-secret").exists());
}

#[test]
fn faults() {
    // 500 then 200, 404 and an answer past the deadline are the conformance table's.
    let doc = md::document().to_string();

    let mut no_id = md::document();
    no_id.as_object_mut().unwrap().remove("instance-v2-id");
    let mut bad_ud = md::document();
    bad_ud["user-data"] = serde_json::json!({"x": 1});
    // The fetch fails and None stands in, or the instance is provisioned with a warning.
    for (name, answer, code, fell_back) in [
        (
            "vu-json",
            ok(&doc[..doc.len() / 2]),
            &["metadata-invalid"][..],
            true,
        ),
        (
            "vu-noid",
            ok(&no_id.to_string()),
            &["metadata-invalid"],
            true,
        ),
        (
            "vu-badud",
            ok(&bad_ud.to_string()),
            &["metadata-invalid"],
            false,
        ),
    ] {
        let server = md::start();
        server.set(md::DOCUMENT, vec![answer]);
        let m = vultr(name, &server.url());
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
