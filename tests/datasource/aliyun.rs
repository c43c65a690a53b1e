//! The AliYun datasource end to end: `ember-initrd all` against the ECS metadata emulator on
//! loopback (`ember.metadata-url=`), DMI in the host tree, a networkd target: the token under
//! AliYun's header names, user-data, vendor-data, meta-data from `meta-data/all` (and from the
//! crawled tree without it), keys, host name, the per-MAC network config; faults (a refused
//! token, 500 then 200, 404 user-data, slow, bad JSON); no packet without the product name.
#![cfg(feature = "ds-aliyun")]

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::aliyun::{self as md, Server};
use emulator::{ok, status, Answer};
use std::time::{Duration, Instant};

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

pub(crate) fn ecs(name: &str, server: &Server) -> Machine {
    let m = Machine::new(name);
    m.dmi("sys_vendor", "Alibaba Cloud");
    m.dmi("product_name", "Alibaba Cloud ECS");
    target(&m);
    for (file, value) in [("address", md::MAC), ("type", "1")] {
        m.write(
            &m.host,
            &format!("sys/class/net/eth0/{file}"),
            format!("{value}\n").as_bytes(),
        );
    }
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

fn target(m: &Machine) {
    let t = &m.target;
    m.write(t, NETWORKD, b"");
    Accounts::root().user("ecs-user").write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: ecs-user\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

fn networkd_files(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let entries =
        std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>());
    let body = |p: &std::path::PathBuf| std::fs::read_to_string(p).unwrap();
    entries.unwrap_or_default().iter().map(body).collect()
}

fn assert_provisioned(m: &Machine, out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::ID, "{status}");
    assert_eq!(status["datasource"], "aliyun", "{status}");
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    let keys = m.target_file("home/ecs-user/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/ecs-secret").trim(),
        "user-data-secret-5c1f"
    );
    let net = networkd_files(m);
    for want in [&format!("MACAddress={}", md::MAC), "DHCP=yes"] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    for s in ["user-data-secret-5c1f", "vendor-secret-77aa", md::TOKEN] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(out).contains(s), "secret on stderr");
    }
}

#[test]
fn provisions_an_ecs_instance_in_four_requests() {
    let server = md::start();
    let m = ecs("ali-full", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_provisioned(&m, &out);
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    let idata = m.json("ember/instance-data.json");
    let v1 = &idata["v1"];
    for (key, want) in [("cloud_id", "aliyun"), ("platform", "aliyun")] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    // The leaves decoded as cloud-init decodes them: two lines are a list.
    // cloud-init's AliYun renders the network on every boot: in the merged config (root's).
    let sensitive = m.json("ember/instance-data-sensitive.json");
    let when = &sensitive["merged_cfg"]["updates"]["network"]["when"];
    assert_eq!(
        when,
        &serde_json::json!(["boot-new-instance", "boot"]),
        "{sensitive}"
    );
    let ns = &idata["ds"]["meta-data"]["dns-conf"]["nameservers"];
    assert_eq!(
        ns,
        &serde_json::json!(["100.100.2.136", "100.100.2.138"]),
        "{idata}"
    );
    assert_eq!(
        server.paths(),
        [
            md::TOKEN_PATH,
            md::USER_DATA_PATH,
            md::VENDOR_DATA_PATH,
            md::ALL
        ]
    );
    let reqs = server.requests();
    assert_eq!(reqs[0].method, "PUT");
    assert_eq!(
        reqs[0].header("x-aliyun-ecs-metadata-token-ttl-seconds"),
        Some("21600")
    );
    assert!(reqs[1..]
        .iter()
        .all(|r| r.header("x-aliyun-ecs-metadata-token") == Some(md::TOKEN)));
    eprintln!(
        "aliyun emulator: {} requests, ember-initrd all in {took:?}",
        reqs.len()
    );
}

#[test]
fn without_meta_data_all_the_tree_is_crawled() {
    let server = md::start();
    server.set(md::ALL, vec![status(404)]);
    let m = ecs("ali-tree", &server);
    let out = m.initrd("all");
    assert_provisioned(&m, &out);
    let paths = server.paths();
    assert!(
        paths.contains(&format!("{}/public-keys/0/openssh-key", md::TREE)),
        "{paths:?}"
    );
    assert!(paths.len() > 10, "{paths:?}");

    // Not JSON: a warning, then the same crawl.
    let server = md::start();
    server.set(md::ALL, vec![ok("<html>oops</html>")]);
    let m = ecs("ali-tree-bad", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert!(d["file"].as_str().unwrap().ends_with(md::ALL), "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
}

#[test]
fn token_faults() {
    // Disabled: 403 on the PUT, nothing read.
    let server = md::start();
    server.set(md::TOKEN_PATH, vec![status(403)]);
    let m = ecs("ali-403", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(
        m.diag_with_code("imds-disabled").is_some(),
        "{:?}",
        m.diags()
    );
    assert_eq!(server.paths(), [md::TOKEN_PATH]);

    // Another 4xx: no tokenless reads.
    let server = md::start();
    server.set(md::TOKEN_PATH, vec![status(400)]);
    let m = ecs("ali-400", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(
        m.diag_with_code("imds-token-refused").is_some(),
        "{:?}",
        m.diags()
    );
    assert_eq!(server.paths(), [md::TOKEN_PATH]);

    // 500 then a token.
    let server = md::start();
    server.set(md::TOKEN_PATH, vec![status(500), ok(md::TOKEN)]);
    let m = ecs("ali-500", &server);
    let out = m.initrd("all");
    assert_provisioned(&m, &out);
}

#[test]
fn absent_user_data_and_slow_or_broken_answers() {
    let server = md::start();
    server.set(md::USER_DATA_PATH, vec![status(404)]);
    server.set(md::VENDOR_DATA_PATH, vec![status(404)]);
    let m = ecs("ali-noud", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!m.target.join("etc/ecs-secret").exists());
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);

    let slow = Answer::Slow(Duration::from_secs(6), Box::new(ok(md::TOKEN)));
    for (name, path, answer, codes) in [
        (
            "ali-slow",
            md::TOKEN_PATH,
            slow,
            &["metadata-unreachable", "fetch-deadline"][..],
        ),
        (
            "ali-garbage",
            md::TOKEN_PATH,
            Answer::Garbage(b"\x00nope\r\n\r\n".to_vec()),
            &["metadata-unreachable", "fetch-deadline"],
        ),
        (
            "ali-noid",
            md::ALL,
            ok("{\"hostname\": \"x\"}"),
            &["metadata-status"],
        ),
    ] {
        let server = md::start();
        server.set(path, vec![answer]);
        let m = ecs(name, &server);
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
fn no_packet_without_the_product_name() {
    let server = md::start();
    let m = Machine::new("ali-weak");
    m.dmi("sys_vendor", "Alibaba Cloud");
    m.dmi("product_name", "Alibaba Cloud EGS");
    target(&m);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    // Named on the command line, still not read: cloud-init needs the product name too.
    m.cmdline(&format!("ro ds=aliyun ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert!(
        m.diag_with_code("no-datasource").is_some(),
        "{}: {:?}",
        stderr(&out),
        m.diags()
    );
    assert!(server.requests().is_empty(), "no packet without evidence");
}
