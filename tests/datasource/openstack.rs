//! OpenStack end to end: `ember-initrd all` on config drives made as real ISO9660
//! (`xorriso -V config-2`) and VFAT (`mkfs.vfat -n CONFIG-2`) images, and against the Nova
//! metadata emulator on loopback: the newest known version chosen, vendor-data forms,
//! network_data.json (a bond and a VLAN) rendered for networkd, broken JSON named by file,
//! service faults (404, 500 then 200, slow, truncated, garbage), no network without evidence,
//! and secrets kept out of world-readable files.

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{have, stderr, Machine};
use emulator::openstack::{self as nova, Nova};
use emulator::{ok, status, Answer};
use std::process::Command;
use std::time::{Duration, Instant};

/// A Debian-like target with networkd and a default user; the host's NICs have MAC0 and MAC1.
fn machine(name: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    m.write(t, "usr/lib/systemd/systemd-networkd", b"");
    Accounts::root().user("admin").write(t);
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 1000\n    datasource_timeout_ms: 8000\n    file_bytes: 1048576\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    for (nic, mac) in [("ens3", nova::MAC0), ("ens4", nova::MAC1)] {
        for (file, value) in [("address", mac), ("type", "1")] {
            let path = format!("sys/class/net/{nic}/{file}");
            m.write(&m.host, &path, format!("{value}\n").as_bytes());
        }
    }
    m
}

fn nova_dmi(m: &Machine) {
    m.dmi("sys_vendor", "OpenStack Foundation");
    m.dmi("product_name", "OpenStack Nova");
}

fn owned(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

/// A VFAT config drive at `/dev/<dev>` with directories (which the harness's seed has not).
fn vfat_drive(m: &Machine, dev: &str, label: &str, files: &[(String, String)]) {
    let sys = m.host.join("sys/class/block").join(dev);
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::write(sys.join("removable"), "0\n").unwrap();
    std::fs::write(sys.join("size"), "8192\n").unwrap();
    let node = m.host.join("dev").join(dev);
    let run = |cmd: &mut Command| {
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{cmd:?}: {}", stderr(&out));
    };
    run(Command::new("truncate").args(["-s", "4M"]).arg(&node));
    run(Command::new("mkfs.vfat").args(["-n", label]).arg(&node));
    let mut dirs: Vec<String> = vec!["openstack".into()];
    for (path, _) in files {
        let dir = path.rsplit_once('/').unwrap().0.to_string();
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    for dir in dirs {
        run(Command::new("mmd")
            .arg("-i")
            .arg(&node)
            .arg(format!("::{dir}")));
    }
    for (i, (path, body)) in files.iter().enumerate() {
        let src = m.dir.join(format!("vfat-src-{i}"));
        std::fs::write(&src, body).unwrap();
        run(Command::new("mcopy")
            .arg("-i")
            .arg(&node)
            .arg(&src)
            .arg(format!("::{path}")));
    }
}

fn networkd_files(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    paths.sort();
    let body = |p: &std::path::PathBuf| std::fs::read_to_string(p).unwrap();
    let name = |p: &std::path::PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
    paths
        .iter()
        .map(|p| format!("== {}\n{}", name(p), body(p)))
        .collect()
}

/// What every provisioned OpenStack instance has, from either source.
fn check_provisioned(m: &Machine, subplatform: &str) {
    let st = m.status();
    assert_eq!(st["instance_id"], nova::UUID, "{st}");
    // cloud-init's two datasources, one cloud.
    let ds = if subplatform.starts_with("config-disk") || subplatform.starts_with("seed-dir") {
        "configdrive"
    } else {
        "openstack"
    };
    assert_eq!(st["datasource"], ds, "{st}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["cloud_name"], "openstack");
    assert_eq!(idata["v1"]["platform"], "openstack");
    assert_eq!(m.run_file("cloud-init/cloud-id-openstack"), "openstack\n");
    assert_eq!(idata["v1"]["subplatform"], subplatform);
    assert_eq!(idata["v1"]["availability_zone"], "nova");
    assert_eq!(idata["ds"]["meta_data"]["local-hostname"], nova::HOSTNAME);
    assert_eq!(idata["ds"]["meta_data"]["meta"]["role"], "webserver");
    // network_data.json as cloud-init keeps it; the v1 keys it derives.
    let links = &idata["ds"]["network_json"]["links"];
    assert!(
        links.as_array().is_some_and(|l| !l.is_empty()),
        "{}",
        idata["ds"]
    );
    let v1 = &idata["v1"];
    assert_eq!(v1["cloud_id"], "openstack", "{v1}");
    assert_eq!(v1["region"], serde_json::Value::Null, "{v1}");
    let short = nova::HOSTNAME.split('.').next().unwrap();
    assert_eq!(v1["local_hostname"], short, "{v1}");
    assert_eq!(m.target_file("etc/hostname").trim(), "os-test");
    let keys = m.target_file("home/admin/.ssh/authorized_keys");
    assert!(keys.contains(nova::KEY), "{keys}");
    assert_eq!(
        m.target_file("etc/os-secret").trim(),
        "user-data-secret-5c2e"
    );
    // vendor_data.json's `cloud-init` string is vendor-data; vendor_data2.json has none.
    let runcmd = m.handoff_module("runcmd").to_string();
    assert!(runcmd.contains("vendor-data-ran"), "{runcmd}");
    // network_data.json: both NICs by MAC in a bond, the VLAN on it with the address.
    let net = networkd_files(m);
    for want in [
        &format!("MACAddress={}", nova::MAC0),
        &format!("MACAddress={}", nova::MAC1),
        "Kind=bond",
        "Mode=active-backup",
        "Kind=vlan",
        "Id=42",
        "Address=10.42.0.5/24",
        "Gateway=10.42.0.1",
        "DNS=10.42.0.2",
    ] {
        assert!(net.contains(want), "{want} missing in\n{net}");
    }
    for secret in [
        "user-data-secret-5c2e",
        nova::ADMIN_PASS,
        "cmFuZG9tLXNlZWQ=",
    ] {
        m.assert_secret_not_world_readable(secret);
    }
}

#[test]
fn config_drive_iso_newest_known_version() {
    if !have("xorriso") {
        return;
    }
    let m = machine("os-iso");
    nova_dmi(&m);
    m.iso_seed("sr0", "config-2", &owned(&nova::drive_files()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check_provisioned(&m, "config-disk (/dev/sr0)");
    let st = m.status();
    let detail = st["datasource_detail"].as_str().unwrap();
    assert!(
        detail.contains("DataSourceConfigDrive") && detail.contains("/dev/sr0"),
        "{detail}"
    );
    let net = m.json("ember/network-config.json");
    assert_eq!(
        net["source"],
        format!("/dev/sr0: openstack/{}/network_data.json", nova::CHOSEN)
    );
    assert_eq!(net["model"]["format"], "openstack");
}

/// A config drive copied into the image (`/var/lib/cloud/seed/config_drive`, or
/// `/config-drive`) is read as a drive is, before any volume, with no DMI and no network.
#[test]
fn config_drive_in_a_seed_directory() {
    for dir in ["var/lib/cloud/seed/config_drive", "config-drive"] {
        let m = machine("os-seed-dir");
        m.seed_files(&m.target, dir, &owned(&nova::drive_files()));
        // The drive's secrets, as the image keeps them: readable by root only.
        for (rel, _) in Machine::tree(&m.target.join(dir)) {
            let path = m.target.join(dir).join(rel);
            if path.is_file() {
                let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
                std::fs::set_permissions(&path, private).unwrap();
            }
        }
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{dir}: {}", stderr(&out));
        check_provisioned(&m, &format!("seed-dir (/{dir})"));
        let detail = m.status()["datasource_detail"].to_string();
        assert!(detail.contains(&format!("[source=/{dir}]")), "{detail}");
    }
}

/// `ds=` naming ConfigDrive on a machine without one says what was asked for and what it
/// lacked, and sends nothing.
#[test]
fn config_drive_named_without_a_drive_says_what_it_lacks() {
    let m = machine("os-named-no-drive");
    m.cmdline("ro ds=ConfigDrive");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "none");
    let d = m.diag_with_code("no-datasource").expect("says why");
    let msg = d["message"].as_str().unwrap();
    for want in [
        "ds=configdrive",
        "ConfigDrive",
        "config-2",
        "no network request",
    ] {
        assert!(msg.contains(want), "{want} missing: {msg}");
    }
    assert!(!msg.contains("no ds="), "{msg}");
}

#[test]
fn config_drive_vfat_without_dmi() {
    if !have("mkfs.vfat") || !have("mcopy") {
        return;
    }
    let m = machine("os-vfat");
    // Only `latest` and an old version: the dated one ember knows wins over `latest`.
    let files: Vec<(String, String)> = nova::drive_files()
        .into_iter()
        .filter(|(p, _)| !p.contains(nova::CHOSEN))
        .collect();
    vfat_drive(&m, "vdb", "CONFIG-2", &files);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "old-version-uuid");
    // With the dated versions gone, `latest` is read.
    let m = machine("os-vfat-latest");
    let files: Vec<(String, String)> = nova::drive_files()
        .into_iter()
        .filter(|(p, _)| p.starts_with("openstack/latest/"))
        .collect();
    vfat_drive(&m, "vdb", "CONFIG-2", &files);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check_provisioned(&m, "config-disk (/dev/vdb)");
}

/// cloud-init's ConfigDrive writes meta_data.json's injected files (content under
/// `openstack/content/`) into the target on a new instance, mode 0660, and only then.
#[test]
fn config_drive_injected_files_are_written_on_a_new_instance() {
    if !have("xorriso") {
        return;
    }
    let mut md: serde_json::Value = serde_json::from_str(&nova::meta_data()).unwrap();
    md["files"] = serde_json::json!([
        {"path": "/etc/injected.conf", "content_path": "/content/0000"},
        {"path": "/etc/escape", "content_path": "/../etc/passwd"}
    ]);
    let mut files = replaced("meta_data.json", &md.to_string());
    files.push(("openstack/content/0000".into(), "injected=yes\n".into()));
    let m = machine("os-injected");
    nova_dmi(&m);
    m.iso_seed("sr0", "config-2", &owned(&files));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.target_file("etc/injected.conf"), "injected=yes\n");
    assert_eq!(
        Machine::mode(&m.target.join("etc/injected.conf")) & 0o777,
        0o660
    );
    assert!(!m.target.join("etc/escape").exists());
    let d = m.diags();
    assert!(
        d.iter()
            .any(|d| d["key"] == "files.1" && d["severity"] == "warning"),
        "{d:?}"
    );
    // The same instance again: the admin's change stays.
    m.write(&m.target, "etc/injected.conf", b"edited\n");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.target_file("etc/injected.conf"), "edited\n");
}

fn replaced(name: &str, body: &str) -> Vec<(String, String)> {
    let path = format!("openstack/{}/{name}", nova::CHOSEN);
    let mut files = nova::drive_files();
    for f in &mut files {
        if f.0 == path {
            f.1 = body.to_string();
        }
    }
    files
}

#[test]
fn broken_json_is_named_by_file() {
    if !have("xorriso") {
        return;
    }
    // Broken meta_data.json: no instance, the file named, not its content.
    let m = machine("os-broken-md");
    m.iso_seed(
        "sr0",
        "config-2",
        &owned(&replaced("meta_data.json", "{\"uuid\": \"secret-ish")),
    );
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("metadata-invalid").expect("a diagnostic");
    let file = format!("/dev/sr0: openstack/{}/meta_data.json", nova::CHOSEN);
    assert_eq!(d["file"], file, "{d}");
    assert!(!d.to_string().contains("secret-ish"), "{d}");
    // Broken network_data.json and a vendor_data.json that is a list: warnings, the rest used.
    let m = machine("os-broken-net");
    let mut files = replaced("network_data.json", "{\"links\": [");
    let vd = format!("openstack/{}/vendor_data.json", nova::CHOSEN);
    files
        .iter_mut()
        .filter(|f| f.0 == vd)
        .for_each(|f| f.1 = "[\"a\"]".into());
    m.iso_seed("sr0", "config-2", &owned(&files));
    let out = m.initrd("all");
    assert_eq!(m.status()["instance_id"], nova::UUID, "{}", stderr(&out));
    let d = m
        .diag_with_code("metadata-invalid")
        .expect("network_data.json named");
    assert!(
        d["file"].as_str().unwrap().ends_with("network_data.json"),
        "{d}"
    );
    let d = m
        .diag_with_code("wrong-type")
        .expect("vendor_data.json named");
    assert!(
        d["file"].as_str().unwrap().ends_with("vendor_data.json"),
        "{d}"
    );
    // vendor_data.json as a plain JSON string is the vendor-data itself.
    let m = machine("os-vendor-string");
    let body = "\"#cloud-config\\nruncmd:\\n  - echo vendor-string-ran\\n\"";
    m.iso_seed(
        "sr0",
        "config-2",
        &owned(&replaced("vendor_data.json", body)),
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runcmd = m.handoff_module("runcmd").to_string();
    assert!(runcmd.contains("vendor-string-ran"), "{runcmd}");
}

pub(crate) fn service_machine(name: &str, server: &Nova) -> Machine {
    let m = machine(name);
    nova_dmi(&m);
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

/// cloud-init's `datasource: {OpenStack: {apply_network_config: false}}`: network_data.json
/// is not rendered; the fallback is.
#[test]
fn apply_network_config_false_leaves_the_network_to_the_fallback() {
    let server = nova::start();
    let m = service_machine("os-no-net", &server);
    let cfg = m.target_file("etc/cloud/cloud.cfg");
    let cfg = format!("{cfg}datasource:\n  OpenStack:\n    apply_network_config: false\n");
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let net = networkd_files(&m);
    assert!(
        !net.contains("Kind=bond") && !net.contains("Id=42"),
        "{net}"
    );
    let network = m.json("ember/network-config.json");
    assert_eq!(network["source"], "fallback", "{network}");
}

fn paths(server: &Nova) -> Vec<String> {
    server.requests().into_iter().map(|r| r.path).collect()
}

#[test]
fn metadata_service_provisions() {
    let server = nova::start();
    let m = service_machine("os-http", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check_provisioned(&m, &format!("metadata ({})", server.url()));
    let v = format!("/openstack/{}", nova::CHOSEN);
    let want: Vec<String> = [
        "",
        "/meta_data.json",
        "/user_data",
        "/vendor_data.json",
        "/vendor_data2.json",
        "/network_data.json",
    ]
    .iter()
    .map(|f| {
        if f.is_empty() {
            "/openstack".into()
        } else {
            format!("{v}{f}")
        }
    })
    .collect();
    assert_eq!(paths(&server), want);
    assert!(server.requests().iter().all(|r| r.method == "GET"));
    let st = m.status();
    let fetch = st["stages"]["fetch"].to_string();
    eprintln!(
        "openstack http: {} requests, all stages {took:?}; fetch {fetch}",
        want.len()
    );
}

#[test]
fn metadata_service_faults() {
    let server = nova::start();
    let v = format!("/openstack/{}", nova::CHOSEN);
    let fixture = |name: &str| {
        nova::version_files()
            .into_iter()
            .find(|f| f.0 == name)
            .unwrap()
            .1
    };
    server.set(
        "/openstack",
        vec![
            Answer::Garbage(b"SSH-2.0-nope\r\n".to_vec()),
            ok(nova::VERSIONS),
        ],
    );
    server.set(
        &format!("{v}/meta_data.json"),
        vec![status(500), ok(&fixture("meta_data.json"))],
    );
    server.set(
        &format!("{v}/user_data"),
        vec![
            Answer::Slow(Duration::from_millis(1800), Box::new(ok("x"))),
            ok(nova::USER_DATA),
        ],
    );
    server.set(
        &format!("{v}/network_data.json"),
        vec![
            Answer::Truncated(b"{\"links\"".to_vec()),
            ok(&fixture("network_data.json")),
        ],
    );
    server.set(&format!("{v}/vendor_data2.json"), vec![status(404)]);
    let m = service_machine("os-http-faults", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check_provisioned(&m, &format!("metadata ({})", server.url()));
    let count = |p: &str| paths(&server).iter().filter(|x| *x == p).count();
    assert_eq!(count("/openstack"), 2);
    assert_eq!(count(&format!("{v}/meta_data.json")), 2);
    assert_eq!(count(&format!("{v}/user_data")), 2);
    assert_eq!(count(&format!("{v}/network_data.json")), 2);
    assert_eq!(count(&format!("{v}/vendor_data2.json")), 1);
}

#[test]
fn metadata_service_failures_are_named() {
    // meta_data.json never answers: the datasource fails with the path, within the deadline.
    let server = nova::start();
    let v = format!("/openstack/{}", nova::CHOSEN);
    server.set(&format!("{v}/meta_data.json"), vec![status(503)]);
    let m = service_machine("os-http-503", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(started.elapsed() < Duration::from_secs(12));
    m.fell_back(&out);
    let d = m.diag_with_code("fetch-failed").expect("fetch-failed");
    assert!(
        d["file"].as_str().unwrap().ends_with("/meta_data.json"),
        "{d}"
    );
    assert!(!m.target.join("etc/os-secret").exists());
    // No service at all: unreachable within ember.metadata-timeout.
    let m = machine("os-http-none");
    nova_dmi(&m);
    m.cmdline("ro ember.metadata-url=http://127.0.0.1:9 ember.metadata-timeout=2");
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    m.fell_back(&out);
    assert!(
        m.diag_with_code("metadata-unreachable").is_some(),
        "{:?}",
        m.diags()
    );
    // An oversized user_data: the budget is named.
    let server = nova::start();
    server.set(&format!("{v}/user_data"), vec![ok(&"#".repeat(2 << 20))]);
    let m = service_machine("os-http-big", &server);
    m.initrd("all");
    let d = m.diag_with_code("budget-exceeded").expect("budget");
    assert!(d["file"].as_str().unwrap().ends_with("/user_data"), "{d}");
}

#[test]
fn no_network_without_evidence() {
    let server = nova::start();
    // No DMI, no drive: the service is never asked, even with its URL on the command line.
    let m = machine("os-none");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m.initrd("all");
    // A vendor that is not a sign cloud-init reads.
    let m = machine("os-weak");
    m.dmi("sys_vendor", "OpenStack Foundation");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m.initrd("all");
    assert!(server.requests().is_empty(), "{:?}", paths(&server));
    assert_ne!(m.status()["datasource"], "openstack");
    // A config drive wins over the service: nothing is asked of it either.
    if have("xorriso") {
        let m = service_machine("os-drive-first", &server);
        m.iso_seed("sr0", "CONFIG-2", &owned(&nova::drive_files()));
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(m.status()["instance_id"], nova::UUID);
        assert!(server.requests().is_empty(), "{:?}", paths(&server));
    }
}
