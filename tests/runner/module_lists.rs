//! The module lists (`cloud_init_modules`, `cloud_config_modules`, `cloud_final_modules`) of
//! the image and of user-data decide which modules run, in what order and how often, in
//! ember-initrd's local stage and in the runner's stages, across two boots of one instance.

use crate::common;
use crate::common::target::Accounts;
use common::{skip, stderr, stdout, Machine};
use serde_json::Value;
use std::os::unix::fs::symlink;
use std::process::Command;

/// The image drops growpart and puts ssh before write_files; runcmd runs every boot (the
/// runcmd module writes its script, scripts_user runs it: both `always`, as cloud-init
/// needs); one name is unknown. A later file overrides the config list, as cloud-init merges.
const CLOUD_CFG: &str = "cloud_init_modules:
  - seed_random
  - ssh
  - write_files
  - resizefs
  - set_hostname
  - users_groups
cloud_config_modules: [runcmd]
cloud_final_modules: [scripts_user, final_message]
";
const CLOUD_CFG_D: &str = "cloud_config_modules:
  - [runcmd, always]
  - frobnicate
";
const USER_DATA: &str = "#cloud-config
hostname: lists
ssh_genkeytypes: [ed25519]
write_files:
  - path: /etc/early.conf
    content: early
runcmd:
  - echo ran >> /var/tmp/runcmd.log
cloud_final_modules: [[scripts_user, always], final_message, nosuch_final]
final_message: done
";

fn machine() -> Option<Machine> {
    if !rustix::process::geteuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "CI runs as root");
        skip("chroot into the target needs root");
        return None;
    }
    if !std::path::Path::new("/bin/busybox").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "scripts/setup installs busybox-static"
        );
        skip("no /bin/busybox (busybox-static)");
        return None;
    }
    let m = Machine::new("lists");
    let t = &m.target;
    for d in ["bin", "var/tmp", "tmp", "root"] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    std::fs::copy("/bin/busybox", t.join("bin/busybox")).unwrap();
    for applet in ["sh", "echo", "cat"] {
        symlink("busybox", t.join("bin").join(applet)).unwrap();
    }
    Accounts::root().shell("/bin/sh").shadow().write(t);
    m.write(t, "etc/cloud/cloud.cfg", CLOUD_CFG.as_bytes());
    m.write(
        t,
        "etc/cloud/cloud.cfg.d/90-lists.cfg",
        CLOUD_CFG_D.as_bytes(),
    );
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-lists\n"),
            ("user-data", USER_DATA),
        ],
    );
    Some(m)
}

/// One boot: the run directory starts empty, the kernel names the boot.
fn boot(m: &Machine, boot_id: &str) {
    let _ = std::fs::remove_dir_all(&m.run);
    m.write(
        &m.host,
        "proc/sys/kernel/random/boot_id",
        format!("{boot_id}\n").as_bytes(),
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for args in [&["init"][..], &["config"], &["final"]] {
        let out = common::run(
            Command::new(common::EMBER)
                .arg("--target")
                .arg(&m.target)
                .arg("--run")
                .arg(&m.run)
                .arg("--host")
                .arg(&m.host)
                .args(args),
        );
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 2)),
            "{args:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}

fn steps(m: &Machine, stage: &str) -> Vec<(String, String)> {
    let st = m.status();
    let steps = st["stages"][stage]["steps"].as_array().cloned();
    let name = |s: &Value, k: &str| s[k].as_str().unwrap_or_default().to_string();
    steps
        .unwrap_or_default()
        .iter()
        .filter(|s| name(s, "name").starts_with("module "))
        .map(|s| (name(s, "name"), name(s, "result")))
        .collect()
}

#[test]
fn lists_decide_modules_order_and_frequency() {
    let Some(m) = machine() else { return };
    boot(&m, "boot-1");
    let local = steps(&m, "local");
    let ran: Vec<&str> = local
        .iter()
        .filter(|(_, r)| !r.starts_with("skipped"))
        .map(|(n, _)| n.as_str())
        .collect();
    // growpart, mounts, update_hostname… are not listed: they do not run. The lists' order.
    assert_eq!(
        ran,
        [
            "module seed_random",
            "module ssh",
            "module write_files",
            "module resizefs",
            "module set_hostname",
            "module users_groups"
        ],
        "{local:?}"
    );
    let growpart = local.iter().find(|(n, _)| n == "module growpart");
    assert_eq!(
        growpart.map(|(_, r)| r.as_str()),
        Some("skipped (not in the module lists)")
    );
    assert_eq!(m.target_file("etc/early.conf"), "early");
    assert_eq!(m.target_file("etc/hostname"), "lists\n");
    assert!(m.target.join("etc/ssh/ssh_host_ed25519_key").exists());

    // Unknown names: a warning naming the file that set the list and the item.
    let unknown: Vec<(String, String)> = m
        .diags()
        .iter()
        .filter(|d| d["code"] == "module-unknown")
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("file"), s("key"))
        })
        .collect();
    assert_eq!(
        unknown,
        [
            (
                "/etc/cloud/cloud.cfg.d/90-lists.cfg".to_string(),
                "cloud_config_modules.1".to_string()
            ),
            (
                "user-data or vendor-data".to_string(),
                "cloud_final_modules.2".to_string()
            ),
        ]
    );

    // The runner: user-data's final list left the other script modules out.
    assert_eq!(m.target_file("var/tmp/runcmd.log"), "ran\n");
    let handoff = m.json("ember/handoff.json");
    let names: Vec<&str> = handoff["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["runcmd", "scripts_user", "final_message"],
        "no bootcmd: not listed"
    );

    // The second boot of the same instance: `[runcmd, always]` runs it again; the
    // per-instance local modules do not run again.
    boot(&m, "boot-2");
    assert_eq!(m.target_file("var/tmp/runcmd.log"), "ran\nran\n");
    let local = steps(&m, "local");
    let users = local.iter().find(|(n, _)| n == "module users_groups");
    assert!(
        users.is_some_and(|(_, r)| r.starts_with("skipped")),
        "{local:?}"
    );
}
