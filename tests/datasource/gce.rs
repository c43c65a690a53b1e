//! The GCE datasource end to end: `ember-initrd all` against the metadata emulator on loopback
//! (`ember.metadata-url=`), DMI in the host tree: the host name, the ssh keys as cloud-init
//! filters them (default user and `cloudinit` only, project keys unless blocked, expired
//! Google keys dropped), base64 user-data, one request, faults (404, 500 then 200, slow,
//! truncated, garbage, an answer without `Metadata-Flavor`), weak DMI refused, secrets kept.

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::gce::{self as md, Server};
use emulator::{ok, status, Answer};
use std::time::{Duration, Instant};

pub(crate) fn gce_machine(name: &str, server: &Server) -> Machine {
    let m = Machine::new(name);
    m.dmi("sys_vendor", "Google");
    m.dmi("product_name", "Google Compute Engine");
    m.dmi("bios_vendor", "Google");
    m.dmi("product_serial", "GoogleCloud-5A1B2C3D4E5F");
    target(&m);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

/// A Debian-like target with a default user `admin` and short deadlines.
fn target(m: &Machine) {
    let t = &m.target;
    Accounts::root().user("admin").write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

/// cloud-init's GCE renders the network on every boot (its `default_update_events`); the
/// config's `updates` turns that off again.
#[test]
fn the_network_is_rendered_on_every_boot_unless_the_config_says_otherwise() {
    let server = md::start();
    let m = gce_machine("gce-every-boot", &server);
    let networkd = "etc/systemd/network/10-cloud-init-ens4.network";
    m.write(&m.target, "usr/lib/systemd/systemd-networkd", b"");
    for (file, value) in [
        ("address", "42:01:0a:80:00:02"),
        ("type", "1"),
        ("carrier", "1"),
        ("operstate", "up"),
        ("uevent", "INTERFACE=ens4"),
    ] {
        let path = format!("sys/class/net/ens4/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
    for boot in 0..2 {
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(m.target_file(networkd).contains("DHCP="), "boot {boot}");
        m.write(&m.target, networkd, b"# edited\n");
    }
    // The image opts out: the same instance keeps the admin's edit.
    let cfg = m.target_file("etc/cloud/cloud.cfg");
    let cfg = format!("{cfg}updates:\n  network:\n    when: [boot-new-instance]\n");
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m.initrd("all");
    assert_eq!(m.target_file(networkd), "# edited\n");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
}

fn keys(m: &Machine) -> String {
    m.target_file("home/admin/.ssh/authorized_keys")
}

#[test]
fn provisions_from_one_recursive_request() {
    let server = md::start();
    let m = gce_machine("gce-full", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], md::INSTANCE_ID, "{status}");
    assert_eq!(status["datasource"], "gce", "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    // cloud-init's short host name, the decoded user-data.
    assert_eq!(m.target_file("etc/hostname").trim(), "gce-vm-1");
    assert_eq!(
        m.target_file("etc/gce-secret").trim(),
        "user-data-secret-9c1e"
    );
    // The default user's and cloudinit's keys, instance and project, unexpired only.
    let k = keys(&m);
    for want in [
        md::ADMIN_KEY,
        md::CLOUDINIT_KEY,
        md::LIVE_KEY,
        md::PROJECT_KEY,
    ] {
        assert!(k.contains(want), "{want} missing:\n{k}");
    }
    for not in [md::BOB_KEY, md::DEBIAN_KEY, "GceExpiredKey"] {
        assert!(!k.contains(not), "{not} installed:\n{k}");
    }
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["availability_zone"], "us-central1-a", "{idata}");
    assert_eq!(idata["v1"]["region"], "us-central1", "{idata}");
    let v1 = &idata["v1"];
    let short = md::HOSTNAME.split('.').next().unwrap();
    for (key, want) in [
        ("cloud_id", "gce"),
        ("cloud_name", "gce"),
        ("platform", "gce"),
        ("local_hostname", short),
    ] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    assert!(
        v1["instance_id"].is_string() && v1["public_ssh_keys"].is_array(),
        "{v1}"
    );
    // One request, with the header; the count in status.json.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    assert_eq!(reqs[0].path, md::DOCUMENT);
    assert_eq!(reqs[0].header("metadata-flavor"), Some("Google"));
    let steps = status["stages"]["fetch"]["steps"].to_string();
    assert!(steps.contains("ok (1 reads)"), "{steps}");
    // Neither the user-data nor the startup script (which ember never keeps) leaks.
    for s in [
        "user-data-secret-9c1e",
        "I2Nsb3VkLWNvbmZpZwp3",
        "the guest agent runs",
    ] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(&out).contains(s), "secret on stderr");
        assert!(!common::stdout(&out).contains(s), "secret on stdout");
    }
    eprintln!(
        "gce emulator: {} requests, ember-initrd all in {took:?}",
        reqs.len()
    );
}

#[test]
fn project_keys_blocked_and_legacy_keys() {
    let server = md::start();
    server.attribute("instance", "block-project-ssh-keys", Some("true"));
    let m = gce_machine("gce-blocked", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let k = keys(&m);
    assert!(
        k.contains(md::ADMIN_KEY) && !k.contains(md::PROJECT_KEY),
        "{k}"
    );

    // Legacy instance `sshKeys` also keeps the project's keys out.
    let server = md::start();
    server.attribute("instance", "ssh-keys", None);
    let legacy = format!("admin:{}", md::ADMIN_KEY);
    server.attribute("instance", "sshKeys", Some(&legacy));
    let m = gce_machine("gce-legacy", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let k = keys(&m);
    assert!(
        k.contains(md::ADMIN_KEY) && !k.contains(md::PROJECT_KEY),
        "{k}"
    );
}

#[test]
fn user_data_plain_and_broken_base64() {
    let server = md::start();
    server.attribute("instance", "user-data-encoding", None);
    server.attribute("instance", "user-data", Some(md::USER_DATA));
    let m = gce_machine("gce-plain-ud", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        m.target_file("etc/gce-secret").trim(),
        "user-data-secret-9c1e"
    );

    // Not base64: an error naming the key, never the value; the rest is provisioned.
    let server = md::start();
    server.attribute("instance", "user-data", Some("not*base64*secret-5d2a"));
    let m = gce_machine("gce-bad-ud", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("user-data-invalid").expect("diag");
    assert_eq!(d["key"], "instance.attributes.user-data", "{d}");
    assert!(!d.to_string().contains("secret-5d2a"), "{d}");
    assert_eq!(m.target_file("etc/hostname").trim(), "gce-vm-1");
}

#[test]
fn server_errors_are_retried_and_404_is_final() {
    let server = md::start();
    server.set(md::DOCUMENT, vec![status(500), status(503), doc_answer()]);
    let m = gce_machine("gce-retry", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::INSTANCE_ID);
    assert_eq!(server.requests().len(), 3);

    let server = md::start();
    server.set(md::DOCUMENT, vec![status(404)]);
    let m = gce_machine("gce-404", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(
        m.diag_with_code("metadata-not-found").is_some(),
        "{:?}",
        m.diags()
    );
    assert_eq!(server.requests().len(), 1);
    assert!(m.status()["stages"]["local"].is_object());
}

/// cloud-init's `datasource: {GCE: {metadata_url, sec_between_retries}}`: the tree where the
/// image says, retried at its pace.
#[test]
fn the_image_names_the_metadata_url_and_the_pause_between_retries() {
    let server = md::start();
    server.set(md::DOCUMENT, vec![status(500), status(503), doc_answer()]);
    let m = gce_machine("gce-settings", &server);
    // The image's URL only: not the test's guard address on the command line.
    m.write(&m.host, "proc/cmdline", b"ro\n");
    let cfg = m.target_file("etc/cloud/cloud.cfg");
    let url = format!("{}/computeMetadata/v1/", server.url());
    let cfg = format!(
        "{cfg}datasource:\n  GCE:\n    metadata_url: {url}\n    sec_between_retries: 0.7\n"
    );
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::INSTANCE_ID);
    assert_eq!(server.requests().len(), 3);
    // Two pauses of 0.7 s, not the default 0.25 s then 0.5 s.
    assert!(took >= Duration::from_millis(1400), "{took:?}");
}

fn doc_answer() -> Answer {
    ok(&md::document().to_string())
}

#[test]
fn an_answer_without_the_flavor_header_is_refused() {
    let server = md::start();
    server.script.lock().unwrap().flavor = false;
    let m = gce_machine("gce-noflavor", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m
        .diag_with_code("metadata-impostor")
        .expect("metadata-impostor");
    assert!(
        d["message"].as_str().unwrap().contains("Metadata-Flavor"),
        "{d}"
    );
    assert!(!m.target.join("etc/gce-secret").exists());
    assert_eq!(server.requests().len(), 1, "not retried");
}

#[test]
fn truncated_and_garbage_answers() {
    // An answer past the deadline is the conformance table's.
    let doc = md::document().to_string();
    // A body cut short and bytes that are not HTTP are retried until the wait ends.
    let retried = ["metadata-unreachable", "fetch-deadline"];
    let garbage = Answer::Garbage(b"\x00\x01 not http\r\n\r\n".to_vec());
    for (name, answer, codes) in [
        (
            "gce-trunc",
            ok(&doc[..doc.len() / 2]),
            &["metadata-invalid"][..],
        ),
        (
            "gce-short",
            Answer::Truncated(doc.as_bytes().to_vec()),
            &retried,
        ),
        ("gce-garbage", garbage, &retried),
        (
            "gce-notjson",
            ok("<html>hello</html>"),
            &["metadata-invalid"],
        ),
        (
            "gce-noid",
            ok(r#"{"instance": {"hostname": "a.b"}}"#),
            &["metadata-invalid"],
        ),
    ] {
        let server = md::start();
        server.set(md::DOCUMENT, vec![answer]);
        let m = gce_machine(name, &server);
        m.cmdline(&format!(
            "ro ember.metadata-url={} ember.metadata-timeout=2",
            server.url()
        ));
        let out = m.initrd("all");
        m.fell_back(&out);
        let d = codes.iter().find_map(|c| m.diag_with_code(c));
        assert!(d.is_some(), "{name}: {:?}", m.diags());
        assert!(d.unwrap()["file"]
            .as_str()
            .unwrap()
            .contains("computeMetadata"));
        common::assert_no_panic(&out);
    }
}

#[test]
fn weak_dmi_evidence_is_not_gce() {
    let server = md::start();
    for (name, fields) in [
        (
            "gce-weak-product",
            &[("product_name", "Google Compute Engine")][..],
        ),
        (
            "gce-weak-vendor",
            &[("sys_vendor", "Google"), ("bios_vendor", "Google")][..],
        ),
    ] {
        let m = Machine::new(name);
        for (f, v) in fields {
            m.dmi(f, v);
        }
        target(&m);
        m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
        let out = m.initrd("all");
        assert_eq!(m.status()["datasource"], "none", "{name}: {}", stderr(&out));
    }
    assert!(server.requests().is_empty(), "no packet without evidence");

    // Named on the command line, the DMI does not matter.
    let m = Machine::new("gce-cmdline");
    target(&m);
    m.cmdline(&format!("ro ds=gce ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "gce");
}
