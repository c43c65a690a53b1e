//! The subscription modules (`ubuntu_pro`, `landscape`, `rh_subscription`, `spacewalk`,
//! `ubuntu_autoinstall`) against a busybox target with the distribution's os-release: fake
//! `pro`, `landscape-config`, `subscription-manager`, `rhnreg_ks`, `snap` and package managers
//! record how they were called, and every test checks that no secret reached a command line
//! (tools.log), the output log, ember's output, status.json or a world-readable file.
//!
//! The Python tools are `#!/usr/bin/python3` scripts whose interpreter is a fake: given
//! `-c SCRIPT FILE TOOL` it reads the arguments from FILE as ember's hand-over script does and
//! runs the tool with them marked in-process (`IN_PROCESS=1`), which then records into
//! /delivered.log (0600) instead: that file stands for the tool's memory.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicU32, Ordering};

const APPLETS: &[&str] = &[
    "sh", "echo", "cat", "rm", "[", "test", "printf", "cp", "chmod", "stat", "mkdir", "true",
];
const PYTHON: &str = "#!/bin/sh\n\
if [ \"$1\" = -c ]; then\n\
  echo \"python3 $*\" >> /tools.log\n\
  f=$3; t=$4; set --\n\
  while IFS= read -r a; do set -- \"$@\" \"$a\"; done < \"$f\"\n\
  rm -f \"$f\"; umask 077\n\
  IN_PROCESS=1 exec /bin/sh \"$t\" \"$@\"\n\
fi\n\
exec /bin/sh \"$@\"\n";
const HAND_OVER: &str = "python3 -c import os,runpy,sys;";

/// A target of `os_release` with the fake Python interpreter.
fn machine(name: &str, os_release: &str) -> Machine {
    let m = Machine::new(name, APPLETS);
    std::fs::create_dir_all(m.target.join("run")).unwrap();
    m.write("/etc/os-release", os_release, 0o644);
    m.write("/usr/bin/python3", PYTHON, 0o755);
    m
}

/// A Python tool at `path` that records its arguments (in /delivered.log when handed them
/// in-process), then runs `body`.
fn python_tool(m: &Machine, path: &str, body: &str) {
    m.write(
        path,
        &tool_text(path.rsplit('/').next().unwrap(), body),
        0o755,
    );
}

/// The text of a Python tool recording itself as `name`.
fn tool_text(name: &str, body: &str) -> String {
    format!(
        "#!/usr/bin/python3\nlog=/tools.log; [ -n \"$IN_PROCESS\" ] && log=/delivered.log\n\
         echo \"{name} $*\" >> $log\n{body}\n"
    )
}

/// One boot running the module `name` (each call a new boot, the module run `always`, so a
/// test can run it again on the same machine).
fn run(m: &Machine, name: &str, stage: &str, config: Value) -> Output {
    static BOOT: AtomicU32 = AtomicU32::new(0);
    let call = json!({"name": name, "stage": stage, "frequency": "always", "config": config});
    m.boot_modules(json!([call]));
    let boot = format!("boot-{}", BOOT.fetch_add(1, Ordering::SeqCst));
    m.ember(&boot, &["modules", "--mode", stage])
}

fn d(sev: &str, code: &str, key: &str) -> (String, String, String) {
    (sev.into(), code.into(), key.into())
}

/// No secret on a command line, in the output log, ember's output, status.json or any
/// world-readable file of the target; the private directory 0700 and empty.
fn assert_kept_secret(m: &Machine, out: &Output, secrets: &[&str]) {
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    let places = [
        ("tools.log", m.read("/tools.log")),
        ("output log", m.read("/var/log/cloud-init-output.log")),
        ("ember's output", text(out)),
        ("status.json", status),
    ];
    for (what, content) in &places {
        for s in secrets {
            assert!(!content.contains(s), "{s} in {what}:\n{content}");
        }
    }
    fn walk(dir: &Path, secrets: &[&str]) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                walk(&p, secrets);
            } else if meta.is_file() && meta.permissions().mode() & 0o004 != 0 {
                let data = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                for s in secrets {
                    assert!(!data.contains(s), "{s} in world-readable {}", p.display());
                }
            }
        }
    }
    walk(&m.target, secrets);
    if m.exists("/run/ember-private") {
        assert_eq!(m.mode("/run/ember-private"), 0o700);
        let left: Vec<_> = std::fs::read_dir(m.target.join("run/ember-private"))
            .unwrap()
            .collect();
        assert!(left.is_empty(), "files left: {left:?}");
    }
}

const PRO: &str = "case \"$1 $2\" in\n\
  \"api u.pro.attach.auto.should_auto_attach.v1\") cat /pro-should.json;;\n\
  \"api u.pro.attach.auto.full_auto_attach.v1\") cat /pro-auto.json; [ ! -e /pro-auto.fail ];;\n\
  attach*) for a; do case \"$a\" in /run/*) umask 077; stat -c %a \"$a\" >> /delivered.log; cat \"$a\" >> /delivered.log;; esac; done;;\n\
  enable*) cat /pro-enable.json;;\n\
esac";
const NOT_PRO: &str =
    r#"{"result": "success", "data": {"attributes": {"should_auto_attach": false}}}"#;
const TOKEN: &str = "C0ntractT0ken-d0-not-leak";

#[test]
fn pro_attaches_with_the_token_in_a_private_file() {
    if cannot_chroot() {
        return;
    }
    let m = machine("pro", "ID=ubuntu\nID_LIKE=debian\n");
    python_tool(&m, "/usr/bin/pro", PRO);
    m.write("/pro-should.json", NOT_PRO, 0o644);
    m.write("/pro-enable.json", r#"{"errors": []}"#, 0o644);
    let cfg = json!({"ubuntu_pro": {"token": TOKEN, "enable": ["esm-infra", "livepatch"],
        "config": {"http_proxy": "http://user:Pr0xyPassw0rd@proxy:3128", "https_proxy": null}}});
    let out = run(&m, "ubuntu_pro", "config", cfg);
    assert!(out.status.success(), "{}", text(&out));
    let log = m.lines("/tools.log");
    assert!(log[0].starts_with(HAND_OVER), "{log:?}");
    assert!(log[0].ends_with(" /run/ember-private/pro.args /usr/bin/pro"));
    assert_eq!(
        log[1..],
        [
            "pro config unset https_proxy",
            "pro api u.pro.attach.auto.should_auto_attach.v1",
            "pro attach --no-auto-enable --attach-config /run/ember-private/pro-attach.yaml",
            "pro enable --assume-yes --format json esm-infra livepatch",
        ]
    );
    // What the tools got: the proxy in-process, the token in a 0600 attach config.
    assert_eq!(
        m.lines("/delivered.log"),
        [
            "pro config set http_proxy=http://user:Pr0xyPassw0rd@proxy:3128",
            "600",
            &format!("token: \"{TOKEN}\""),
        ]
    );
    assert_eq!(m.diags("config"), []);
    assert_kept_secret(&m, &out, &[TOKEN, "Pr0xyPassw0rd"]);
}

#[test]
fn pro_auto_attaches_on_a_pro_instance_and_installs_pro_first() {
    if cannot_chroot() {
        return;
    }
    let m = machine("proauto", "ID=ubuntu\nID_LIKE=debian\n");
    m.write("/pro.pkg", &tool_text("pro", PRO), 0o755);
    m.fake(
        "/usr/bin/apt-get",
        "[ \"$5\" != install ] || { cp /pro.pkg /usr/bin/pro; chmod 755 /usr/bin/pro; }",
    );
    let yes = r#"{"result": "success", "data": {"attributes": {"should_auto_attach": true}}}"#;
    m.write("/pro-should.json", yes, 0o644);
    m.write(
        "/pro-auto.json",
        r#"{"result": "success", "errors": []}"#,
        0o644,
    );
    let cfg = json!({"ubuntu_advantage": {"token": TOKEN, "enable": ["fips"]}});
    let out = run(&m, "ubuntu_pro", "config", cfg);
    assert!(out.status.success(), "{}", text(&out));
    let apt = "apt-get --option=Dpkg::Options::=--force-confold \
               --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";
    assert_eq!(
        m.lines("/tools.log"),
        [
            format!("{apt} update"),
            format!("{apt} install ubuntu-advantage-tools"),
            "pro api u.pro.attach.auto.should_auto_attach.v1".into(),
            r#"pro api u.pro.attach.auto.full_auto_attach.v1 --data {"enable":["fips"]}"#.into(),
        ]
    );
    assert_eq!(
        m.diags("config"),
        [d("deprecated", "deprecated", "ubuntu_advantage")]
    );
    assert_kept_secret(&m, &out, &[TOKEN]);

    // Already attached: services asked for are a warning; disable_auto_attach skips the
    // question and attaches with the token.
    let already =
        r#"{"result": "failure", "errors": [{"code": "already-attached", "title": "x"}]}"#;
    m.write("/pro-auto.json", already, 0o644);
    m.write("/pro-auto.fail", "", 0o644);
    let out = run(
        &m,
        "ubuntu_pro",
        "config",
        json!({"ubuntu_pro": {"enable": []}}),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.diags("config"),
        [d("warning", "command-failed", "ubuntu_pro")]
    );
    std::fs::remove_file(m.target.join("tools.log")).unwrap();
    let cfg = json!({"ubuntu_pro": {"features": {"disable_auto_attach": true}}});
    let out = run(&m, "ubuntu_pro", "config", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!m.exists("/tools.log"), "only features: nothing to run");
}

#[test]
fn pro_failures_are_errors_that_quote_nothing() {
    if cannot_chroot() {
        return;
    }
    let m = machine("profail", "ID=ubuntu\n");
    python_tool(&m, "/usr/bin/pro", PRO);
    m.write("/pro-should.json", "not json", 0o644);
    let failed = r#"{"errors": [{"message_code": "service-already-enabled", "service": "esm-infra", "message": "on"},
        {"message_code": "x", "service": "fips", "type": "service", "message": "no"}]}"#;
    m.write("/pro-enable.json", failed, 0o644);
    let cfg = json!({"ubuntu_pro": {"token": TOKEN, "enable": ["esm-infra", "fips"]}});
    let out = run(&m, "ubuntu_pro", "config", cfg);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        m.diags("config"),
        [
            d("error", "command-failed", "ubuntu_pro.enable"),
            d("warning", "command-failed", "ubuntu_pro"),
        ]
    );
    let st = m.status().to_string();
    assert!(st.contains("service(s): fips"), "{st}");
    assert_kept_secret(&m, &out, &[TOKEN]);
    // No token on a machine Pro does not auto-attach; a bad proxy stops before anything runs.
    m.write("/pro-should.json", NOT_PRO, 0o644);
    for (cfg, want) in [
        (
            json!({"ubuntu_pro": {"enable": ["fips"]}}),
            d("error", "missing-key", "ubuntu_pro.token"),
        ),
        (
            json!({"ubuntu_pro": {"token": TOKEN, "config": {"http_proxy": "ftp://x"}}}),
            d("error", "bad-value", "ubuntu_pro.config.http_proxy"),
        ),
    ] {
        let _ = std::fs::remove_file(m.target.join("tools.log"));
        let out = run(&m, "ubuntu_pro", "config", cfg);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert_eq!(m.diags("config"), [want]);
        assert_kept_secret(&m, &out, &[TOKEN]);
    }
    assert!(!m.exists("/tools.log"), "the bad proxy ran nothing");
}

const REG_KEY: &str = "Reg1strati0nKey";

#[test]
fn landscape_registers_with_secrets_imported() {
    if cannot_chroot() {
        return;
    }
    let m = machine("landscape", "ID=ubuntu\nID_LIKE=debian\n");
    m.fake("/usr/bin/apt-get", "");
    let body = "for a; do [ \"$a\" = --is-registered ] && exit 5; case \"$a\" in /run/*) \
                umask 077; stat -c %a \"$a\" >> /delivered.log; cat \"$a\" >> /delivered.log;; esac; done";
    m.fake("/usr/bin/landscape-config", body);
    m.write(
        "/etc/landscape/client.conf",
        "[client]\nurl = https://ls.example.com/message-system\n",
        0o600,
    );
    let cfg = json!({"landscape": {"client": {"computer_title": "kiosk1", "account_name": "acct",
        "registration_key": REG_KEY, "tags": "web,prod", "https_proxy": "https://u:PxPw@p:3128"}}});
    let out = run(&m, "landscape", "final", cfg);
    assert!(out.status.success(), "{}", text(&out));
    let log = m.lines("/tools.log");
    assert!(log[1].ends_with("install landscape-client"), "{log:?}");
    assert_eq!(
        log[2..],
        [
            "landscape-config --silent --is-registered",
            "landscape-config --silent --account-name acct --computer-title kiosk1 \
             --data-path /var/lib/landscape/client --log-level info \
             --ping-url http://landscape.canonical.com/ping --tags web,prod \
             --import /run/ember-private/landscape-import.conf",
        ]
    );
    assert_eq!(
        m.read("/delivered.log"),
        format!(
            "600\n[client]\nhttps_proxy = https://u:PxPw@p:3128\nregistration_key = {REG_KEY}\n"
        )
    );
    assert_eq!(m.diags("final"), []);
    assert_kept_secret(&m, &out, &[REG_KEY, "PxPw"]);

    // Already registered: a warning, and no registration.
    m.fake("/usr/bin/landscape-config", "");
    std::fs::remove_file(m.target.join("tools.log")).unwrap();
    let cfg = json!({"landscape": {"client": {"computer_title": "k", "account_name": "a"}}});
    let out = run(&m, "landscape", "final", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log")[2..],
        ["landscape-config --silent --is-registered"]
    );
    assert_eq!(
        m.diags("final"),
        [d("warning", "command-failed", "landscape")]
    );
}

const SM: &str = "case \"$*\" in\n\
  identity) exit 1;;\n\
  register*) echo 'The system has been registered with ID: 1234';;\n\
  'list --available --pool-only') printf 'p1\\np2\\n';;\n\
  'list --consumed --pool-only') echo p2;;\n\
  'repos --list-enabled') echo 'Repo ID:   r-on';;\n\
  'repos --list-disabled') printf 'Repo ID: r-off\\nRepo ID: r-other\\n';;\n\
esac";
const AKEY: &str = "Act1vati0nKey";

#[test]
fn rh_subscription_registers_without_the_key_on_a_command_line() {
    if cannot_chroot() {
        return;
    }
    let m = machine("rhsm", "ID=\"rhel\"\nID_LIKE=\"fedora\"\n");
    python_tool(&m, "/usr/sbin/subscription-manager", SM);
    m.write("/var/cache/dnf/repo.solv", "x", 0o644);
    let cfg = json!({"rh_subscription": {"activation_key": AKEY, "org": 12345,
        "auto_attach": true, "service_level": "self-support", "add_pool": ["p1", "p2", "p9"],
        "enable-repo": ["r-off", "r-gone"], "disable_repo": ["r-on"],
        "rhsm_baseurl": "https://cdn.example.com", "server_hostname": "rhsm.example.com",
        "release_version": "9.2"}});
    let out = run(&m, "rh_subscription", "config", cfg);
    assert!(out.status.success(), "{}", text(&out));
    let log = m.lines("/tools.log");
    assert_eq!(log[0], "subscription-manager identity");
    assert!(log[1].starts_with(HAND_OVER), "{log:?}");
    assert!(log[1]
        .ends_with(" /run/ember-private/subscription-manager.args /usr/sbin/subscription-manager"));
    assert_eq!(
        log[2..],
        [
            "subscription-manager attach --auto --servicelevel=self-support",
            "subscription-manager list --available --pool-only",
            "subscription-manager list --consumed --pool-only",
            "subscription-manager attach --pool=p1",
            "subscription-manager repos --list-enabled",
            "subscription-manager repos --list-disabled",
            "subscription-manager repos --disable=r-on --enable=r-off",
            "subscription-manager release --set=9.2",
        ]
    );
    assert_eq!(
        m.lines("/delivered.log"),
        [format!(
            "subscription-manager register --activationkey={AKEY} --org=12345 \
             --baseurl=https://cdn.example.com --serverurl=rhsm.example.com"
        )]
    );
    assert!(
        !m.exists("/var/cache/dnf"),
        "the release set clears dnf's cache"
    );
    assert_eq!(
        m.diags("config"),
        [
            d("deprecated", "deprecated", "rh_subscription.org"),
            d("deprecated", "deprecated", "rh_subscription.enable-repo"),
        ]
    );
    assert_kept_secret(&m, &out, &[AKEY]);

    // Registered already: only the identity check.
    python_tool(&m, "/usr/sbin/subscription-manager", "");
    std::fs::remove_file(m.target.join("tools.log")).unwrap();
    let cfg = json!({"rh_subscription": {"username": "joe", "password": "Passw0rdX"}});
    let out = run(&m, "rh_subscription", "config", cfg.clone());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/tools.log"), ["subscription-manager identity"]);

    // Not a Python script: the password is not put on its command line; a warning, as
    // cloud-init's failures are.
    let m = machine("rhsmsh", "ID=fedora\n");
    m.fake("/usr/sbin/subscription-manager", "exit 1");
    let out = run(&m, "rh_subscription", "config", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/tools.log"), ["subscription-manager identity"]);
    assert_eq!(
        m.diags("config"),
        [d("warning", "secret-refused", "rh_subscription.username")]
    );
    assert_kept_secret(&m, &out, &["Passw0rdX"]);
}

#[test]
fn spacewalk_registers_once_with_rhnreg_ks() {
    if cannot_chroot() {
        return;
    }
    let m = machine("spacewalk", "ID=\"rhel\"\n");
    m.fake("/usr/bin/dnf", "");
    m.fake("/usr/sbin/rhn-profile-sync", "exit 1");
    python_tool(&m, "/usr/sbin/rhnreg_ks", "");
    m.write("/etc/hostname", "web1.example.com\n", 0o644);
    let cfg = json!({"spacewalk": {"server": "sw.example.com", "proxy": "proxy.example.com:8080",
        "activation_key": AKEY}});
    let out = run(&m, "spacewalk", "config", cfg.clone());
    assert!(out.status.success(), "{}", text(&out));
    let log = m.lines("/tools.log");
    assert_eq!(
        log[..2],
        ["dnf -y install rhn-setup", "rhn-profile-sync --verbose"]
    );
    assert!(log[2].starts_with(HAND_OVER) && log[2].ends_with(" /usr/sbin/rhnreg_ks"));
    assert_eq!(
        m.lines("/delivered.log"),
        [format!(
            "rhnreg_ks --serverUrl https://sw.example.com/XMLRPC --profilename web1.example.com \
             --proxy proxy.example.com:8080 --sslCACert /usr/share/rhn/RHN-ORG-TRUSTED-SSL-CERT \
             --activationkey {AKEY}"
        )]
    );
    assert_eq!(m.diags("config"), []);
    assert_kept_secret(&m, &out, &[AKEY]);
    // Registered (rhn-profile-sync succeeds): rhnreg_ks is not run again.
    m.fake("/usr/sbin/rhn-profile-sync", "");
    std::fs::remove_file(m.target.join("tools.log")).unwrap();
    let out = run(&m, "spacewalk", "config", cfg);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        ["dnf -y install rhn-setup", "rhn-profile-sync --verbose"]
    );
}

#[test]
fn autoinstall_is_checked_never_run() {
    if cannot_chroot() {
        return;
    }
    let m = machine("autoinstall", "ID=ubuntu\n");
    m.fake("/usr/bin/snap", "[ \"$1\" != list ] || cat /snaps");
    let listing = "Name  Version  Rev  Tracking  Publisher  Notes\ncore22  2024  1  latest/stable  canonical  base\n";
    let cases = [
        // No installer snap: a warning, even for a config the installer would refuse.
        (
            listing.to_string(),
            json!({"autoinstall": {}}),
            vec![d("warning", "tool-missing", "autoinstall")],
        ),
        (
            format!("{listing}subiquity  24.04  5  latest/stable  canonical  classic\n"),
            json!({"autoinstall": {"storage": {}}}),
            vec![d("error", "missing-key", "autoinstall")],
        ),
        (
            format!("{listing}ubuntu-desktop-installer  1  2  latest/stable  canonical  classic\n"),
            json!({"autoinstall": {"version": 1, "network": {"version": 2}}}),
            vec![],
        ),
    ];
    for (snaps, cfg, want) in cases {
        m.write("/snaps", &snaps, 0o644);
        let _ = std::fs::remove_file(m.target.join("tools.log"));
        let out = run(&m, "ubuntu_autoinstall", "config", cfg);
        assert_eq!(
            out.status.success(),
            want.iter().all(|w| w.0 != "error"),
            "{}",
            text(&out)
        );
        assert_eq!(m.diags("config"), want);
        assert_eq!(
            m.lines("/tools.log"),
            ["snap wait system seed.loaded", "snap list"]
        );
    }
    // Not Ubuntu: skipped, as cloud-init skips a module not verified on the distribution.
    let m = machine("autoinstallfedora", "ID=fedora\n");
    let out = run(
        &m,
        "ubuntu_autoinstall",
        "config",
        json!({"autoinstall": {"version": 1}}),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(m
        .status()
        .to_string()
        .contains("not verified on distro fedora"));
}

#[test]
fn a_list_naming_ubuntu_advantage_runs_ubuntu_pro() {
    let cfg = json!({"cloud_config_modules": ["ubuntu-advantage", "runcmd"]});
    let mut diags = Vec::new();
    let planned = ember::plan::modules(&cfg, &mut diags);
    let names: Vec<&str> = planned.iter().map(|p| p.spec.name).collect();
    assert!(names.contains(&"ubuntu_pro"), "{names:?}");
    let got: Vec<_> = diags
        .iter()
        .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(got, [("deprecated", "cloud_config_modules.0")]);
}
