//! The runner's package, CA certificate and phone-home modules, and dist/cloud-init-per (NTP:
//! ntp.rs), against a target directory holding a static busybox: fake package managers, `curl`
//! and `update-ca-certificates` (small sh scripts in the target) record how they were called.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::process::{Command, Output};

const APPLETS: &[&str] = &[
    "sh", "echo", "cat", "printf", "tr", "id", "date", "mkdir", "mv", "true", "false", "test", "[",
    "env", "rm", "sleep",
];

/// The runner's machine with /sbin and /run too, and `os_release` as the target's.
fn machine(name: &str, os_release: &str) -> Machine {
    let m = Machine::new(name, APPLETS);
    for d in ["sbin", "run"] {
        std::fs::create_dir_all(m.target.join(d)).unwrap();
    }
    m.write("/etc/os-release", os_release, 0o644);
    m
}

fn module(name: &str, stage: &str, config: Value) -> Value {
    json!({"name": name, "stage": stage, "frequency": "once-per-instance", "config": config})
}

fn d(sev: &str, code: &str, key: &str) -> (String, String, String) {
    (sev.into(), code.into(), key.into())
}

const APT: &str = "apt-get --option=Dpkg::Options::=--force-confold \
                   --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";

#[test]
fn packages_through_apt_with_reboot() {
    if cannot_chroot() {
        return;
    }
    let m = machine("apt", "ID=debian\n");
    m.fake(
        "/usr/bin/apt-get",
        "echo \"frontend=$DEBIAN_FRONTEND\" >> /tools.log",
    );
    m.write(
        "/var/run/reboot-required",
        "*** System restart required ***\n",
        0o644,
    );
    let cfg = json!({"packages": ["vim", ["curl", "7.88.1-10"]], "package_upgrade": true,
                     "package_reboot_if_required": true});
    m.boot_modules(json!([module(
        "package_update_upgrade_install",
        "final",
        cfg
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    let fe = "frontend=noninteractive";
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{APT} update"),
            fe.into(),
            format!("{APT} dist-upgrade"),
            fe.into(),
            format!("{APT} install vim curl=7.88.1-10"),
            fe.into(),
        ]
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("power_state: would run: /sbin/reboot (not run: --target is not /)"),
        "{stdout}"
    );
    assert_eq!(m.diags("final"), []);
    // At most once per instance: a second final stage installs nothing.
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/tools.log").len(), 6);
}

#[test]
fn packages_through_dnf_and_apk() {
    if cannot_chroot() {
        return;
    }
    let cfg = json!({"packages": ["vim", ["jq", "1.6"]], "apt_update": true});
    let cases = [
        (
            "ID=fedora\n",
            "/usr/bin/dnf",
            ["dnf -y makecache", "dnf -y install vim jq-1.6"],
        ),
        (
            "ID=alpine\n",
            "/sbin/apk",
            ["apk update", "apk add vim jq=1.6"],
        ),
    ];
    for (os, tool, want) in cases {
        let m = machine("pm", os);
        m.fake(tool, "");
        m.boot_modules(json!([module(
            "package_update_upgrade_install",
            "final",
            cfg.clone()
        )]));
        let out = m.ember("boot-1", &["modules", "--mode", "final"]);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(m.lines("/tools.log"), want, "{tool}");
        // apt_update is cloud-init's old name for package_update.
        assert_eq!(
            m.diags("final"),
            [d("deprecated", "deprecated", "apt_update")]
        );
    }
}

#[test]
fn failed_install_is_an_error_naming_packages() {
    if cannot_chroot() {
        return;
    }
    let m = machine("aptfail", "ID=ubuntu\nID_LIKE=debian\n");
    m.fake("/usr/bin/apt-get", "[ \"$5\" != install ] || exit 100");
    m.boot_modules(json!([module(
        "package_update_upgrade_install",
        "final",
        json!({"packages": ["nonesuch", 7]})
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        m.diags("final"),
        [
            d("error", "wrong-type", "packages.1"),
            d("error", "package-command-failed", "packages")
        ]
    );
    assert_eq!(
        m.lines("/tools.log"),
        [format!("{APT} update"), format!("{APT} install nonesuch")]
    );
    // No package manager at all: an error too, and nothing run.
    let m = machine("nopm", "ID=debian\n");
    m.boot_modules(json!([module(
        "package_update_upgrade_install",
        "final",
        json!({"packages": ["vim"]})
    )]));
    m.ember("boot-1", &["modules", "--mode", "final"]);
    assert_eq!(
        m.diags("final"),
        [d("error", "package-manager-missing", "packages")]
    );
}

const CERT: &str = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";

#[test]
fn ca_certs_on_debian_and_rhel() {
    if cannot_chroot() {
        return;
    }
    let m = machine("cadeb", "ID=debian\n");
    m.fake("/usr/sbin/update-ca-certificates", "");
    m.fake(
        "/usr/bin/debconf-set-selections",
        "cat \"$1\" >> /tools.log",
    );
    m.write(
        "/etc/ca-certificates.conf",
        "# list\nmozilla/A.crt\n!mozilla/B.crt\n",
        0o644,
    );
    m.write(
        "/usr/local/share/ca-certificates/cloud-init-ca-cert-3.crt",
        "old",
        0o644,
    );
    let cfg = json!({"ca_certs": {"remove_defaults": true, "trusted": [CERT, "second"]}});
    m.boot_modules(json!([module("ca_certs", "init", cfg)]));
    let out = m.ember("boot-1", &["init"]);
    assert!(out.status.success(), "{}", text(&out));
    let dir = "/usr/local/share/ca-certificates";
    assert_eq!(m.read(&format!("{dir}/cloud-init-ca-cert-1.crt")), CERT);
    assert_eq!(m.read(&format!("{dir}/cloud-init-ca-cert-2.crt")), "second");
    assert!(
        !m.exists(&format!("{dir}/cloud-init-ca-cert-3.crt")),
        "a previous list's extra"
    );
    assert_eq!(
        m.read("/etc/ca-certificates.conf"),
        "# list\n# Modified by cloud-init to deselect certs due to user-data\n!mozilla/A.crt\n!mozilla/B.crt\n"
    );
    assert_eq!(
        m.lines("/tools.log"),
        [
            "debconf-set-selections /var/lib/ember/ca-certificates.debconf",
            "ca-certificates ca-certificates/trust_new_crts select no",
            "update-ca-certificates ",
        ]
    );
    assert_eq!(m.diags("config"), []);

    // RHEL, with the deprecated key: anchors, update-ca-trust, remove_defaults refused.
    let m = machine("carhel", "ID=\"rhel\"\n");
    m.fake("/usr/bin/update-ca-trust", "");
    let cfg = json!({"ca-certs": {"remove-defaults": true, "trusted": CERT}});
    m.boot_modules(json!([module("ca_certs", "init", cfg)]));
    let out = m.ember("boot-1", &["init"]);
    assert!(out.status.success(), "{}", text(&out));
    let anchor = "/etc/pki/ca-trust/source/anchors/cloud-init-ca-cert-1.crt";
    assert_eq!(m.read(anchor), CERT);
    assert_eq!(m.lines("/tools.log"), ["update-ca-trust "]);
    assert_eq!(
        m.diags("config"),
        [
            d("deprecated", "deprecated", "ca-certs"),
            d("deprecated", "deprecated", "ca-certs.remove-defaults"),
            d(
                "warning",
                "ca-certs-remove-unsupported",
                "ca-certs.remove_defaults"
            ),
        ]
    );
}

#[test]
fn phone_home_posts_the_form_with_curl() {
    if cannot_chroot() {
        return;
    }
    let m = machine("phone", "ID=debian\n");
    // Records each argument on a line, and the body the @file argument names.
    m.write(
        "/usr/bin/curl",
        "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\" >> /curl.args; case \"$a\" in @*) cat \"${a#@}\" > /curl.body;; esac; done\n",
        0o755,
    );
    m.write(
        "/etc/ssh/ssh_host_ed25519_key.pub",
        "ssh-ed25519 AAAAC3Nz root@h\n",
        0o644,
    );
    m.write(
        "/etc/ssh/ssh_host_ecdsa_key.pub",
        "ecdsa-sha2-nistp256 AAAAE2+/= root@h\n",
        0o644,
    );
    m.write("/etc/hostname", "web1\n", 0o644);
    let cfg = json!({"phone_home": {"url": "http://10.0.0.1:8000/$INSTANCE_ID/"}, "fqdn": "web1.example.com"});
    m.boot_modules(json!([module("phone_home", "final", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.read("/curl.body"),
        "pub_key_rsa=N%2FA&pub_key_ecdsa=ecdsa-sha2-nistp256+AAAAE2%2B%2F%3D+root%40h%0A\
         &pub_key_ed25519=ssh-ed25519+AAAAC3Nz+root%40h%0A&instance_id=i-1&hostname=web1\
         &fqdn=web1.example.com"
    );
    assert_eq!(
        m.lines("/curl.args"),
        [
            "-fsS",
            "--connect-timeout",
            "10",
            "--max-time",
            "30",
            "-o",
            "/dev/null",
            "-H",
            "Content-Type: application/x-www-form-urlencoded",
            "--data-binary",
            "@/var/lib/ember/phone-home.body",
            "http://10.0.0.1:8000/i-1/",
        ]
    );
    assert!(
        !m.exists("/var/lib/ember/phone-home.body"),
        "body removed after"
    );
    // No RSA key: N/A sent and a warning, as cloud-init.
    assert_eq!(
        m.diags("final"),
        [d(
            "warning",
            "phone-home-value-missing",
            "phone_home.post.0"
        )]
    );

    // A server that never answers: `tries` attempts, then a warning, never an error.
    let m = machine("phonefail", "ID=debian\n");
    m.fake("/usr/bin/curl", "exit 7");
    let cfg =
        json!({"phone_home": {"url": "http://10.0.0.1/", "post": ["instance_id"], "tries": 2}});
    m.boot_modules(json!([module("phone_home", "final", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/tools.log").len(), 2);
    assert_eq!(
        m.diags("final"),
        [d("warning", "phone-home-failed", "phone_home")]
    );
}

/// Runs dist/cloud-init-per chrooted into `m`'s target, as the target's own tool.
fn per(m: &Machine, args: &[&str]) -> Output {
    Command::new("chroot")
        .arg(&m.target)
        .args(["/bin/sh", "/usr/bin/cloud-init-per"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cloud_init_per_once_instance_always() {
    if cannot_chroot() {
        return;
    }
    let m = machine("per", "ID=debian\n");
    let script =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/dist/cloud-init-per"))
            .unwrap();
    m.write("/usr/bin/cloud-init-per", &script, 0o755);
    std::fs::create_dir_all(m.target.join("var/lib/cloud/instances/i-1")).unwrap();
    symlink(
        "/var/lib/cloud/instances/i-1",
        m.target.join("var/lib/cloud/instance"),
    )
    .unwrap();
    for _ in 0..2 {
        let out = per(
            &m,
            &["once", "my-once", "sh", "-c", "echo once >> /per.log"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        per(&m, &["always", "ev", "sh", "-c", "echo always >> /per.log"]);
        per(
            &m,
            &[
                "instance",
                "inst",
                "sh",
                "-c",
                "echo instance >> /per.log; exit 3",
            ],
        );
    }
    assert_eq!(
        m.lines("/per.log"),
        ["once", "always", "instance", "always"]
    );
    let sem = m.read("/var/lib/cloud/sem/bootper.my_once.once");
    assert!(sem.starts_with("0\t") && sem.ends_with('\n'), "{sem:?}");
    let inst = m.read("/var/lib/cloud/instances/i-1/sem/bootper.inst.instance");
    assert!(
        inst.starts_with("3\t"),
        "the command's status is kept: {inst:?}"
    );
    assert!(m.exists("/var/lib/cloud/sem/bootper.ev.always"));
    // The command's status is the tool's; a legacy dashed semaphore is adopted, not rerun.
    m.write("/var/lib/cloud/sem/bootper.old-name.once", "0\t1\n", 0o644);
    let out = per(
        &m,
        &["once", "old-name", "sh", "-c", "echo legacy >> /per.log"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(m.exists("/var/lib/cloud/sem/bootper.old_name.once"));
    assert_eq!(per(&m, &["always", "x", "false"]).status.code(), Some(1));
    assert_eq!(per(&m, &["weekly", "x", "true"]).status.code(), Some(1));
    assert_eq!(per(&m, &["once", "a/b", "true"]).status.code(), Some(1));
    assert!(!m.read("/per.log").contains("legacy"));
}

/// Issue 21 item 8: what cloud-init's modules warn about and go on is a warning, and the final
/// stage ends `degraded done` (exit 2): phone_home without a url ("Skipping module"),
/// power_state with a bad mode (one `try` that warns "Not performing power state change!"),
/// rh_subscription with a setting of a wrong type (checked in the `try` that warns "did not
/// complete successfully"), ssh_import_id with neither sudo nor doas (`LOG.error`, which
/// cloud-init's status counts as recoverable), final_message of another type (printed as its
/// Python text there).
#[test]
fn what_cloud_init_warns_about_is_a_warning_and_status_degraded() {
    if cannot_chroot() {
        return;
    }
    let m = machine("warned", "ID=rhel\nID_LIKE=fedora\n");
    m.write("/usr/bin/ssh-import-id", "#!/bin/sh\nexit 0\n", 0o755);
    m.write(
        "/usr/sbin/subscription-manager",
        "#!/bin/sh\nexit 1\n",
        0o755,
    );
    m.write(
        "/etc/passwd",
        "root:x:0:0:root:/root:/bin/sh\nu:x:1000:1000::/home/u:/bin/sh\n",
        0o644,
    );
    // Ubuntu's and Debian's module: run here as `unverified_modules` would.
    let mut import_id = module(
        "ssh_import_id",
        "final",
        json!({"users": [{"name": "u", "ssh_import_id": ["gh:u"]}]}),
    );
    import_id["unverified"] = json!(true);
    let final_stage = json!([
        module(
            "phone_home",
            "final",
            json!({"phone_home": {"post": "all"}})
        ),
        module(
            "power_state_change",
            "final",
            json!({"power_state": {"mode": "sideways"}})
        ),
        module(
            "rh_subscription",
            "final",
            json!({"rh_subscription": {"activation_key": "k", "org": "o", "add-pool": [["x"]]}})
        ),
        import_id,
        module(
            "final_message",
            "final",
            json!({"final_message": ["a", "list"]})
        ),
    ]);
    m.boot_modules(final_stage);
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mut said = m.diags("final");
    said.retain(|(_, code, _)| code != "deprecated");
    let errors: Vec<_> = said.iter().filter(|(s, _, _)| s == "error").collect();
    assert!(errors.is_empty(), "{said:?}");
    let keys: Vec<&str> = said.iter().map(|(_, _, k)| k.as_str()).collect();
    for key in [
        "phone_home.url",
        "power_state.mode",
        "rh_subscription.add-pool.0",
        "users.u.ssh_import_id",
        "final_message",
    ] {
        assert!(keys.contains(&key), "{key} in {said:?}");
    }
    assert!(!text(&out).contains("power_state: would run"));
    let status = m.ember("boot-1", &["status", "--long"]);
    let shown = String::from_utf8_lossy(&status.stdout);
    assert!(shown.contains("extended_status: degraded"), "{shown}");
    assert_eq!(status.status.code(), Some(2), "{shown}");
}
