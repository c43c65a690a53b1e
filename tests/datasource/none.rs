//! cloud-init's None datasource: `datasource_list: [None]` provisions from the image's
//! config alone (its default user, the fallback network), instance `iid-datasource-none`;
//! None last in the list stands in when the clouds before it find nothing, yet a cached
//! instance is kept over it.

use crate::common;
use crate::common::target::Accounts;
use common::{stderr, Machine};

const MAC: &str = "52:54:00:12:34:56";

/// A Debian-like target without the default user yet, with networkd, and one NIC on the host.
fn image(name: &str, cfg: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    m.write(t, "usr/lib/systemd/systemd-networkd", b"");
    Accounts::root().group("sudo", 27).shadow().write(t);
    m.write(t, "etc/hostname", b"debian-image.example.org\n");
    std::fs::create_dir_all(t.join("root")).unwrap();
    std::fs::create_dir_all(t.join("home")).unwrap();
    let cfg = format!(
        "users: [default]\nsystem_info:\n  default_user:\n    name: imageuser\nember:\n  limits:\n    request_timeout_ms: 500\n    datasource_timeout_ms: 2000\n{cfg}"
    );
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    for (file, value) in [("address", MAC), ("type", "1"), ("carrier", "1")] {
        let rel = format!("sys/class/net/ens3/{file}");
        m.write(&m.host, &rel, format!("{value}\n").as_bytes());
    }
    m
}

fn networkd(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let entries = std::fs::read_dir(&dir).map(|d| d.flatten().collect::<Vec<_>>());
    let files = entries.unwrap_or_default();
    let text = files
        .iter()
        .map(|e| std::fs::read_to_string(e.path()).unwrap());
    text.collect()
}

/// Provisioned by None: done, no error, the default user and the fallback network, the
/// instance data in cloud-init's words.
fn assert_provisioned_by_none(m: &Machine, out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let st = m.status();
    assert_eq!(st["datasource"], "none", "{st}");
    assert_eq!(st["instance_id"], "iid-datasource-none", "{st}");
    for stage in ["detect", "fetch", "local"] {
        assert_eq!(st["stages"][stage]["state"], "done", "{stage}: {st}");
        assert_eq!(
            st["stages"][stage]["errors"],
            serde_json::json!([]),
            "{stage}"
        );
    }
    let used = m
        .diag_with_code("no-datasource")
        .expect("the fallback is said");
    assert!(used["message"].as_str().unwrap().contains("None"), "{used}");
    let passwd = m.target_file("etc/passwd");
    assert!(passwd.contains("imageuser:x:"), "{passwd}");
    let net = networkd(m);
    assert!(
        net.contains(MAC) || net.contains("ens3"),
        "fallback network: {net}"
    );
    assert!(net.contains("DHCP="), "{net}");
    let v1 = &m.json("cloud-init/instance-data.json")["v1"];
    assert_eq!(v1["cloud_name"], "none", "{v1}");
    assert_eq!(v1["cloud_id"], "none", "{v1}");
    assert_eq!(v1["platform"], "none", "{v1}");
    assert_eq!(v1["subplatform"], "config", "{v1}");
    assert_eq!(v1["instance_id"], "iid-datasource-none", "{v1}");
    assert_eq!(v1["local_hostname"], "debian-image", "{v1}");
    let line = std::fs::read_to_string(
        m.target
            .join("var/lib/cloud/instances/iid-datasource-none/datasource"),
    );
    assert!(line.unwrap().starts_with("DataSourceNone"));
}

#[test]
fn datasource_list_none_provisions_from_the_image_config() {
    let m = image("none-only", "datasource_list: [ None ]\n");
    m.cmdline("ro");
    let out = m.initrd("all");
    assert_provisioned_by_none(&m, &out);
    let ev = m.status()["evidence"].to_string();
    assert!(ev.contains("datasource_list: [None]"), "{ev}");
}

#[test]
fn none_last_stands_in_when_the_listed_cloud_is_absent() {
    // Ec2 named alone before None is tried without DMI evidence, as cloud-init does; its
    // service does not answer.
    let port = common::faults::closed_port();
    let m = image("none-fallback", "datasource_list: [Ec2, None]\n");
    m.cmdline(&format!("ro ember.metadata-url=http://127.0.0.1:{port}"));
    let out = m.initrd("all");
    assert_provisioned_by_none(&m, &out);
    let why = m
        .diag_with_code("metadata-unreachable")
        .expect("Ec2's failure is said");
    assert_eq!(why["severity"], "warning", "{why}");

    // Nothing detected among several clouds, None last: None.
    let m = image(
        "none-nothing",
        "datasource_list: [NoCloud, ConfigDrive, None]\n",
    );
    m.cmdline("ro");
    let out = m.initrd("all");
    assert_provisioned_by_none(&m, &out);
}

#[test]
fn none_standing_in_keeps_a_cached_instance() {
    // A NoCloud instance, then a boot where its seed is gone: None stands in, the cached
    // instance is kept (no new instance, no second first boot).
    let m = image("none-cached", "datasource_list: [NoCloud, None]\n");
    let seed = "var/lib/cloud/seed/nocloud";
    let md = "instance-id: iid-first\nlocal-hostname: first\n";
    m.seed_files(
        &m.target,
        seed,
        &[("meta-data", md), ("user-data", "#cloud-config\n")],
    );
    m.cmdline("ro");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "iid-first");
    std::fs::remove_dir_all(m.target.join(seed)).unwrap();
    // A new boot: /run is a fresh tmpfs.
    std::fs::remove_dir_all(&m.run).unwrap();
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["instance_id"], "iid-first", "{st}");
    assert_eq!(st["first_boot"], false, "{st}");
    assert!(
        m.diag_with_code("cached-instance").is_some(),
        "{:?}",
        m.diags()
    );
}

#[test]
fn none_is_not_chosen_unless_listed() {
    let m = image("none-unlisted", "");
    m.cmdline("ro");
    m.initrd("all");
    assert!(
        m.status().get("instance_id").is_none_or(|i| i.is_null()),
        "{}",
        m.status()
    );
    assert!(!m.target.join("home/imageuser").exists());
}

#[test]
fn none_standing_in_never_makes_a_new_instance_on_a_later_boot() {
    // A machine that had an instance whose cache is gone; its cloud does not answer on this
    // boot. None standing in would be a new instance (new host keys, users): no news instead,
    // and the missing cache is the error (RELIABILITY rule 10).
    let port = common::faults::closed_port();
    let m = image("none-no-cache", "datasource_list: [Ec2, None]\n");
    m.write(&m.target, "var/lib/cloud/data/instance-id", b"i-earlier\n");
    m.cmdline(&format!("ro ember.metadata-url=http://127.0.0.1:{port}"));
    let out = m.initrd("all");
    let st = m.status();
    assert!(
        st.get("instance_id").is_none_or(|i| i.is_null()),
        "{st}\n{}",
        stderr(&out)
    );
    let missing = m
        .diag_with_code("cache-missing")
        .expect("the missing cache is said");
    assert_eq!(missing["severity"], "error", "{missing}");
    assert!(!m.target.join("home/imageuser").exists());
    assert!(!m
        .target
        .join("var/lib/cloud/instances/iid-datasource-none")
        .exists());
}
