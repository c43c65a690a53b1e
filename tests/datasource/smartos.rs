#![cfg(feature = "ds-smartos")]
//! The SmartOS datasource end to end: `ember-initrd all` against the metadata agent emulator
//! on a pty standing for `/dev/ttyS1` (DMI `SmartDC HVM`) or on a zone's unix socket: the
//! keys into meta-data, user-data, the scripts and the legacy user-data as files, `sdc:nics`
//! rendered; faults (a bad CRC, a stale frame, another request's id, a dead agent, a closed
//! channel, bad JSON, no uuid), legacy base64 markers, no evidence no request, secrets kept.

use crate::common;
use crate::common::emulator::smartos::{self as md, Agent, Fault};
use crate::common::target::Accounts;
use common::{stderr, Machine};
use std::time::{Duration, Instant};

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

fn target(m: &Machine, extra: &str) {
    let t = &m.target;
    m.write(t, NETWORKD, b"");
    Accounts::root().user("admin").write(t);
    let cfg = format!("users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n{extra}");
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

/// A KVM guest whose /dev/ttyS1 is the agent's pty.
fn kvm(name: &str, agent: &Agent, extra: &str) -> Machine {
    let m = Machine::new(name);
    m.dmi("product_name", "SmartDC HVM");
    m.dmi("sys_vendor", "Joyent");
    std::os::unix::fs::symlink(agent.pty(), m.host.join("dev/ttyS1")).unwrap();
    for (file, value) in [("address", md::MAC), ("type", "1")] {
        m.write(
            &m.host,
            &format!("sys/class/net/ens3/{file}"),
            format!("{value}\n").as_bytes(),
        );
    }
    target(&m, extra);
    m
}

fn networkd(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut out = String::new();
    for e in std::fs::read_dir(dir)
        .map(|d| d.flatten().collect::<Vec<_>>())
        .unwrap_or_default()
    {
        out.push_str(&std::fs::read_to_string(e.path()).unwrap());
    }
    out
}

fn diag_for(m: &Machine, code: &str, key: &str) -> bool {
    m.diags()
        .iter()
        .any(|d| d["code"] == code && d["key"] == key)
}

#[test]
fn provisions_a_kvm_guest_over_the_serial_port() {
    let agent = Agent::new();
    let m = kvm("smartos-kvm", &agent, "");
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["datasource"], "smartos", "{status}");
    assert_eq!(status["instance_id"], md::UUID, "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(md::KEY));
    assert_eq!(
        m.target_file("etc/smartos-secret").trim(),
        "smartos-user-data-5e1f"
    );
    let data = format!("var/lib/cloud/instances/{}/data", md::UUID);
    let script = m.target_file(&format!("{data}/user-script"));
    assert_eq!(script, format!("#!/bin/bash\n{}", md::USER_SCRIPT));
    assert_eq!(
        Machine::mode(&m.target.join(format!("{data}/user-script"))),
        0o700
    );
    assert_eq!(
        m.target_file(&format!("{data}/operator-script")),
        md::OPERATOR_SCRIPT
    );
    assert_eq!(
        m.target_file("var/db/mdata-user-data"),
        md::LEGACY_USER_DATA
    );
    assert_eq!(
        Machine::mode(&m.target.join("var/db/mdata-user-data")),
        0o400
    );
    // No sdc:vendor-data: cloud-init's boothook that runs both scripts each boot.
    let vendor = m.target_file(&format!(
        "var/lib/cloud/instances/{}/vendor-data.txt",
        md::UUID
    ));
    assert!(vendor.starts_with("#cloud-boothook"), "{vendor}");
    assert!(
        vendor.contains(&format!("/{data}/operator-script /{data}/user-script")),
        "{vendor}"
    );
    let net = networkd(&m);
    for want in [
        &format!("MACAddress={}", md::MAC),
        "Address=10.88.88.50/24",
        "Gateway=10.88.88.2",
        "Destination=10.99.0.0/16",
        "DNS=8.8.8.8",
        "Domains=inst.example",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    let idata = m.json("ember/instance-data.json");
    let v1 = &idata["v1"];
    assert_eq!(v1["platform"], "joyent", "{v1}");
    assert_eq!(v1["availability_zone"], "us-east-1", "{v1}");
    assert_eq!(v1["subplatform"], "serial (/dev/ttyS1)", "{v1}");
    // Every key once, then the legacy base64 markers' list; nothing else.
    let reqs = agent.requests();
    assert_eq!(reqs.len(), 17, "{reqs:?}");
    assert_eq!(reqs[0], "GET sdc:uuid");
    assert_eq!(reqs.last().unwrap(), "KEYS");
    for s in [
        "smartos-user-data-5e1f",
        "user-script-secret-8a2c",
        "operator-secret-44b1",
        "legacy-mdata-secret-91d0",
    ] {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(&out).contains(s), "secret on stderr");
        assert!(!idata.to_string().contains(s), "secret in instance-data");
    }
    eprintln!(
        "smartos agent: {} requests, ember-initrd all in {took:?}",
        reqs.len()
    );
}

#[test]
fn a_zone_reads_the_agent_socket() {
    let agent = Agent::new();
    let m = Machine::new("smartos-zone");
    m.write(
        &m.host,
        "proc/sys/kernel/version",
        b"BrandZ virtual linux\n",
    );
    std::fs::create_dir_all(m.host.join("native/.zonecontrol")).unwrap();
    agent.listen(&m.host.join("native/.zonecontrol/metadata.sock"));
    target(&m, "");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], md::UUID);
    let v1 = &m.json("ember/instance-data.json")["v1"];
    assert_eq!(
        v1["subplatform"], "socket (/native/.zonecontrol/metadata.sock)",
        "{v1}"
    );
    // The zone's client has no legacy base64 markers to look up.
    assert!(!agent.requests().contains(&"KEYS".to_string()));

    // The socket without the BrandZ kernel is no evidence.
    let agent = Agent::new();
    let m = Machine::new("smartos-nozone");
    std::fs::create_dir_all(m.host.join("native/.zonecontrol")).unwrap();
    agent.listen(&m.host.join("native/.zonecontrol/metadata.sock"));
    target(&m, "");
    m.initrd("all");
    assert_eq!(m.status()["datasource"], "none");
    assert!(agent.requests().is_empty(), "no request without evidence");
}

#[test]
fn damaged_and_stale_answers_are_asked_again() {
    let agent = Agent::new();
    agent.fault("hostname", &[Fault::BadCrc]);
    agent.fault("sdc:uuid", &[Fault::StaleFirst]);
    agent.fault("root_authorized_keys", &[Fault::OtherId]);
    agent.fault("sdc:nics", &[Fault::Failure]);
    let m = kvm(
        "smartos-retry",
        &agent,
        "datasource:\n  SmartOS:\n    serial_timeout: 0.5\n",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(m.status()["instance_id"], md::UUID);
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(md::KEY));
    assert!(networkd(&m).contains("Address=10.88.88.50/24"));
    let reqs = agent.requests();
    for key in ["hostname", "root_authorized_keys", "sdc:nics"] {
        let n = reqs.iter().filter(|r| **r == format!("GET {key}")).count();
        assert_eq!(n, 2, "{key}: {reqs:?}");
    }
    assert_eq!(reqs.iter().filter(|r| *r == "GET sdc:uuid").count(), 1);
}

#[test]
fn a_key_that_keeps_failing_fails_alone() {
    let agent = Agent::new();
    agent.fault("hostname", &[Fault::BadCrc, Fault::BadCrc]);
    agent.set("sdc:nics", "[{\"interface\": ");
    let m = kvm("smartos-badkey", &agent, "");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        diag_for(&m, "metadata-invalid", "hostname"),
        "{:?}",
        m.diags()
    );
    assert!(
        diag_for(&m, "metadata-invalid", "sdc:nics"),
        "{:?}",
        m.diags()
    );
    let d = m.diag_with_code("metadata-invalid").unwrap();
    assert_eq!(d["file"], "/dev/ttyS1", "{d}");
    // Without `hostname`, cloud-init's next choice: the machine's sdc:hostname.
    assert_eq!(m.target_file("etc/hostname").trim(), "triton-vm");
    assert!(!networkd(&m).contains("10.88.88.50"), "fallback network");
}

#[test]
fn a_dead_agent_a_closed_channel_and_no_uuid_fail_the_datasource() {
    let agent = Agent::new();
    agent.mute.store(true, std::sync::atomic::Ordering::SeqCst);
    let m = kvm(
        "smartos-mute",
        &agent,
        "datasource:\n  SmartOS:\n    max_wait: 2\n",
    );
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(started.elapsed() < Duration::from_secs(6));
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-unreachable").expect("diag");
    assert!(
        d["message"].as_str().unwrap().contains("did not answer"),
        "{d}"
    );
    assert_eq!(d["file"], "/dev/ttyS1", "{d}");
    common::assert_no_panic(&out);

    let agent = Agent::new();
    agent.fault("sdc:uuid", &[Fault::Close]);
    let m = kvm("smartos-closed", &agent, "");
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(
        diag_for(&m, "metadata-unreachable", "sdc:uuid"),
        "{:?}",
        m.diags()
    );
    let d = m.diag_with_code("metadata-unreachable").unwrap();
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("no instance id: GET failed"),
        "{d}"
    );

    let agent = Agent::new();
    agent.remove("sdc:uuid");
    let m = kvm("smartos-nouuid", &agent, "");
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(
        diag_for(&m, "metadata-invalid", "sdc:uuid"),
        "{:?}",
        m.diags()
    );
}

#[test]
fn legacy_base64_markers_decode_values() {
    let agent = Agent::new();
    agent.set("hostname", "bGVnYWN5LWhvc3Q="); // legacy-host
    agent.set("b64-hostname", "true");
    agent.set("base64_keys", "cloud-init:user-data");
    agent.set(
        "cloud-init:user-data",
        "I2Nsb3VkLWNvbmZpZwpib290Y21kOiBbdHJ1ZV0K",
    );
    let m = kvm("smartos-b64", &agent, "");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.target_file("etc/hostname").trim(), "legacy-host");
    let ud = m.target_file(&format!(
        "var/lib/cloud/instances/{}/user-data.txt",
        md::UUID
    ));
    assert_eq!(ud, "#cloud-config\nbootcmd: [true]\n");
    // root_authorized_keys is never decoded, whatever base64_all says.
    let agent = Agent::new();
    agent.set("base64_all", "yes");
    agent.set("sdc:datacenter_name", "not base64!");
    let m = kvm("smartos-b64all", &agent, "");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(m
        .target_file("home/admin/.ssh/authorized_keys")
        .contains(md::KEY));
    assert!(
        diag_for(&m, "base64-invalid", "hostname"),
        "{:?}",
        m.diags()
    );
}

#[test]
fn no_smartdc_dmi_no_request() {
    let agent = Agent::new();
    let m = Machine::new("smartos-nodmi");
    m.dmi("product_name", "Standard PC (i440FX + PIIX, 1996)");
    std::os::unix::fs::symlink(agent.pty(), m.host.join("dev/ttyS1")).unwrap();
    target(&m, "");
    m.initrd("all");
    assert_eq!(m.status()["datasource"], "none");
    assert!(agent.requests().is_empty(), "no request without evidence");
}
