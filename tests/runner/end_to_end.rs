//! The whole life of an instance: `ember-initrd all` provisions the target from a NoCloud
//! seed, then the runner's `init`, `modules --mode config` and `--mode final` finish the job
//! chrooted into it (a static busybox stands for the target's userland).

use crate::common;
use crate::common::target::Accounts;
use common::{skip, stderr, stdout, Machine};
use std::os::unix::fs::symlink;
use std::process::Command;

const USER_DATA: &str = r#"#cloud-config
hostname: e2e
# No RSA: the target has no ssh-keygen for the runner to make one with.
ssh_genkeytypes: [ed25519, ecdsa]
users:
  - name: alice
    shell: /bin/sh
    ssh_authorized_keys: [ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2eKeyForTestOnly alice@x]
write_files:
  - path: /etc/early.conf
    content: "early\n"
  - path: /home/alice/late.txt
    owner: alice:alice
    permissions: '0600'
    content: "late\n"
    defer: true
bootcmd:
  - echo boot >> /var/tmp/bootcmd.log
output: {all: ">> /var/log/e2e.log"}
runcmd:
  - echo said-to-the-log
  - echo ran > /var/tmp/runcmd.out
  - [sh, -c, "id -u alice > /var/tmp/alice.uid"]
"#;

fn runner(m: &Machine, args: &[&str]) -> std::process::Output {
    m.write(&m.host, "proc/sys/kernel/random/boot_id", b"boot-1\n");
    common::run(
        Command::new(common::EMBER)
            .args([
                "--target",
                m.target.to_str().unwrap(),
                "--run",
                m.run.to_str().unwrap(),
                "--host",
                m.host.to_str().unwrap(),
            ])
            .args(args),
    )
}

#[test]
fn seed_to_final_stage() {
    if !rustix::process::geteuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "CI runs as root");
        return skip("chroot into the target needs root");
    }
    if !std::path::Path::new("/bin/busybox").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "scripts/setup installs busybox-static"
        );
        return skip("no /bin/busybox (busybox-static)");
    }
    let m = Machine::new("e2e");
    let t = &m.target;
    for d in ["bin", "var/tmp", "tmp", "home", "root"] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    std::fs::copy("/bin/busybox", t.join("bin/busybox")).unwrap();
    for applet in ["sh", "echo", "id", "cat"] {
        symlink("busybox", t.join("bin").join(applet)).unwrap();
    }
    Accounts::root().shell("/bin/sh").shadow().write(t);
    // A Debian image's locale, already set: the locale module (run by default) leaves it.
    m.write(t, "etc/default/locale", b"LANG=C.UTF-8\n");
    let meta = "instance-id: i-e2e\nlocal-hostname: e2e\n";
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[("meta-data", meta), ("user-data", USER_DATA)],
    );

    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.target_file("etc/early.conf"), "early\n");
    assert!(
        !t.join("home/alice/late.txt").exists(),
        "deferred until users exist"
    );
    assert!(m
        .target_file("etc/passwd")
        .contains("\nalice:x:1000:1000::/home/alice:/bin/sh\n"));
    assert_eq!(m.target_file("etc/hostname"), "e2e\n");

    // `config` is the short form of `modules --mode config`, and `modules --mode init`
    // (cloud-init's spelling) is `init`: each form is exercised.
    for args in [
        &["modules", "--mode", "init"][..],
        &["config"],
        &["modules", "--mode", "final"],
    ] {
        let out = runner(&m, args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    assert_eq!(m.target_file("var/tmp/bootcmd.log"), "boot\n");
    assert_eq!(m.target_file("var/tmp/runcmd.out"), "ran\n");
    // `output:` chose the log: the commands' output is there, not in the default one.
    assert!(m
        .target_file("var/log/e2e.log")
        .contains("said-to-the-log\n"));
    assert!(m
        .target_file("var/log/e2e.log")
        .contains(" running 'modules:init' at "));
    assert!(!t.join("var/log/cloud-init-output.log").exists());
    assert_eq!(m.target_file("var/tmp/alice.uid"), "1000\n");
    let late = t.join("home/alice/late.txt");
    assert_eq!(std::fs::read_to_string(&late).unwrap(), "late\n");
    assert_eq!(Machine::mode(&late), 0o600);
    assert!(m.run.join("cloud-init/result.json").exists());
    // (instance is an absolute link, meaningful inside the target only)
    assert!(t
        .join("var/lib/cloud/instances/i-e2e/boot-finished")
        .exists());
    let status = runner(&m, &["status", "--wait", "--timeout", "5"]);
    assert_eq!(stdout(&status).trim(), "status: done");
    assert_eq!(status.status.code(), Some(0));
}
