//! set_hostname, update_hostname and update_etc_hosts through the real `ember-initrd all`
//! against a temp target root: exact /etc/hostname, /etc/hosts and cloud-init state files.

use crate::common;
use common::{stderr, Machine};

const SEED_DIR: &str = "var/lib/cloud/seed/nocloud";

/// A machine with a NoCloud seed, booted once as boot `b1`.
fn boot(name: &str, meta: &str, user: &str, setup: impl Fn(&Machine)) -> Machine {
    let m = Machine::new(name);
    let meta = format!("instance-id: i-1\n{meta}");
    m.seed_files(
        &m.target,
        SEED_DIR,
        &[("meta-data", &meta), ("user-data", user)],
    );
    setup(&m);
    run(&m, "b1");
    m
}

/// One boot with the given boot id (per-boot modules run again on a new one).
fn run(m: &Machine, boot_id: &str) -> std::process::Output {
    let _ = std::fs::remove_dir_all(&m.run);
    m.write(
        &m.host,
        "proc/sys/kernel/random/boot_id",
        format!("{boot_id}\n").as_bytes(),
    );
    m.initrd("all")
}

fn ok(m: &Machine) {
    let errors: Vec<_> = m
        .diags()
        .into_iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// The local stage's result for one module: `ok`, `error` or `skipped (...)`.
fn step_result(m: &Machine, module: &str) -> String {
    let status = m.status();
    let steps = status["stages"]["local"]["steps"].as_array().unwrap();
    let name = format!("module {module}");
    let step = steps.iter().find(|s| s["name"] == name.as_str());
    step.unwrap_or_else(|| panic!("no step {name}"))["result"]
        .as_str()
        .unwrap()
        .to_string()
}

fn etc_hostname(m: &Machine) -> String {
    let path = m.target.join("etc/hostname");
    assert_eq!(Machine::mode(&path), 0o644);
    m.target_file("etc/hostname")
}

#[test]
fn hostname_from_user_data() {
    let m = boot(
        "hn-user",
        "local-hostname: md\n",
        "#cloud-config\nhostname: web\n",
        |_| {},
    );
    ok(&m);
    assert_eq!(etc_hostname(&m), "web\n");
    assert_eq!(
        m.target_file("var/lib/cloud/data/set-hostname"),
        "{\n \"fqdn\": \"md\",\n \"hostname\": \"web\"\n}\n"
    );
    assert_eq!(
        m.target_file("var/lib/cloud/data/previous-hostname"),
        "web\n"
    );
    // manage_etc_hosts absent: /etc/hosts untouched.
    assert!(!m.target.join("etc/hosts").exists());
}

#[test]
fn hostname_from_meta_data_only() {
    let m = boot(
        "hn-meta",
        "local-hostname: node1.example.net\n",
        "#cloud-config\n{}\n",
        |m| m.write(&m.target, "etc/hostname", b"image\n"),
    );
    ok(&m);
    assert_eq!(etc_hostname(&m), "node1\n");
    assert_eq!(
        m.target_file("var/lib/cloud/data/set-hostname"),
        "{\n \"fqdn\": \"node1.example.net\",\n \"hostname\": \"node1\"\n}\n"
    );
}

#[test]
fn fqdn_preferred_when_asked() {
    let m = boot(
        "hn-fqdn",
        "local-hostname: md\n",
        "#cloud-config\nfqdn: db.example.com\nprefer_fqdn_over_hostname: true\n\
         manage_etc_hosts: localhost\n",
        |_| {},
    );
    ok(&m);
    assert_eq!(etc_hostname(&m), "db.example.com\n");
    assert_eq!(
        m.target_file("var/lib/cloud/data/previous-hostname"),
        "db.example.com\n"
    );
    assert_eq!(
        m.target_file("etc/hosts"),
        "# Added by ember (manage_etc_hosts: localhost)\n127.0.1.1\tdb.example.com\tdb\n"
    );
}

#[test]
fn preserve_hostname_leaves_it() {
    let m = boot(
        "hn-preserve",
        "local-hostname: md\n",
        "#cloud-config\nhostname: web\npreserve_hostname: true\n",
        |m| m.write(&m.target, "etc/hostname", b"image\n"),
    );
    ok(&m);
    assert_eq!(m.target_file("etc/hostname"), "image\n");
    assert!(!m.target.join("var/lib/cloud/data/set-hostname").exists());
    assert!(!m
        .target
        .join("var/lib/cloud/data/previous-hostname")
        .exists());
}

#[test]
fn user_change_survives_later_boots() {
    let m = boot(
        "hn-user-change",
        "local-hostname: md\n",
        "#cloud-config\n{}\n",
        |_| {},
    );
    assert_eq!(etc_hostname(&m), "md\n");
    m.write(&m.target, "etc/hostname", b"mine\n");
    run(&m, "b2");
    ok(&m);
    assert_eq!(m.target_file("etc/hostname"), "mine\n");
    // Removed by the user: update_hostname writes it again.
    std::fs::remove_file(m.target.join("etc/hostname")).unwrap();
    run(&m, "b3");
    assert_eq!(etc_hostname(&m), "md\n");
}

const DEBIAN_DEFAULT: &str = "\
# Written by ember on every boot because manage_etc_hosts is true: edit
# /etc/cloud/templates/hosts.debian.tmpl, or set manage_etc_hosts to false, to keep changes.
127.0.1.1 web.example.com web
127.0.0.1 localhost

# IPv6
::1 localhost ip6-localhost ip6-loopback
ff02::1 ip6-allnodes
ff02::2 ip6-allrouters
";

#[test]
fn manage_etc_hosts_builtin_default() {
    let m = boot(
        "hn-hosts-default",
        "local-hostname: md\n",
        "#cloud-config\nhostname: web.example.com\nmanage_etc_hosts: true\n",
        |m| m.write(&m.target, "etc/hosts", b"10.0.0.9 stale\n"),
    );
    ok(&m);
    assert_eq!(m.target_file("etc/hosts"), DEBIAN_DEFAULT);
    assert_eq!(Machine::mode(&m.target.join("etc/hosts")), 0o644);
    assert_eq!(etc_hostname(&m), "web\n");
}

#[test]
fn manage_etc_hosts_target_template() {
    let tmpl = "## template:jinja\n{#\nOnly used with manage_etc_hosts.\n-#}\n\
                # from the image's template\n127.0.1.1 {{fqdn}} {{hostname}}\n\
                127.0.0.1 localhost\n";
    let m = boot(
        "hn-hosts-tmpl",
        "local-hostname: node1.example.net\n",
        "#cloud-config\nmanage_etc_hosts: template\n",
        |m| {
            m.write(
                &m.target,
                "etc/cloud/templates/hosts.debian.tmpl",
                tmpl.as_bytes(),
            )
        },
    );
    ok(&m);
    assert_eq!(
        m.target_file("etc/hosts"),
        "# from the image's template\n127.0.1.1 node1.example.net node1\n127.0.0.1 localhost\n"
    );
    let d = m.diag_with_code("deprecated").expect("deprecated diag");
    assert_eq!(d["key"], "manage_etc_hosts");
}

#[test]
fn localhost_mode_keeps_other_lines() {
    let hosts = "127.0.0.1\tlocalhost\n127.0.1.1\timage.local image\n\n# pets\n10.1.2.3 nas\n";
    let m = boot(
        "hn-hosts-localhost",
        "local-hostname: web.example.com\n",
        "#cloud-config\nmanage_etc_hosts: localhost\n",
        |m| m.write(&m.target, "etc/hosts", hosts.as_bytes()),
    );
    ok(&m);
    assert_eq!(
        m.target_file("etc/hosts"),
        "127.0.0.1\tlocalhost\n127.0.1.1\tweb.example.com\tweb\n\n# pets\n10.1.2.3 nas\n"
    );
}

#[test]
fn second_run_is_a_no_op() {
    let m = boot(
        "hn-twice",
        "local-hostname: md\n",
        "#cloud-config\nfqdn: web.example.com\nmanage_etc_hosts: true\n",
        |_| {},
    );
    ok(&m);
    let files = [
        "etc/hostname",
        "etc/hosts",
        "var/lib/cloud/data/set-hostname",
        "var/lib/cloud/data/previous-hostname",
    ];
    let before: Vec<String> = files.iter().map(|f| m.target_file(f)).collect();
    assert_eq!(before[0], "web\n");
    assert_eq!(before[1], DEBIAN_DEFAULT);
    // The same boot again (every module skipped), then a new boot (the per-boot ones run).
    for boot_id in ["b1", "b2"] {
        let out = run(&m, boot_id);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        ok(&m);
        let after: Vec<String> = files.iter().map(|f| m.target_file(f)).collect();
        assert_eq!(after, before, "boot {boot_id}");
        let ran = |module: &str| step_result(&m, module) == "ok";
        assert!(!ran("set_hostname"), "boot {boot_id}");
        assert_eq!(ran("update_hostname"), boot_id == "b2");
        assert_eq!(ran("update_etc_hosts"), boot_id == "b2");
    }
}

#[test]
fn invalid_hostname_is_an_error_and_not_written() {
    let m = boot(
        "hn-invalid",
        "local-hostname: md\n",
        "#cloud-config\nhostname: bad_name!\nmanage_etc_hosts: true\n",
        |m| m.write(&m.target, "etc/hostname", b"image\n"),
    );
    let d = m
        .diag_with_code("hostname-invalid")
        .expect("hostname-invalid diag");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["key"], "hostname");
    assert!(!d.to_string().contains("bad_name"), "{d}");
    assert_eq!(m.target_file("etc/hostname"), "image\n");
    assert!(!m.target.join("etc/hosts").exists());
    assert!(!m.target.join("var/lib/cloud/data/set-hostname").exists());

    let m = boot(
        "hn-invalid-md",
        "local-hostname: -md-\n",
        "#cloud-config\n{}\n",
        |_| {},
    );
    let d = m
        .diag_with_code("hostname-invalid")
        .expect("hostname-invalid diag");
    assert_eq!(d["key"], "meta-data local-hostname");
    assert!(!m.target.join("etc/hostname").exists());
}

#[test]
fn fedora_prefers_fqdn_and_uses_the_redhat_template() {
    let m = boot(
        "hn-fedora",
        "local-hostname: md\n",
        "#cloud-config\nfqdn: web.example.com\nmanage_etc_hosts: true\n",
        |m| {
            m.write(&m.target, "etc/os-release", b"ID=fedora\nVERSION_ID=40\n");
            // An old-style template without a header: cloud-init's basic `$name` form.
            m.write(
                &m.target,
                "etc/cloud/templates/hosts.redhat.tmpl",
                b"127.0.0.1 ${fqdn} $hostname\n127.0.0.1 localhost\n",
            );
        },
    );
    ok(&m);
    assert_eq!(etc_hostname(&m), "web.example.com\n");
    assert_eq!(
        m.target_file("etc/hosts"),
        "127.0.0.1 web.example.com web\n127.0.0.1 localhost\n"
    );
}
