//! The host keys ember-initrd leaves for the runner: by default made after sshd started, by
//! `ember init --deferred-hostkeys` (ember-hostkeys.service), which reloads sshd and prints the
//! new keys' console blocks; `ember init` (before sshd) makes only the ones the image asked for
//! before sshd. Its record is a stage of its own that `status` does not wait for.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};

/// A real RSA public key and `ssh-keygen -lf`'s line for it.
const RSA_PUB: &str = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDcKHakcwc7Sz7cWxI5P2Am/bZdim7gmPWNsiwbbCYBK2DyVp8/f6462INhGEo05zhIMwrev5fLBQ6aFJ11xOkAZY5MnVpHzvTEzGdlpuR2yNkaTYpU5XHVtpOwWGg60AmUaT7PJ6yYIDOFjA/uhFd+HSoWiUXaFBalNsl1XexV0w== root@t";
const RSA_FP: &str = "1024 SHA256:6a7hLu/YcUnQHZqfgzV7T27w+ITAibLz1wr/mIryCQk root@t (RSA)";

/// A target whose ssh-keygen logs its arguments and writes the key pair, whose systemd runs
/// (`/run/systemd/system`), and whose systemctl logs its arguments and knows no ssh.service
/// (as on Fedora, where sshd's unit is sshd.service).
fn machine(name: &str) -> Machine {
    let m = Machine::new(name, &["sh", "echo", "cat", "mkdir"]);
    let keygen = format!(
        "#!/bin/sh\necho \"$*\" >> /keygen.log\n\
         while [ $# -gt 0 ]; do [ \"$1\" = -f ] && f=$2; shift; done\n\
         echo key > \"$f\"\necho '{RSA_PUB}' > \"$f.pub\"\n"
    );
    m.write("/usr/bin/ssh-keygen", &keygen, 0o755);
    let systemctl = "#!/bin/sh\necho \"$*\" >> /systemctl.log\n[ \"$2\" = sshd.service ]\n";
    m.write("/usr/bin/systemctl", systemctl, 0o755);
    m.write("/run/systemd/system/.keep", "", 0o644);
    m.write(
        "/etc/ssh/ssh_host_ed25519_key.pub",
        "ssh-ed25519 AAAA x\n",
        0o644,
    );
    m
}

fn handoff() -> Value {
    let console = json!({"name": "keys_to_console", "stage": "final",
        "frequency": "once-per-instance", "config": {}});
    json!({"version": 1, "instance_id": "i-h", "instance_dir": "i-h", "datasource": "nocloud",
        "first_boot": true, "modules": [console]})
}

fn step_names(st: &Value, stage: &str) -> Vec<String> {
    let steps = st["stages"][stage]["steps"].as_array().cloned();
    let names = steps.unwrap_or_default().into_iter();
    names
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rsa_is_made_after_sshd_which_is_reloaded_and_the_key_shown() {
    if cannot_chroot() {
        return;
    }
    let m = machine("deferred");
    m.write("/var/lib/ember/deferred-hostkeys", "rsa\n", 0o644);
    m.boot(&handoff());

    // Before sshd: nothing for ssh-keygen, and the deferred list stays for the background unit.
    let out = m.ember("d1", &["init"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!m.target.join("keygen.log").exists());
    assert!(!step_names(&m.status(), "config").contains(&"init/hostkeys".into()));
    assert!(m.target.join("var/lib/ember/deferred-hostkeys").exists());

    let out = m.ember("d1", &["init", "--deferred-hostkeys"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/keygen.log"),
        ["-q -N  -t rsa -f /etc/ssh/ssh_host_rsa_key"]
    );
    assert!(!m.target.join("var/lib/ember/deferred-hostkeys").exists());
    // The first name fails (no such unit), the second reloads.
    assert_eq!(
        m.lines("/systemctl.log"),
        [
            "try-reload-or-restart ssh.service",
            "try-reload-or-restart sshd.service"
        ]
    );
    // keys_to_console's blocks for the new key only: the others were shown by the final stage.
    let console = common::stdout(&out);
    let fp = console.lines().position(|l| l.ends_with(RSA_FP));
    let begin = console
        .lines()
        .position(|l| l.ends_with("BEGIN SSH HOST KEY FINGERPRINTS-----"));
    assert!(fp.is_some() && begin < fp, "{console}");
    assert!(console.lines().any(|l| l.ends_with(RSA_PUB)), "{console}");
    assert!(!console.contains("ssh-ed25519"), "{console}");
    assert!(console.contains("sshd reloaded"), "{console}");

    // Its own record, with its step; the boot's stages and the verdict do not count it.
    let st = m.status();
    assert_eq!(step_names(&st, "hostkeys"), ["hostkeys"]);
    assert_eq!(st["stages"]["hostkeys"]["steps"][0]["result"], "ok");
    assert_eq!(st["stages"]["hostkeys"]["state"], "done");
    let ci = m.run.join("cloud-init/status.json");
    let ci: Value = serde_json::from_str(&std::fs::read_to_string(ci).unwrap()).unwrap();
    assert_eq!(ci["v1"]["modules-final"]["finished"], Value::Null);

    // The next start of the unit has nothing to do and records nothing.
    let before = m.status();
    let out = m.ember("d1", &["init", "--deferred-hostkeys"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(common::stdout(&out).contains("no host keys deferred"));
    assert_eq!(m.status(), before);
    assert_eq!(m.lines("/keygen.log").len(), 1);

    // The config and final stages keep the background record beside theirs.
    for args in [
        &["modules", "--mode", "config"][..],
        &["modules", "--mode", "final"],
    ] {
        let out = m.ember("d1", args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
    }
    let st = m.status();
    assert_eq!(step_names(&st, "hostkeys"), ["hostkeys"]);
    assert_eq!(st["stages"]["final"]["state"], "done");
}

/// The image's `ember.rsa_host_key: before-sshd` leaves RSA in the list `ember init` makes
/// before sshd; a failed ssh-keygen in the background is a warning of its record (as cc_ssh
/// logs it), and the type stays listed for the next boot.
#[test]
fn before_sshd_list_and_a_failed_background_keygen() {
    if cannot_chroot() {
        return;
    }
    let m = machine("deferred-fail");
    m.write("/var/lib/ember/pending-hostkeys", "rsa\n", 0o644);
    m.write("/var/lib/ember/deferred-hostkeys", "dsa\n", 0o644);
    m.boot(&handoff());
    let out = m.ember("f1", &["init"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/keygen.log"),
        ["-q -N  -t rsa -f /etc/ssh/ssh_host_rsa_key"]
    );
    assert_eq!(
        step_names(&m.status(), "config").last().unwrap(),
        "init/hostkeys"
    );

    m.write("/usr/bin/ssh-keygen", "#!/bin/sh\nexit 1\n", 0o755);
    let out = m.ember("f1", &["init", "--deferred-hostkeys"]);
    // cloud-init's cc_ssh logs a failed ssh-keygen as a warning and goes on: the unit succeeds.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(m.read("/var/lib/ember/deferred-hostkeys"), "dsa\n");
    assert!(
        !m.target.join("systemctl.log").exists(),
        "nothing made: no reload"
    );
    let st = m.status();
    // A warning (status `degraded`), in the record's recoverable errors.
    assert_eq!(st["stages"]["hostkeys"]["errors"], json!([]));
    let warned = &st["stages"]["hostkeys"]["recoverable_errors"][0];
    assert_eq!(warned["code"], "hostkey-failed");
    assert_eq!(warned["severity"], "warning");
}
