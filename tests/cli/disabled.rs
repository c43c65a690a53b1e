//! Disable toggles: nothing is written to the target, only a small status says why.

use crate::common;
use common::{stdout, Machine};
use std::process::Command;

/// Disabled: exit 0, the target as it was, `<run>` holds only ember/status.json.
fn assert_disabled(m: &Machine, before: &[(String, u32)], out: &std::process::Output, why: &str) {
    assert_eq!(out.status.code(), Some(0));
    let reason = m.status()["disabled"].as_str().unwrap().to_string();
    assert!(reason.contains(why), "{reason}");
    let run_files: Vec<String> = Machine::tree(&m.run).into_iter().map(|(p, _)| p).collect();
    assert_eq!(run_files, ["ember", "ember/status.json"]);
    assert_eq!(Machine::tree(&m.target), before, "target changed");
    let status = m.ember(&["status", "--long"]);
    assert!(
        stdout(&status).starts_with("status: disabled"),
        "{}",
        stdout(&status)
    );
    assert_eq!(status.status.code(), Some(0));
}

fn machine_with_seed(name: &str) -> Machine {
    let m = Machine::new(name);
    let files = [
        ("meta-data", "instance-id: i-1\n"),
        ("user-data", "#cloud-config\n{}\n"),
    ];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    m
}

#[test]
fn kernel_command_line_toggles() {
    for (line, why) in [
        ("ro ember=disabled", "ember=disabled"),
        ("ro cloud-init=disabled quiet", "cloud-init=disabled"),
        ("ro \"cloud-init=disabled\"", "cloud-init=disabled"),
    ] {
        let m = machine_with_seed("cmdline-off");
        m.cmdline(line);
        let before = Machine::tree(&m.target);
        let out = m.initrd("all");
        assert_disabled(&m, &before, &out, why);
    }
}

#[test]
fn marker_files_in_target_and_host() {
    for (in_target, marker) in [
        (true, "etc/cloud/cloud-init.disabled"),
        (true, "etc/ember/disabled"),
        (false, "etc/cloud/cloud-init.disabled"),
        (false, "etc/ember/disabled"),
    ] {
        let m = machine_with_seed("marker");
        let base = if in_target {
            m.target.clone()
        } else {
            m.host.clone()
        };
        m.write(&base, marker, b"");
        let before = Machine::tree(&m.target);
        let out = m.initrd("all");
        assert_disabled(&m, &before, &out, marker);
    }
}

/// ds-identify's policy switched off, in the image's ds-identify.cfg or on the command line.
#[test]
fn ds_identify_policy_disabled() {
    for (cmdline, cfg, why) in [
        (
            "ro",
            Some("policy: disabled\n"),
            "/etc/cloud/ds-identify.cfg: policy: disabled",
        ),
        ("ro ci.di.policy=disabled", None, "ci.di.policy=disabled"),
        (
            "ro ci.di.policy=disabled",
            Some("policy: search\n"),
            "ci.di.policy=disabled",
        ),
    ] {
        let m = machine_with_seed("policy-off");
        if let Some(cfg) = cfg {
            m.write(&m.target, "etc/cloud/ds-identify.cfg", cfg.as_bytes());
        }
        m.cmdline(cmdline);
        let before = Machine::tree(&m.target);
        let out = m.initrd("all");
        assert_disabled(&m, &before, &out, why);
    }
    // A policy that searches, and a bad value in it, leave the seed to be used.
    let m = machine_with_seed("policy-search");
    m.write(
        &m.target,
        "etc/cloud/ds-identify.cfg",
        b"policy: search,found=some\n",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-1");
    let d = m
        .diag_with_code("bad-value")
        .expect("the bad value is named");
    assert_eq!(d["file"], "/etc/cloud/ds-identify.cfg", "{d}");
    assert_eq!(d["line"], 1, "{d}");
}

#[test]
fn cloud_init_enabled_overrides_the_marker_file() {
    let m = machine_with_seed("forced-on");
    m.write(&m.target, "etc/cloud/cloud-init.disabled", b"");
    m.cmdline("ro cloud-init=enabled");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-1");
}

#[test]
fn container_kernel_cmdline_from_environment_and_pid1() {
    // In a container cloud-init reads $KERNEL_CMDLINE, else PID 1's command line.
    let m = machine_with_seed("container-env");
    m.write(&m.host, "run/systemd/container", b"docker\n");
    let before = Machine::tree(&m.target);
    let out = common::run(
        Command::new(common::EMBER_INITRD)
            .args([
                "--host",
                m.host.to_str().unwrap(),
                "--target",
                m.target.to_str().unwrap(),
            ])
            .args(["--run", m.run.to_str().unwrap(), "all"])
            .env("KERNEL_CMDLINE", "cloud-init=disabled"),
    );
    assert_disabled(&m, &before, &out, "KERNEL_CMDLINE: cloud-init=disabled");

    let m = machine_with_seed("container-pid1");
    m.write(&m.host, "proc/1/environ", b"PATH=/bin\0container=podman\0");
    m.write(
        &m.host,
        "proc/1/cmdline",
        b"/sbin/init\0cloud-init=disabled\0",
    );
    let before = Machine::tree(&m.target);
    let out = m.initrd("all");
    assert_disabled(&m, &before, &out, "/proc/1/cmdline: cloud-init=disabled");

    // A service of the container's init (ember-local.service) has no KERNEL_CMDLINE of its
    // own: the one the container manager gave PID 1 counts, before PID 1's command line.
    let m = machine_with_seed("container-pid1-env");
    m.write(
        &m.host,
        "proc/1/environ",
        b"container=systemd-nspawn\0KERNEL_CMDLINE=ro cloud-init=disabled\0",
    );
    m.write(&m.host, "proc/1/cmdline", b"/sbin/init\0");
    let before = Machine::tree(&m.target);
    let out = m.initrd("all");
    assert_disabled(
        &m,
        &before,
        &out,
        "/proc/1/environ KERNEL_CMDLINE: cloud-init=disabled",
    );
}

#[test]
fn words_after_double_dash_belong_to_init() {
    let m = machine_with_seed("dashdash");
    m.cmdline("ro -- ember=disabled");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0));
    assert!(m.status()["disabled"].is_null());
}

/// In the initramfs detect and fetch run before the root is mounted; the target's marker
/// file is seen by the local stage, which then writes nothing into the target.
#[test]
fn target_marker_seen_only_once_the_root_is_mounted() {
    let m = Machine::new("late-marker");
    m.cmdline("ro ds=nocloud;i=i-late;h=late");
    let mounted = m.target.with_extension("unmounted");
    std::fs::rename(&m.target, &mounted).unwrap();
    for stage in ["detect", "fetch"] {
        let out = m.initrd(stage);
        assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    }
    std::fs::rename(&mounted, &m.target).unwrap();
    m.write(&m.target, "etc/cloud/cloud-init.disabled", b"");
    let before = Machine::tree(&m.target);
    let out = m.initrd("local");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert!(m.status()["disabled"]
        .as_str()
        .unwrap()
        .contains("cloud-init.disabled"));
    assert_eq!(Machine::tree(&m.target), before, "target changed");
}
