//! The repository modules (yum_add_repo, zypper_add_repo, apk_configure) and ubuntu_drivers
//! against a target of their distribution holding a static busybox: the files they write are
//! compared whole; tools they run are recording fakes (append their argv to /tools.log).

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};

const APPLETS: &[&str] = &[
    "sh", "echo", "cat", "printf", "tr", "id", "date", "mkdir", "mv", "true", "false", "test", "[",
    "env", "rm", "sleep", "chmod",
];

/// A target with /sbin, /run and `os_release` as its /etc/os-release.
pub fn machine(name: &str, os_release: &str) -> Machine {
    let m = Machine::new(name, APPLETS);
    for d in ["sbin", "run"] {
        std::fs::create_dir_all(m.target.join(d)).unwrap();
    }
    m.write("/etc/os-release", os_release, 0o644);
    m
}

pub fn module(name: &str, stage: &str, frequency: &str, config: Value) -> Value {
    json!({"name": name, "stage": stage, "frequency": frequency, "config": config})
}

pub fn d(sev: &str, code: &str, key: &str) -> (String, String, String) {
    (sev.into(), code.into(), key.into())
}

/// The file without cloud-init's `# Created by cloud-init on <date>` line, which must be
/// its first.
fn after_header(text: &str) -> &str {
    let (first, rest) = text.split_once('\n').unwrap();
    assert!(first.starts_with("# Created by cloud-init on "), "{first}");
    assert!(first.ends_with(" +0000"), "{first}");
    rest
}

#[test]
fn yum_repos_on_fedora() {
    if cannot_chroot() {
        return;
    }
    let m = machine("yum", "NAME=Fedora\nID=fedora\nVERSION_ID=40\n");
    m.write(
        "/etc/yum.repos.d/existing.repo",
        "[existing]\nkeep = 1\n",
        0o644,
    );
    let cfg = json!({"yum_repo_dir": "/etc/yum.repos.d", "yum_repos": {
        "epel-testing": {"baseurl": "http://download.example/epel/testing/$basearch",
            "enabled": false, "failovermethod": "priority", "gpgcheck": true,
            "gpgkey": "file:///etc/pki/rpm-gpg/RPM-GPG-KEY-EPEL", "name": "EPEL - Testing"},
        "my package stream": {"metalink": "https://mirrors.example/metalink?repo=x",
            "mirrorlist": ["http://a.example/list", "http://b.example/list"],
            "repo_gpgcheck": 1, "enable-gpgcheck": true},
        "nourl": {"name": "no url"},
        "existing": {"baseurl": "http://other"}}});
    m.boot_modules(json!([module(
        "yum_add_repo",
        "config",
        "once-per-instance",
        cfg.clone()
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        after_header(&m.read("/etc/yum.repos.d/epel-testing.repo")),
        "[epel-testing]\nbaseurl = http://download.example/epel/testing/$basearch\n\
         enabled = 0\nfailovermethod = priority\ngpgcheck = 1\n\
         gpgkey = file:///etc/pki/rpm-gpg/RPM-GPG-KEY-EPEL\nname = EPEL - Testing\n\n"
    );
    assert_eq!(
        after_header(&m.read("/etc/yum.repos.d/my-package-stream.repo")),
        "[my-package-stream]\nenable_gpgcheck = 1\n\
         metalink = https://mirrors.example/metalink?repo=x\n\
         mirrorlist = http://a.example/list\n\thttp://b.example/list\nrepo_gpgcheck = 1\n\n"
    );
    assert_eq!(m.mode("/etc/yum.repos.d/epel-testing.repo"), 0o644);
    assert_eq!(
        m.read("/etc/yum.repos.d/existing.repo"),
        "[existing]\nkeep = 1\n"
    );
    assert!(!m.exists("/etc/yum.repos.d/nourl.repo"));
    assert_eq!(
        m.diags("config"),
        [d("warning", "missing-key", "yum_repos.nourl")]
    );

    // Not a distribution cloud-init verified it on: skipped, nothing written.
    let m = machine("yum-deb", "ID=debian\n");
    m.boot_modules(json!([module(
        "yum_add_repo",
        "config",
        "once-per-instance",
        cfg
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!m.exists("/etc/yum.repos.d/epel-testing.repo"));
}

#[test]
fn zypper_repos_and_zypp_conf_on_leap_every_boot() {
    if cannot_chroot() {
        return;
    }
    let m = machine(
        "zypper",
        "NAME=\"openSUSE Leap\"\nID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n",
    );
    m.write("/etc/zypp/zypp.conf", "# Zypp config\n", 0o644);
    let cfg = json!({"zypper": {
        "repos": [
            {"id": "opensuse-oss", "name": "os-oss", "baseurl": "http://dl.example/leap/oss/",
             "enabled": 1, "autorefresh": 1},
            {"id": "opensuse oss update", "name": "os-oss-up",
             "baseurl": "http://dl.example/leap/update", "gpgcheck": false},
            {"name": "no id"}],
        "config": {"download.use_deltarpm": true, "configdir": "/elsewhere"}}});
    m.boot_modules(json!([module(
        "zypper_add_repo",
        "config",
        "always",
        cfg.clone()
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.read("/etc/zypp/repos.d/opensuse-oss.repo"),
        "[opensuse-oss]\n    autorefresh = 1\n    baseurl = http://dl.example/leap/oss/\n    \
         enabled = 1\n    name = os-oss"
    );
    assert_eq!(
        m.read("/etc/zypp/repos.d/opensuse_oss_update.repo"),
        "[opensuse oss update]\n    baseurl = http://dl.example/leap/update\n    \
         gpgcheck = 0\n    name = os-oss-up\n    enabled = 1\n    autorefresh = 1"
    );
    let conf = "# Zypp config\n# Added via cloud.cfg\ndownload.use_deltarpm=True";
    assert_eq!(m.read("/etc/zypp/zypp.conf"), conf);
    assert_eq!(
        m.diags("config"),
        [
            d("warning", "unsupported-key", "zypper.config.configdir"),
            d("warning", "missing-key", "zypper.repos.2"),
        ]
    );
    // cloud-init runs it every boot: the settings are appended again, the repos kept.
    m.write("/etc/zypp/repos.d/opensuse-oss.repo", "mine\n", 0o644);
    m.boot_modules(json!([module("zypper_add_repo", "config", "always", cfg)]));
    let out = m.ember("boot-2", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.read("/etc/zypp/repos.d/opensuse-oss.repo"), "mine\n");
    assert_eq!(
        m.read("/etc/zypp/zypp.conf"),
        format!("{conf}# Added via cloud.cfg\ndownload.use_deltarpm=True")
    );

    // zypp.conf missing: an error, as cloud-init fails reading it; no repository written.
    let m = machine("zypper-noconf", "ID=\"opensuse-leap\"\n");
    let cfg = json!({"zypper": {"repos": [{"id": "a", "baseurl": "http://a"}],
                                "config": {"reposdir": "/etc/zypp/repos.d"}}});
    m.boot_modules(json!([module("zypper_add_repo", "config", "always", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        m.diags("config"),
        [d("error", "read-failed", "zypper.config")]
    );
    assert!(!m.exists("/etc/zypp/repos.d/a.repo"));
}

#[test]
fn apk_repositories_on_alpine() {
    if cannot_chroot() {
        return;
    }
    let m = machine(
        "apk",
        "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.20.0\n",
    );
    m.write("/etc/apk/repositories", "http://old/main\n", 0o644);
    let cfg = json!({"apk_repos": {
        "alpine_repo": {"base_url": "https://mirror.example/alpine", "version": "v3.20",
                        "community_enabled": true, "testing_enabled": true},
        "local_repo_base_url": "https://local.example/alpine"}});
    m.boot_modules(json!([module(
        "apk_configure",
        "config",
        "once-per-instance",
        cfg
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    let b = "https://mirror.example/alpine";
    assert_eq!(
        m.read("/etc/apk/repositories"),
        format!(
            "#\n# Created by cloud-init\n#\n# This file is written on first boot of an instance\n\
             #\n\n{b}/v3.20/main\n{b}/v3.20/community\n#\n# Testing - using with non-Edge \
             installation may cause problems!\n#\n{b}/edge/testing\n\n#\n# Local repo\n#\n\
             https://local.example/alpine/v3.20\n\n"
        )
    );
    assert_eq!(m.diags("config"), []);

    // preserve_repositories keeps the image's file.
    let m = machine("apk-keep", "ID=alpine\n");
    m.write("/etc/apk/repositories", "http://old/main\n", 0o644);
    let cfg = json!({"apk_repos": {"preserve_repositories": true,
                                   "alpine_repo": {"version": "edge"}}});
    m.boot_modules(json!([module(
        "apk_configure",
        "config",
        "once-per-instance",
        cfg
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.read("/etc/apk/repositories"), "http://old/main\n");
}

#[test]
fn ubuntu_drivers_sets_debconf_then_installs() {
    if cannot_chroot() {
        return;
    }
    let m = machine("drivers", "ID=ubuntu\nID_LIKE=debian\n");
    // The fake records the selections file it was given.
    m.fake(
        "/usr/bin/debconf-set-selections",
        "cat \"$1\" >> /tools.log",
    );
    m.fake("/usr/bin/apt-get", "");
    m.fake("/usr/bin/ubuntu-drivers", "");
    let cfg = json!({"drivers": {"nvidia": {"license-accepted": true, "version": "470"}}});
    m.boot_modules(json!([module(
        "ubuntu_drivers",
        "final",
        "once-per-instance",
        cfg
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        [
            "debconf-set-selections /var/lib/ember/nvidia.debconf",
            "cloud-init linux/nvidia/latelink boolean true",
            "ubuntu-drivers install --gpgpu nvidia:470",
        ]
    );
    assert!(!m.exists("/var/lib/ember/nvidia.debconf"));
    assert_eq!(m.diags("final"), []);

    // Without ubuntu-drivers, ubuntu-drivers-common is installed first; a failing install of
    // the driver is an error.
    let m = machine("drivers-common", "ID=ubuntu\nID_LIKE=debian\n");
    m.fake("/usr/bin/debconf-set-selections", "");
    m.fake(
        "/usr/bin/apt-get",
        "printf '#!/bin/sh\\necho \"ubuntu-drivers $*\" >> /tools.log\\nexit 1\\n' \
         > /usr/bin/ubuntu-drivers; chmod 755 /usr/bin/ubuntu-drivers",
    );
    let cfg = json!({"drivers": {"nvidia": {"license-accepted": "yes"}}});
    m.boot_modules(json!([module(
        "ubuntu_drivers",
        "final",
        "once-per-instance",
        cfg
    )]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let log = m.lines("/tools.log");
    let apt = "apt-get --option=Dpkg::Options::=--force-confold \
               --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet";
    assert_eq!(
        log,
        [
            format!("{apt} update"),
            format!("{apt} install ubuntu-drivers-common"),
            "debconf-set-selections /var/lib/ember/nvidia.debconf".into(),
            "ubuntu-drivers install --gpgpu nvidia".into(),
        ]
    );
    assert_eq!(
        m.diags("final"),
        [d("error", "command-failed", "drivers.nvidia")]
    );

    // Licence not accepted: nothing runs. No debconf tool: skipped with a warning.
    let m = machine("drivers-no", "ID=ubuntu\n");
    m.fake("/usr/bin/debconf-set-selections", "");
    let cfg = json!({"drivers": {"nvidia": {"license-accepted": false}}});
    m.boot_modules(json!([module(
        "ubuntu_drivers",
        "final",
        "once-per-instance",
        cfg.clone()
    )]));
    m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(!m.exists("/tools.log"));
    let m = machine("drivers-nodebconf", "ID=ubuntu\n");
    m.boot_modules(json!([module(
        "ubuntu_drivers",
        "final",
        "once-per-instance",
        json!({"drivers": {"nvidia": {"license-accepted": true}}})
    )]));
    m.ember("boot-1", &["modules", "--mode", "final"]);
    assert_eq!(m.diags("final"), [d("warning", "tool-missing", "drivers")]);
}
