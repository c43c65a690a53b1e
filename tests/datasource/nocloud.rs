//! The whole pipeline (`ember-initrd all`, then `ember status`) on each NoCloud seed form,
//! modelled on the examples of cloud-init's NoCloud documentation.

use crate::common;
use common::{have, stderr, stdout, Machine};

const META: &str = "instance-id: iid-local01\nlocal-hostname: cloudimg\n";
const USER: &str = "#cloud-config\nhostname: seeded\nusers: [default]\nsystem_info: {default_user: {name: cloudy}}\npassword: SECRET-pw-4242\nchpasswd: {expire: false}\nssh_pwauth: true\nruncmd:\n  - echo hi\n";
const NET: &str = "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n";

fn seed() -> Vec<(&'static str, &'static str)> {
    vec![
        ("meta-data", META),
        ("user-data", USER),
        ("network-config", NET),
    ]
}

/// A machine whose target has systemd-networkd, so the seed's network config is rendered.
fn networkd_machine(name: &str) -> Machine {
    let m = Machine::new(name);
    m.write(&m.target, "usr/lib/systemd/systemd-networkd", b"");
    m
}

/// What every successful first boot must have written, with modes.
fn check_first_boot(m: &Machine, seed_name: &str, hostname: &str) {
    let st = m.status();
    assert_eq!(st["datasource"], "nocloud");
    assert_eq!(st["instance_id"], "iid-local01");
    assert_eq!(st["first_boot"], true);
    assert!(
        st["datasource_detail"]
            .as_str()
            .unwrap()
            .contains(seed_name),
        "{}",
        st["datasource_detail"]
    );
    // Every step that ran says when it started (seconds since boot) and how long it took.
    let steps = st["stages"]["local"]["steps"].as_array().unwrap();
    let ran = steps
        .iter()
        .filter(|s| !s["result"].as_str().unwrap().starts_with("skipped"));
    for step in ran {
        assert!(step["start"].as_f64().is_some(), "{step}");
        assert!(step["duration_us"].as_u64().is_some(), "{step}");
    }
    for stage in ["detect", "fetch", "local"] {
        assert_eq!(st["stages"][stage]["state"], "done", "{stage}");
        assert_eq!(
            st["stages"][stage]["errors"],
            serde_json::json!([]),
            "{stage}"
        );
    }
    let expected_modes = [
        ("run/ember/status.json", 0o644),
        ("run/ember/instance-data.json", 0o644),
        ("run/ember/instance-data-sensitive.json", 0o600),
        ("run/ember/handoff.json", 0o600),
        ("run/ember/fetched.json", 0o600),
        ("run/cloud-init/status.json", 0o644),
        ("run/cloud-init/instance-data.json", 0o644),
        ("run/cloud-init/instance-data-sensitive.json", 0o600),
        ("run/cloud-init/combined-cloud-config.json", 0o600),
        (
            "target/var/lib/cloud/instances/iid-local01/user-data.txt",
            0o600,
        ),
        (
            "target/var/lib/cloud/instances/iid-local01/cloud-config.txt",
            0o600,
        ),
        (
            "target/var/lib/ember/instances/iid-local01/instance.json",
            0o600,
        ),
        ("target/var/lib/ember/data/instance-id", 0o644),
        ("target/var/lib/cloud/data/instance-id", 0o644),
    ];
    for (rel, mode) in expected_modes {
        assert_eq!(Machine::mode(&m.dir.join(rel)), mode, "{rel}");
    }
    assert!(
        !m.run.join("cloud-init/result.json").exists(),
        "result.json is the runner's"
    );
    assert_eq!(
        m.target_file("var/lib/ember/data/instance-id"),
        "iid-local01\n"
    );
    assert_eq!(
        std::fs::read_link(m.target.join("var/lib/cloud/instance")).unwrap(),
        std::path::Path::new("/var/lib/cloud/instances/iid-local01")
    );
    assert_eq!(
        m.target_file("var/lib/cloud/instances/iid-local01/user-data.txt"),
        USER
    );
    let ci = m.json("cloud-init/status.json");
    assert!(ci["v1"]["init-local"]["start"].is_number());
    assert!(ci["v1"]["init-local"]["finished"].is_number());
    assert_eq!(
        ci["v1"]["modules-final"]["finished"],
        serde_json::Value::Null
    );
    assert_eq!(
        std::fs::read_link(m.run.join("cloud-init/cloud-id")).unwrap(),
        m.run.join("cloud-init/cloud-id-nocloud")
    );

    let idata = m.json("cloud-init/instance-data.json");
    assert_eq!(idata["v1"]["instance_id"], "iid-local01");
    assert_eq!(idata["v1"]["local_hostname"], hostname);
    assert_eq!(idata["v1"]["platform"], "nocloud");
    assert_eq!(idata["merged_cfg"], "redacted for non-root user");
    let sensitive = m.json("cloud-init/instance-data-sensitive.json");
    assert_eq!(sensitive["merged_cfg"]["hostname"], "seeded");
    let net = m.json("ember/network-config.json");
    assert_eq!(net["config"]["ethernets"]["eth0"]["dhcp4"], true);
    let rendered = m.target_file("etc/systemd/network/10-cloud-init-eth0.network");
    assert!(
        rendered.contains("Name=eth0") && rendered.contains("DHCP=ipv4"),
        "{rendered}"
    );

    assert_eq!(m.json("ember/handoff.json")["instance_id"], "iid-local01");
    assert_eq!(m.handoff_module("runcmd")["config"]["runcmd"][0], "echo hi");

    // The secret in user-data is in no world-readable file ember wrote.
    m.assert_secret_not_world_readable("SECRET-pw-4242");

    let status = m.ember(&["status"]);
    assert_eq!(
        stdout(&status).trim(),
        "status: running",
        "config/final have not run"
    );
    assert_eq!(status.status.code(), Some(0));
    let query = m.ember(&["query", "v1.local_hostname"]);
    assert_eq!(stdout(&query).trim(), hostname);
    // Root sees user-data through query, read from the instance, as with cloud-init.
    let target = m.target.to_str().unwrap();
    let userdata = m.ember(&["--target", target, "query", "userdata"]);
    let root = std::fs::metadata("/proc/self").is_ok_and(|md| {
        use std::os::unix::fs::MetadataExt;
        md.uid() == 0
    });
    if root {
        assert_eq!(stdout(&userdata).trim_end(), USER.trim_end());
    } else {
        assert_eq!(stdout(&userdata).trim(), "<redacted for non-root user>");
    }
}

#[test]
fn iso9660_cidata_volume() {
    if !have("xorriso") {
        return;
    }
    let m = networkd_machine("iso");
    m.dmi("sys_vendor", "QEMU");
    m.iso_seed("sr0", "cidata", &seed());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    check_first_boot(&m, "/dev/sr0", "cloudimg");
    let st = m.status();
    let evidence = st["evidence"].to_string();
    assert!(
        evidence.contains("/dev/sr0 iso9660 label cidata"),
        "{evidence}"
    );
    assert!(evidence.contains("sys_vendor=QEMU"), "{evidence}");
    assert_eq!(
        m.json("cloud-init/instance-data.json")["v1"]["subplatform"],
        "config-disk (/dev/sr0)"
    );
}

#[test]
fn vfat_upper_case_label() {
    if !have("mkfs.vfat") || !have("mcopy") {
        return;
    }
    let m = networkd_machine("vfat");
    m.vfat_seed("vdb", "CIDATA", &seed());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    check_first_boot(&m, "/dev/vdb", "cloudimg");
}

#[test]
fn seed_directory_in_target() {
    let m = networkd_machine("seeddir");
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &seed());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    check_first_boot(&m, "/var/lib/cloud/seed/nocloud", "cloudimg");
}

#[test]
fn cmdline_file_seed_with_overrides() {
    let m = networkd_machine("cmdline");
    m.seed_files(&m.host, "seed", &seed());
    // Command-line values override meta-data, as in cloud-init.
    m.cmdline("ro ds=nocloud;s=file:///seed/;h=from-cmdline");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    check_first_boot(&m, "file:///seed/", "from-cmdline");
}

#[test]
fn smbios_serial_with_plain_path_and_short_keys() {
    let m = Machine::new("serial");
    m.seed_files(&m.host, "srv/seed", &[("meta-data", ""), ("user-data", "")]);
    m.dmi(
        "product_serial",
        "ds=nocloud;s=/srv/seed/;i=iid-serial;h=serialhost",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let st = m.status();
    assert_eq!(st["instance_id"], "iid-serial");
    assert!(st["evidence"].to_string().contains("smbios-serial"));
    let q = m.ember(&["query", "v1.local_hostname"]);
    assert_eq!(stdout(&q).trim(), "serialhost");
}

#[test]
fn detect_prints_evidence_as_json() {
    let m = Machine::new("detectjson");
    m.cmdline("ro ember.datasource=nocloud ds=nocloud;s=/x/");
    let out = m.initrd_args(&["--format", "json", "detect"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["datasource"], "nocloud");
    assert_eq!(v["evidence"][0]["source"], "cmdline");
    assert_eq!(v["evidence"][0]["detail"], "ds=nocloud;seedfrom=/x/");
}

/// A `ds=` name ember does not know is said to be unknown (not "no ds="); with evidence
/// elsewhere, that datasource is chosen and the name is still warned about.
#[test]
fn an_unknown_ds_name_is_said_to_be_unknown() {
    let m = Machine::new("ds-unknown");
    m.cmdline("ro ds=Nonesuch");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = m.diag_with_code("no-datasource").expect("says why");
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains("ds=nonesuch") && msg.contains("unknown"),
        "{msg}"
    );
    assert!(!msg.contains("no ds="), "{msg}");

    let m = Machine::new("ds-unknown-seed");
    let files = [("meta-data", "instance-id: i-7\n"), ("user-data", "")];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    m.cmdline("ro ds=Nonesuch");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-7");
    let d = m
        .diag_with_code("no-datasource")
        .expect("the name is warned about");
    assert!(d["message"].as_str().unwrap().contains("nonesuch"), "{d}");
}

/// Ubuntu Core's seed stays on its writable partition until the root is assembled.
#[test]
fn ubuntu_core_writable_seed() {
    for name in ["nocloud", "nocloud-net"] {
        let m = Machine::new("core-seed");
        let files = [
            ("meta-data", "instance-id: i-core\n"),
            ("user-data", "#cloud-config\n{}\n"),
        ];
        let dir = format!("writable/system-data/var/lib/cloud/seed/{name}");
        m.seed_files(&m.target, &dir, &files);
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(m.status()["datasource"], "nocloud");
        assert_eq!(m.status()["instance_id"], "i-core");
    }
}

#[test]
fn no_evidence_means_no_datasource_and_no_writes_to_target() {
    let m = Machine::new("none");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0));
    let d = m.diag_with_code("no-datasource").expect("says so");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("no network request"));
    assert_eq!(m.status()["datasource"], "none");
    assert!(!m.target.join("var").exists());
}
