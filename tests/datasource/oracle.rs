//! The Oracle Cloud datasource end to end: `ember-initrd all` against the OCI metadata
//! emulator on loopback (`ember.metadata-url=`), the chassis asset tag in the host tree, a
//! networkd target: the host name, keys, base64 user-data, the primary VNIC (and the secondary
//! ones when the image asks), IMDS v2's header and the v1 fallback, the iSCSI root that keeps
//! the initramfs's network, faults (500 then 200, slow, bad JSON, missing keys, bad base64),
//! weak DMI refused, secrets kept.
#![cfg(feature = "ds-oracle")]

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::oracle::{self as md, Server};
use emulator::{ok, status};
use std::time::{Duration, Instant};

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

pub(crate) fn oci_vm(name: &str, server: &Server, image_cfg: &str) -> Machine {
    let m = Machine::new(name);
    m.dmi("chassis_asset_tag", "OracleCloud.com");
    m.dmi("sys_vendor", "QEMU");
    target(&m, image_cfg);
    nic(&m, "ens3", md::PRIMARY_MAC);
    nic(&m, "ens4", md::SECONDARY_MAC);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

fn nic(m: &Machine, name: &str, mac: &str) {
    for (file, value) in [("address", mac), ("type", "1")] {
        let path = format!("sys/class/net/{name}/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
}

/// A Debian-like target with networkd, a default user `opc` and short deadlines.
fn target(m: &Machine, extra: &str) {
    let t = &m.target;
    m.write(t, NETWORKD, b"");
    Accounts::root().user("opc").write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = format!("users: [default]\nsystem_info:\n  default_user:\n    name: opc\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n{extra}");
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

fn networkd_files(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    let body = |p: &std::path::PathBuf| std::fs::read_to_string(p).unwrap();
    names.iter().map(body).collect()
}

fn paths(server: &Server) -> Vec<String> {
    server.requests().into_iter().map(|r| r.path).collect()
}

#[test]
fn provisions_an_oci_vm_over_imds_v2() {
    let server = md::start();
    let m = oci_vm("oci-full", &server, "");
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::ID, "{status}");
    assert_eq!(status["datasource"], "oracle", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    let keys = m.target_file("home/opc/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/oci-secret").trim(),
        "user-data-secret-9e2a"
    );
    let idata = m.json("ember/instance-data.json");
    let v1 = &idata["v1"];
    for (key, want) in [
        ("cloud_id", "oracle"),
        ("platform", "oracle"),
        ("availability_zone", "phx-ad-1"),
        ("local_hostname", md::HOSTNAME),
    ] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    assert_eq!(idata["ds"]["meta_data"]["name"], "my-oci-vm", "{idata}");
    assert_eq!(idata["ds"]["shape"], "VM.Standard.E4.Flex", "{idata}");
    assert_eq!(
        idata["ds"]["metadata"]["ssh_authorized_keys"],
        md::KEY,
        "{idata}"
    );
    // The primary VNIC by DHCP with OCI's MTU; the secondary only when asked.
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", md::PRIMARY_MAC),
        "MTUBytes=9000",
        "DHCP=ipv4",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    assert!(!net.contains(md::SECONDARY_MAC), "{net}");
    // Two requests, both with the v2 header.
    let reqs = server.requests();
    assert_eq!(paths(&server), [md::INSTANCE_V2, md::VNICS_V2]);
    assert!(reqs
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer Oracle")));
    m.assert_secret_not_world_readable("user-data-secret-9e2a");
    assert!(
        !stderr(&out).contains("user-data-secret-9e2a"),
        "secret on stderr"
    );
    eprintln!(
        "oracle emulator: {} requests, ember-initrd all in {took:?}",
        reqs.len()
    );
}

#[test]
fn secondary_vnics_when_the_image_asks() {
    let server = md::start();
    let cfg = "datasource:\n  Oracle:\n    configure_secondary_nics: true\n";
    let m = oci_vm("oci-secondary", &server, cfg);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", md::SECONDARY_MAC),
        "Address=10.0.4.5/23",
        &format!("MACAddress={}", md::PRIMARY_MAC),
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
}

#[test]
fn without_v2_the_v1_documents_are_read() {
    let server = md::start();
    server.set(md::INSTANCE_V2, vec![status(404)]);
    let m = oci_vm("oci-v1", &server, "");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::ID);
    assert_eq!(
        paths(&server),
        [md::INSTANCE_V2, md::INSTANCE_V1, md::VNICS_V1]
    );
    let v1_reqs = server.requests();
    assert!(v1_reqs[1].header("authorization").is_none(), "{v1_reqs:?}");
    assert!(networkd_files(&m).contains(md::PRIMARY_MAC));
}

#[test]
fn an_iscsi_root_keeps_the_initramfs_network() {
    let server = md::start();
    let cfg = "datasource:\n  Oracle:\n    configure_secondary_nics: true\n";
    let m = oci_vm("oci-iscsi", &server, cfg);
    m.write(
        &m.host,
        "run/net-ens3.conf",
        b"DEVICE='ens3'\nPROTO='dhcp'\n",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // No VNICs asked, none configured; the asked-for secondaries are said not applied.
    assert_eq!(paths(&server), [md::INSTANCE_V2]);
    let net = networkd_files(&m);
    assert!(!net.contains("MTUBytes=9000"), "{net}");
    let d = m
        .diag_with_code("network-config-unsupported")
        .expect("diag");
    assert!(
        d["key"]
            .as_str()
            .unwrap()
            .contains("configure_secondary_nics"),
        "{d}"
    );
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
}

#[test]
fn server_errors_are_retried_and_bad_documents_fail_their_key() {
    let server = md::start();
    let doc = md::instance().to_string();
    server.set(md::INSTANCE_V2, vec![status(500), ok(&doc)]);
    let m = oci_vm("oci-retry", &server, "");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        paths(&server),
        [md::INSTANCE_V2, md::INSTANCE_V2, md::VNICS_V2]
    );

    // A VNICs document that is not JSON: a warning, the fallback network, the rest provisions.
    let server = md::start();
    server.set(md::VNICS_V2, vec![ok("[{\"macAddr\": ")]);
    let m = oci_vm("oci-badvnics", &server, "");
    let out = m.initrd("all");
    assert_ne!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert!(d["file"].as_str().unwrap().ends_with(md::VNICS_V2), "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);

    // Bad base64 user-data: that key fails, not the instance.
    let server = md::start();
    let mut bad = md::instance();
    bad["metadata"]["user_data"] = "@@not base64@@".into();
    bad.as_object_mut().unwrap().remove("ociAdName");
    server.set(md::INSTANCE_V2, vec![ok(&bad.to_string())]);
    let m = oci_vm("oci-badud", &server, "");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert_eq!(d["key"], "metadata.user_data", "{d}");
    let d = m.diag_with_code("missing-key").expect("diag");
    assert_eq!(d["key"], "ociAdName", "{d}");
    assert_eq!(m.status()["instance_id"], md::ID);
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);

    // No id: nothing to provision.
    let server = md::start();
    let mut no_id = md::instance();
    no_id.as_object_mut().unwrap().remove("id");
    server.set(md::INSTANCE_V2, vec![ok(&no_id.to_string())]);
    let m = oci_vm("oci-noid", &server, "");
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert_eq!(d["key"], "id", "{d}");
    common::assert_no_panic(&out);
}

#[test]
fn garbage_answers_end_in_time() {
    // An answer past the deadline is the conformance table's.
    for (name, answer, codes) in [
        ("oci-notjson", ok("<html>"), &["metadata-invalid"][..]),
        ("oci-array", ok("[1, 2]"), &["metadata-invalid"]),
    ] {
        let server = md::start();
        server.set(md::INSTANCE_V2, vec![answer]);
        let m = oci_vm(name, &server, "");
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
fn weak_dmi_evidence_is_not_oracle() {
    let server = md::start();
    let m = Machine::new("oci-weak");
    m.dmi("sys_vendor", "OracleCloud.com");
    m.dmi("chassis_asset_tag", "Oracle");
    target(&m, "");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");
}
