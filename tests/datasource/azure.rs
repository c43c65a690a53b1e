//! The Azure datasource end to end: `ember-initrd all` with the provisioning media (a real
//! ISO9660 image holding ovf-env.xml), the IMDS and the wireserver emulators on loopback
//! (`ember.metadata-url=`, `ember.azure.wireserver=`), DMI in the host tree: the default user
//! with the password only as a hash, keys, host name, custom data, network config, the
//! sanitized ovf-env.xml for the agent, the ready report; the api-version fallback; a later
//! boot without the DVD; a broken ovf-env.xml, or IMDS garbage with no ovf-env.xml, reported
//! NotReady; IMDS down or unreachable (ovf-env.xml alone); weak DMI refused.

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::azure::{self as md, Server};
use emulator::{status, Answer};

pub(crate) fn azure_machine(name: &str, server: &Server) -> Machine {
    let m = Machine::new(name);
    m.dmi("chassis_asset_tag", "7783-7084-3265-9085-8269-3286-77");
    m.dmi("sys_vendor", "Microsoft Corporation");
    m.dmi("product_name", "Virtual Machine");
    m.dmi("product_uuid", md::SYSTEM_UUID);
    let t = &m.target;
    m.write(t, "usr/lib/systemd/systemd-networkd", b"");
    Accounts::root().group("sudo", 27).shadow().write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    std::fs::create_dir_all(t.join("home")).unwrap();
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: debian\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m.cmdline(&format!(
        "ro ember.metadata-url={0} ember.azure.wireserver={0}",
        server.url()
    ));
    m
}

pub(crate) fn media(m: &Machine, ovf: &str) {
    m.iso_seed("sr0", "rd_rdfe_stable.161212-1209", &[("ovf-env.xml", ovf)]);
}

fn wire_posts(server: &Server) -> Vec<String> {
    server.wire.as_ref().unwrap().reports()
}

#[test]
fn provisions_from_media_imds_and_reports_ready() {
    let server = md::start_with_wire();
    let m = azure_machine("azure-full", &server);
    media(
        &m,
        &md::ovf_env(Some(md::PASSWORD), Some(md::CUSTOM_DATA), true),
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["datasource"], "azure", "{status}");
    let iid = md::SYSTEM_UUID.to_ascii_lowercase();
    assert_eq!(status["instance_id"], iid.as_str(), "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    // IMDS's computer name and admin user win over ovf-env.xml's; custom data over userData.
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
    assert_eq!(
        m.target_file("etc/azure-custom").trim(),
        "custom-data-secret-77b2"
    );
    assert!(!m.target.join("etc/azure-imds-ud").exists());
    let passwd = m.target_file("etc/passwd");
    assert!(passwd.contains("azureuser:x:"), "{passwd}");
    let keys = m.target_file("home/azureuser/.ssh/authorized_keys");
    assert!(keys.contains(md::KEY), "{keys}");
    // The password only as a SHA-512 crypt hash in shadow.
    let shadow = m.target_file("etc/shadow");
    let line = shadow
        .lines()
        .find(|l| l.starts_with("azureuser:"))
        .unwrap();
    assert!(line.starts_with("azureuser:$6$"), "{line}");
    // The agent's copy: 0600, the password redacted, the rest kept.
    let copy = m.target.join("var/lib/waagent/ovf-env.xml");
    assert_eq!(Machine::mode(&copy), 0o600);
    let text = std::fs::read_to_string(&copy).unwrap();
    assert!(
        text.contains("REDACTED") && text.contains("<CustomData>"),
        "{text}"
    );
    // cloud-init's instance data: IMDS under ds.meta_data.imds, its user-data left out; the
    // region and zone as cloud-init reads them from it.
    let idata = m.json("cloud-init/instance-data.json");
    let v1 = &idata["v1"];
    for (key, want) in [
        ("region", "westeurope"),
        ("availability_zone", "0"),
        ("cloud_id", "azure"),
        ("cloud_name", "azure"),
        ("platform", "azure"),
        ("instance_id", iid.as_str()),
        ("local_hostname", md::HOSTNAME),
    ] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    let imds = &idata["ds"]["meta_data"]["imds"]["compute"];
    assert_eq!(imds["vmSize"], "Standard_B1s", "{imds}");
    assert!(imds.get("userData").is_none(), "{imds}");
    // The network config from IMDS, matched by MAC, the second address static.
    let net = m.run_file("ember/network-config.json");
    assert!(
        net.contains(md::MAC) && net.contains("10.0.0.5/24"),
        "{net}"
    );
    // Ready reported: the goal state read, then one health report.
    let reports = wire_posts(&server);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(
        reports[0].contains("<State>Ready</State>"),
        "{}",
        reports[0]
    );
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        paths[0].starts_with("/metadata/instance?api-version=2021-08-01&extended=true"),
        "{paths:?}"
    );
    // The report follows the IMDS read, and its requests count with the fetch's (and the
    // media's one read).
    let wire_from = paths
        .iter()
        .position(|p| p.starts_with("/machine"))
        .unwrap();
    assert!(
        paths[wire_from..].iter().all(|p| p.starts_with("/machine")),
        "{paths:?}"
    );
    let steps = status["stages"]["fetch"]["steps"].to_string();
    let reads = format!("ok ({} reads)", paths.len() + 1);
    assert!(steps.contains(&reads), "{reads}: {steps}");
    for secret in [md::PASSWORD, "custom-data-secret-77b2", "imds-user-data"] {
        m.assert_secret_not_world_readable(secret);
        assert!(!stderr(&out).contains(secret), "secret on stderr");
    }
    assert!(!text.contains(md::PASSWORD));
    eprintln!("azure emulator: {} requests: {paths:?}", paths.len());

    // The next boot: the DVD is gone. The agent's copy stands in, the instance stays, and
    // the platform is not told again.
    std::fs::remove_dir_all(m.host.join("sys/class/block/sr0")).unwrap();
    std::fs::remove_file(m.host.join("dev/sr0")).unwrap();
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["first_boot"], false, "{status}");
    assert_eq!(status["instance_id"], iid.as_str(), "{status}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    assert_eq!(wire_posts(&server).len(), 1);
    let ud = m.target_file(&format!("var/lib/cloud/instances/{iid}/user-data.txt"));
    assert!(ud.contains("custom-data-secret-77b2"));
}

#[test]
fn older_imds_falls_back_to_2019_06_01() {
    let server = md::start_with_wire();
    server.script.lock().unwrap().old_api_only = true;
    let m = azure_machine("azure-old-api", &server);
    media(&m, &md::ovf_env(None, None, true));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let imds: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/metadata"))
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(imds.len(), 2, "{imds:?}");
    assert_eq!(imds[1], "/metadata/instance?api-version=2019-06-01");
    assert_eq!(m.target_file("etc/hostname").trim(), md::HOSTNAME);
}

#[test]
fn broken_ovf_env_is_reported_not_ready() {
    let server = md::start_with_wire();
    let m = azure_machine("azure-broken", &server);
    media(&m, "<Environment><wa:ProvisioningSection>");
    let out = m.initrd("all");
    m.fell_back(&out);
    let reports = wire_posts(&server);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(
        reports[0].contains("<State>NotReady</State>"),
        "{}",
        reports[0]
    );
    assert!(reports[0].contains("ProvisioningFailed"), "{}", reports[0]);
    let diags = format!("{:?}", m.diags());
    assert!(diags.contains("ovf-env.xml"), "{diags}");
    // Nothing was provisioned from it: no instance.
    // Reported not ready, then None stands in, as in cloud-init.
    assert_eq!(m.status()["instance_id"], "iid-datasource-none");
}

#[test]
fn imds_down_provisions_from_ovf_env_alone() {
    let server = md::start_with_wire();
    server.set(
        "/metadata/instance?api-version=2021-08-01&extended=true",
        vec![status(500)],
    );
    let m = azure_machine("azure-imds-down", &server);
    media(&m, &md::ovf_env(None, Some(md::CUSTOM_DATA), true));
    let out = m.initrd("all");
    // The failure is recorded (exit 1), the machine is provisioned and reported ready.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(m.target_file("etc/hostname").trim(), "ovf-hostname");
    assert!(wire_posts(&server)[0].contains("<State>Ready</State>"));
    let keys = m.target_file("home/azureuser/.ssh/authorized_keys");
    assert!(keys.contains(md::OVF_KEY), "{keys}");
    let diags = format!("{:?}", m.diags());
    assert!(diags.contains("/metadata/instance"), "{diags}");
}

#[test]
fn garbage_from_imds_is_an_error_naming_it() {
    let server = md::start_with_wire();
    server.set(
        "/metadata/instance?api-version=2021-08-01&extended=true",
        vec![Answer::Body(200, b"<html>proxy</html>".to_vec())],
    );
    let m = azure_machine("azure-garbage", &server);
    media(&m, &md::ovf_env(None, None, true));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = m.diag_with_code("metadata-invalid").expect("diag");
    assert!(d.to_string().contains("line 1"), "{d}");
}

#[test]
fn vendor_alone_is_not_azure() {
    let server = md::start_with_wire();
    let m = azure_machine("azure-weak", &server);
    m.dmi("chassis_asset_tag", "None");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(server.requests().is_empty());
    assert_ne!(m.status()["datasource"], "azure");
}

#[test]
fn imds_unreachable_provisions_from_ovf_env_alone() {
    let server = md::start_with_wire();
    let m = azure_machine("azure-imds-unreachable", &server);
    m.cmdline(&format!(
        "ro ember.metadata-url=http://127.0.0.1:9 ember.metadata-timeout=2 ember.azure.wireserver={}",
        server.url()
    ));
    media(&m, &md::ovf_env(Some(md::PASSWORD), None, true));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let diags = format!("{:?}", m.diags());
    assert!(diags.contains("127.0.0.1:9/metadata/instance"), "{diags}");
    assert!(diags.contains("refused"), "{diags}");
    assert_eq!(m.target_file("etc/hostname").trim(), "ovf-hostname");
    let shadow = m.target_file("etc/shadow");
    assert!(shadow.contains("azureuser:$6$"), "the password hash is set");
    assert_eq!(
        m.status()["instance_id"],
        md::SYSTEM_UUID.to_ascii_lowercase()
    );
}

#[test]
fn imds_garbage_without_ovf_env_is_reported_not_ready() {
    let server = md::start_with_wire();
    server.set(
        "/metadata/instance?api-version=2021-08-01&extended=true",
        vec![Answer::Body(200, b"<html>proxy</html>".to_vec())],
    );
    let m = azure_machine("azure-garbage-alone", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    let reports = wire_posts(&server);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(
        reports[0].contains("<State>NotReady</State>")
            && reports[0].contains("ember: metadata-invalid: "),
        "{}",
        reports[0]
    );
    assert!(!reports[0].contains("proxy"), "{}", reports[0]);
    // Reported not ready, then None stands in, as in cloud-init.
    assert_eq!(m.status()["instance_id"], "iid-datasource-none");
}
