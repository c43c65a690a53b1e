#![cfg(feature = "ds-wsl")]
//! WSL end to end: `ember-initrd all` in a host tree that looks like a WSL instance (its kernel
//! release, the C: drive mounted over 9p drvfs, cmd.exe there, stand-ins for `/init` and
//! `wslpath` that answer as Windows does) with the user's profile holding `.cloud-init/` and
//! the Pro agent's `.ubuntupro/.cloud-init/`: instance meta-data, the agent's keys winning,
//! no data for another instance, and no WSL without the drives.

use crate::common;
use common::{stderr, Machine};
use std::os::unix::fs::PermissionsExt;

const HOME: &str = "mnt/c/Users/dev";

fn script(m: &Machine, rel: &str, body: &str) {
    m.write(&m.host, rel, format!("#!/bin/sh\n{body}\n").as_bytes());
    let p = m.host.join(rel);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn machine(name: &str, instance: &str) -> Machine {
    let m = Machine::new(name);
    m.write(
        &m.target,
        "etc/os-release",
        b"ID=ubuntu\nVERSION_ID=\"24.04\"\n",
    );
    m.write(
        &m.host,
        "proc/sys/kernel/osrelease",
        b"5.15.153.1-microsoft-standard-WSL2\n",
    );
    m.write(
        &m.host,
        "proc/mounts",
        b"none / ext4 rw 0 0\nC:\\134 /mnt/c 9p rw,noatime,aname=drvfs;path=C:\\;uid=1000 0 0\n",
    );
    m.write(&m.host, "mnt/c/Windows/System32/cmd.exe", b"MZ");
    let wslpath = format!(
        "case \"$1\" in -am) echo '//wsl.localhost/{instance}/' ;; -au) echo '/{HOME}' ;; *) exit 1 ;; esac"
    );
    script(&m, "usr/bin/wslpath", &wslpath);
    script(&m, "init", "echo 'C:\\Users\\dev'");
    m
}

#[test]
fn profile_data_provisions_the_instance() {
    let m = machine("wsl", "Ubuntu-Dev");
    let h = HOME;
    m.write(
        &m.host,
        &format!("{h}/.cloud-init/Ubuntu-Dev.meta-data"),
        b"instance-id: dev-7\n",
    );
    m.write(
        &m.host,
        &format!("{h}/.cloud-init/ubuntu-24.04.user-data"),
        b"#cloud-config\nhostname: from-user\nwrite_files:\n  - path: /etc/wsl-user\n    content: wsl-user-file\n",
    );
    m.write(
        &m.host,
        &format!("{h}/.ubuntupro/.cloud-init/agent.yaml"),
        b"hostname: from-agent\n",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["datasource"], "wsl", "{st}");
    assert_eq!(st["instance_id"], "dev-7", "{st}");
    assert_eq!(st["datasource_detail"], "DataSourceWSL [Ubuntu-Dev]");
    assert_eq!(m.target_file("etc/hostname").trim(), "from-agent");
    assert_eq!(m.target_file("etc/wsl-user").trim(), "wsl-user-file");
}

#[test]
fn other_instance_and_no_drives() {
    // Only another instance's files: nothing for this one, so WSL is not chosen (ds-identify's
    // test reads the profile too).
    let m = machine("wsl-other", "Debian");
    m.write(
        &m.target,
        "etc/os-release",
        b"ID=debian\nVERSION_ID=\"12\"\n",
    );
    m.write(
        &m.host,
        &format!("{HOME}/.cloud-init/Ubuntu-Dev.user-data"),
        b"#cloud-config\n{}\n",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(m.status()["datasource"], "wsl", "{}", m.status());
    assert!(
        m.diag_with_code("no-datasource").is_some(),
        "{:?}",
        m.diags()
    );
    // Without the Windows drives it is not WSL's to read.
    let m = machine("wsl-nodrives", "Debian");
    m.write(&m.host, "proc/mounts", b"none / ext4 rw 0 0\n");
    let out = m.initrd("detect");
    assert!(
        !common::stdout(&out).contains("wsl"),
        "{}",
        common::stdout(&out)
    );
}
