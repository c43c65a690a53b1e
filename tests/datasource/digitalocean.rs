//! The DigitalOcean datasource end to end: `ember-initrd all` against the metadata emulator on
//! loopback (`ember.metadata-url=`), DMI in the host tree, a networkd target: the host name,
//! keys, user-data and vendor-data, the interfaces rendered as cloud-init converts them, a
//! NIC the host lacks, faults (404, 500 then 200, slow, truncated, garbage), weak DMI refused,
//! secrets kept.

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::digitalocean::{self as md, Server};
use emulator::{ok, status};
use std::time::{Duration, Instant};

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

pub(crate) fn droplet(name: &str, server: &Server) -> Machine {
    let m = Machine::new(name);
    m.dmi("sys_vendor", "DigitalOcean");
    m.dmi("product_name", "Droplet");
    m.dmi("product_serial", &md::DROPLET_ID.to_string());
    target(&m);
    nic(&m, "ens3", md::PUBLIC_MAC);
    nic(&m, "ens4", md::PRIVATE_MAC);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

/// An assigned floating IP is DigitalOcean's NAT to the anchor address: cloud-init configures
/// the anchor and not the floating address, nor keeps it in meta-data; so does ember.
#[test]
fn a_floating_ip_reaches_the_droplet_through_its_anchor_address() {
    let server = md::start();
    let mut doc = md::document();
    doc["floating_ip"] = serde_json::json!({"ipv4": {"active": true, "ip_address": "45.55.96.47"}});
    server.set(md::DOCUMENT, vec![ok(&doc.to_string())]);
    let m = droplet("do-floating", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let net = networkd_files(&m);
    assert!(net.contains("Address=10.17.0.5/16"), "the anchor:\n{net}");
    assert!(!net.contains("45.55.96.47"), "the floating address:\n{net}");
    let md = &m.json("cloud-init/instance-data.json")["ds"]["meta_data"];
    assert!(
        md.is_object() && !md.to_string().contains("45.55.96.47"),
        "{md}"
    );
}

/// cloud-init's `datasource: {DigitalOcean: {metadata_url, wait_retry, retries}}`: the
/// document where the image says, retried at its pace and no more often than it says.
#[test]
fn the_image_names_the_metadata_url_and_the_retries() {
    let server = md::start();
    let doc = md::document().to_string();
    server.set(md::DOCUMENT, vec![status(500), ok(&doc)]);
    let m = droplet("do-settings", &server);
    // The image's URL only: not the test's guard address on the command line.
    m.write(&m.host, "proc/cmdline", b"ro\n");
    let cfg = m.target_file("etc/cloud/cloud.cfg");
    let url = format!("{}{}", server.url(), md::DOCUMENT);
    let cfg = format!(
        "{cfg}datasource:\n  DigitalOcean:\n    metadata_url: {url}\n    wait_retry: 1.2\n"
    );
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::DROPLET_ID.to_string());
    assert!(took >= Duration::from_millis(1200), "{took:?}");

    // `retries: 0`: one attempt only.
    let server = md::start();
    server.set(md::DOCUMENT, vec![status(500), ok(&doc)]);
    let m = droplet("do-settings-once", &server);
    // The image's URL only: not the test's guard address on the command line.
    m.write(&m.host, "proc/cmdline", b"ro\n");
    let cfg = m.target_file("etc/cloud/cloud.cfg");
    let url = format!("{}{}", server.url(), md::DOCUMENT);
    let cfg =
        format!("{cfg}datasource:\n  DigitalOcean:\n    metadata_url: {url}\n    retries: 0\n");
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m.initrd("all");
    assert_eq!(server.requests().len(), 1);
}

fn nic(m: &Machine, name: &str, mac: &str) {
    for (file, value) in [("address", mac), ("type", "1")] {
        let path = format!("sys/class/net/{name}/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
}

/// A Debian-like target with networkd, a default user `admin` and short deadlines.
fn target(m: &Machine) {
    let t = &m.target;
    m.write(t, NETWORKD, b"");
    Accounts::root().user("admin").write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

fn networkd_files(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    let body = |p: &std::path::PathBuf| std::fs::read_to_string(p).unwrap();
    let name = |p: &std::path::PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
    names
        .iter()
        .map(|p| format!("== {}\n{}", name(p), body(p)))
        .collect()
}

#[test]
fn provisions_a_droplet_with_its_network() {
    let server = md::start();
    let m = droplet("do-full", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(
        status["instance_id"],
        md::DROPLET_ID.to_string(),
        "{status}"
    );
    assert_eq!(status["datasource"], "digitalocean", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), "sample-droplet");
    let keys = m.target_file("home/admin/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/do-secret").trim(),
        "user-data-secret-3b7d"
    );
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["availability_zone"], "nyc3", "{idata}");
    let v1 = &idata["v1"];
    // cloud-init's DigitalOcean: the region is the zone, v1.region stays null.
    assert_eq!(v1["region"], serde_json::Value::Null, "{v1}");
    for (key, want) in [
        ("cloud_id", "digitalocean"),
        ("platform", "digitalocean"),
        ("local_hostname", "sample-droplet"),
    ] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    // user-data stays out of the world-readable copy; the sensitive one is root's.
    assert!(!idata.to_string().contains("user_data"), "{idata}");
    // cloud-init's v1 conversion: eth0 public with its gateway, the anchor address without,
    // IPv6 with its prefix, eth1 private without a gateway, the droplet's nameservers.
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", md::PUBLIC_MAC),
        &format!("MACAddress={}", md::PRIVATE_MAC),
        "Address=104.131.20.105/18",
        "Gateway=104.131.0.1",
        "Address=2604:a880:800:10::17d:2001/64",
        "Address=10.17.0.5/16",
        "Address=10.132.255.113/16",
        "DNS=8.8.8.8",
        "eth0",
        "eth1",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    for not in ["Gateway=10.17.0.1", "Gateway=10.132.0.1"] {
        assert!(!net.contains(not), "{not}:\n{net}");
    }
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    assert_eq!(reqs[0].path, md::DOCUMENT);
    for s in ["user-data-secret-3b7d", "droplet-agent-auth-7c4e"] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(&out).contains(s), "secret on stderr");
    }
    eprintln!(
        "digitalocean emulator: {} requests, ember-initrd all in {took:?}",
        reqs.len()
    );
}

#[test]
fn a_nic_the_host_lacks_leaves_the_network_to_the_fallback() {
    let server = md::start();
    let m = droplet("do-nic-missing", &server);
    std::fs::remove_dir_all(m.host.join("sys/class/net/ens4")).unwrap();
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("nic-missing").expect("diag");
    assert!(
        d["message"].as_str().unwrap().contains(md::PRIVATE_MAC),
        "{d}"
    );
    assert_eq!(m.target_file("etc/hostname").trim(), "sample-droplet");
    let net = networkd_files(&m);
    assert!(!net.contains("104.131.20.105"), "{net}");
}

/// 500 then 200, 404, slow, cut short and garbage answers are the conformance table's.
#[test]
fn json_cut_short_or_of_the_wrong_shape() {
    let doc = md::document().to_string();
    for (name, answer, codes) in [
        ("do-trunc", ok(&doc[..doc.len() / 2]), &["metadata-invalid"]),
        ("do-array", ok("[1, 2]"), &["metadata-invalid"]),
    ] {
        let server = md::start();
        server.set(md::DOCUMENT, vec![answer]);
        let m = droplet(name, &server);
        m.cmdline(&format!(
            "ro ember.metadata-url={} ember.metadata-timeout=1.5",
            server.url()
        ));
        let started = Instant::now();
        let out = m.initrd("all");
        assert!(started.elapsed() < Duration::from_secs(5), "{name}");
        m.fell_back(&out);
        let d = codes.iter().find_map(|c| m.diag_with_code(c));
        assert!(d.is_some(), "{name}: {:?}", m.diags());
        common::assert_no_panic(&out);
    }
}

#[test]
fn weak_dmi_evidence_is_not_digitalocean() {
    let server = md::start();
    let m = Machine::new("do-weak");
    m.dmi("board_vendor", "DigitalOcean");
    m.dmi("product_name", "Droplet");
    target(&m);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");

    // The vendor alone is ds-identify's test; without a serial the droplet id comes from
    // the metadata.
    let m = Machine::new("do-noserial");
    m.dmi("sys_vendor", "DigitalOcean");
    target(&m);
    nic(&m, "ens3", md::PUBLIC_MAC);
    nic(&m, "ens4", md::PRIVATE_MAC);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::DROPLET_ID.to_string());
}
