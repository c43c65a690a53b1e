#![cfg(feature = "ds-lxd")]
//! The LXD datasource end to end: `ember-initrd all` with the devlxd emulator on a unix socket
//! at the host tree's /dev/lxd/sock: meta-data, the `cloud-init.*` keys winning over their
//! `user.*` twins, the `user.*` keys as fallbacks, LXD's fallback network config or the one
//! given, every config key in instance data with the secret ones redacted, and faults (500
//! then 200, slow, refused, bad JSON, a failing key, meta-data missing, a bad network config);
//! detection by the socket, by DMI `board_name` and by LXD's virtio serial port.

use crate::common;
use crate::common::emulator;
use common::{stderr, Machine};
use emulator::lxd::{self as lxd, Server};
use emulator::{ok, status, Answer};
use std::collections::BTreeMap;
use std::time::Duration;

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

/// A container: the socket served by the emulator, one NIC `eth0`, a networkd target with
/// short deadlines.
fn container(name: &str) -> (Machine, Server) {
    let m = Machine::new(name);
    let server = lxd::start(&m.host.join("dev/lxd/sock"));
    for (file, value) in [
        ("address", "00:16:3e:12:34:56"),
        ("type", "1"),
        ("carrier", "1"),
    ] {
        m.write(
            &m.host,
            &format!("sys/class/net/eth0/{file}"),
            format!("{value}\n").as_bytes(),
        );
    }
    m.write(&m.target, NETWORKD, b"");
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 1000\n    datasource_timeout_ms: 4000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    (m, server)
}

fn networkd_files(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

fn codes(m: &Machine) -> Vec<String> {
    m.diags()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn provisions_a_container_from_the_socket() {
    let (m, server) = container("lxd-full");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["datasource"], "lxd", "{status}");
    assert_eq!(status["instance_id"], lxd::INSTANCE, "{status}");
    let evidence = status["evidence"].to_string();
    assert!(evidence.contains("/dev/lxd/sock"), "{evidence}");
    // cloud-init.user-data won; its older user.* twin is named in a warning and not applied.
    let diags = m.diags();
    assert_eq!(codes(&m), ["duplicate-key"], "{diags:?}");
    assert_eq!(diags[0]["key"], "user.user-data");
    assert_eq!(
        m.target_file("etc/lxd-secret").trim(),
        "lxd-user-data-secret-91ac"
    );
    assert!(!m.target.join("etc/lxd-old").exists());
    assert_eq!(m.target_file("etc/hostname").trim(), "c1");
    // LXD's fallback: DHCP on the NIC seen, by name.
    let net = networkd_files(&m);
    assert!(
        net.contains("Name=eth0") && net.contains("DHCP=ipv4"),
        "{net}"
    );
    // Meta-data, the key list, each key in name order, the devices: nothing else.
    let mut want = vec!["/1.0/meta-data".to_string(), "/1.0/config".to_string()];
    want.extend(lxd::config().keys().map(|k| format!("/1.0/config/{k}")));
    want.push("/1.0/devices".into());
    assert_eq!(server.paths(), want);
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("host") == Some("lxd")));
    // Instance data keeps every key (cloud-init's ds/config); secrets only in the 0600 copy.
    let idata = m.json("ember/instance-data.json");
    let ds = &idata["ds"];
    assert_eq!(ds["config"]["user.role"], "web", "{ds}");
    assert_eq!(ds["_metadata_api_version"], "1.0", "{ds}");
    assert_eq!(ds["devices"]["eth0"]["type"], "nic", "{ds}");
    assert_eq!(idata["v1"]["platform"], "lxd", "{idata}");
    assert_eq!(
        idata["v1"]["subplatform"],
        "LXD socket API v. 1.0 (/dev/lxd/sock)"
    );
    for s in ["lxd-user-data-secret-91ac", "lxd-vendor-marker-44b1"] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(&out).contains(s), "secret on stderr");
    }
}

#[test]
fn user_keys_are_the_fallback_on_older_lxd() {
    let (m, server) = container("lxd-user-keys");
    let netcfg = "version: 2\nethernets:\n  eth0:\n    addresses: [10.1.2.3/24]\n    routes:\n      - {to: default, via: 10.1.2.1}\n";
    let keys: BTreeMap<String, String> = [
        ("user.user-data", lxd::USER_DATA),
        ("user.network-config", netcfg),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    server.set_config(keys);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(
        m.target_file("etc/lxd-secret").trim(),
        "lxd-user-data-secret-91ac"
    );
    let net = networkd_files(&m);
    assert!(
        net.contains("Address=10.1.2.3/24") && !net.contains("DHCP=ipv4"),
        "{net}"
    );
    m.assert_secret_not_world_readable("lxd-user-data-secret-91ac");
}

#[test]
fn a_server_error_is_retried_and_a_slow_answer_times_out_then_succeeds() {
    let (m, server) = container("lxd-retry");
    let slow = Answer::Slow(Duration::from_millis(1500), Box::new(ok(lxd::META_DATA)));
    server.set(
        "/1.0/meta-data",
        vec![status(500), slow, ok(lxd::META_DATA)],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], lxd::INSTANCE);
    let md = server
        .paths()
        .iter()
        .filter(|p| *p == "/1.0/meta-data")
        .count();
    assert_eq!(md, 3, "{:?}", server.paths());
}

#[test]
fn a_bad_key_list_or_key_fails_only_that() {
    // The key list is not JSON: no config keys, but the meta-data provisions the instance.
    let (m, server) = container("lxd-bad-list");
    server.set("/1.0/config", vec![ok("[\"/1.0/config/user.x\"")]);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert_eq!(d["file"], "/dev/lxd/sock: /1.0/config", "{d}");
    assert!(d["message"].as_str().unwrap().contains("line 1"), "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), "c1");
    assert!(!m.target.join("etc/lxd-secret").exists());

    // One key refused: named with its key; the others are used.
    let (m, server) = container("lxd-bad-key");
    server.set("/1.0/config/cloud-init.vendor-data", vec![status(403)]);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-status").expect("diag");
    assert_eq!(d["key"], "cloud-init.vendor-data", "{d}");
    assert_eq!(
        d["file"],
        "/dev/lxd/sock: /1.0/config/cloud-init.vendor-data"
    );
    assert_eq!(
        m.target_file("etc/lxd-secret").trim(),
        "lxd-user-data-secret-91ac"
    );

    // A network config that is not YAML: its key fails, the stage's own fallback applies.
    let (m, server) = container("lxd-bad-net");
    let mut keys = lxd::config();
    keys.insert("cloud-init.network-config".into(), "version: [2\n".into());
    server.set_config(keys);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("yaml-syntax").expect("diag");
    assert_eq!(d["key"], "cloud-init.network-config", "{d}");
    assert_eq!(
        m.target_file("etc/lxd-secret").trim(),
        "lxd-user-data-secret-91ac"
    );
}

#[test]
fn missing_meta_data_and_a_refused_socket_fail_the_datasource_clearly() {
    let (m, server) = container("lxd-no-md");
    server.set("/1.0/meta-data", vec![status(404)]);
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-not-found").expect("diag");
    assert_eq!(d["file"], "/dev/lxd/sock: /1.0/meta-data", "{d}");
    assert_eq!(server.paths(), ["/1.0/meta-data"]);

    // A socket nobody listens on (the emulator's file left behind by another listener).
    let m = Machine::new("lxd-refused");
    let path = m.host.join("dev/lxd/sock");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg",
        b"ember:\n  limits:\n    datasource_timeout_ms: 1500\n",
    );
    let out = m.initrd("all");
    m.fell_back(&out);
    // Retried (LXD may be restarting) until the datasource's deadline, then named.
    let d = m.diag_with_code("fetch-deadline").expect("diag");
    assert_eq!(d["file"], "/dev/lxd/sock: /1.0/meta-data", "{d}");
    assert!(d["message"].as_str().unwrap().contains("refused"), "{d}");
}

#[test]
fn detected_by_socket_board_name_or_virtio_port_only() {
    // No socket, no DMI: LXD is not chosen and nothing is dialled.
    let m = Machine::new("lxd-none");
    let out = m.initrd("detect");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(m.status()["datasource"], "lxd");

    // An LXD VM before lxd-agent made the socket: chosen by DMI, the fetch says why it failed.
    let m = Machine::new("lxd-vm");
    m.dmi("board_name", "LXD");
    let out = m.initrd("all");
    m.fell_back(&out);
    // Found by its evidence, its fetch failed: None stands in.
    assert_eq!(m.status()["datasource"], "none");
    let d = m.diag_with_code("metadata-unreachable").expect("diag");
    assert!(d["message"].as_str().unwrap().contains("lxd-agent"), "{d}");
    assert_eq!(d["file"], "/dev/lxd/sock");

    // The same without DMI (an arm64 or s390x VM): LXD's virtio serial port names it.
    let m = Machine::new("lxd-port");
    m.write(
        &m.host,
        "sys/class/virtio-ports/vport1p1/name",
        b"org.linuxcontainers.lxd\n",
    );
    let out = m.initrd("all");
    m.fell_back(&out);
    // Found by its evidence, its fetch failed: None stands in.
    assert_eq!(m.status()["datasource"], "none");
    let d = m.diag_with_code("metadata-unreachable").expect("diag");
    assert!(d["message"].as_str().unwrap().contains("lxd-agent"), "{d}");

    // A regular file at the socket's path is not a socket.
    let m = Machine::new("lxd-file");
    m.write(&m.host, "dev/lxd/sock", b"");
    let out = m.initrd("detect");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(m.status()["datasource"], "lxd");
}
