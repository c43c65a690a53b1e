//! The runner's stages against a target directory holding a static busybox, so `chroot
//! <target> /bin/sh` works: `ember init`, `ember modules --mode config|final` over a handoff
//! written here, across simulated boots (the boot id under `--host`) and instances.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::text;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const APPLETS: &[&str] = &[
    "sh", "echo", "cat", "ls", "mkdir", "touch", "printf", "true", "false", "test", "[", "sleep",
    "chmod", "rm", "env",
];

/// The runner's machine with a time zone (Europe/Berlin) in the target.
fn machine(name: &str) -> Machine {
    let m = Machine::new(name, APPLETS);
    m.write("/usr/share/zoneinfo/Europe/Berlin", "TZif", 0o644);
    m
}

fn enc(id: &str) -> String {
    id.to_string() // the test ids need no encoding
}

fn module(name: &str, stage: &str, freq: &str, config: Value) -> Value {
    json!({"name": name, "stage": stage, "frequency": freq, "config": config})
}

/// The handoff of instance `id`, with its user scripts written into the target.
fn handoff(m: &Machine, id: &str, runcmd: Value) -> Value {
    let scripts = format!("/var/lib/cloud/instances/{}/scripts", enc(id));
    m.write(
        &format!("{scripts}/part-001"),
        "#!/bin/sh\necho user1 >> /order.log\n",
        0o700,
    );
    m.write(
        &format!("{scripts}/part-002"),
        "#!/bin/sh\necho user2 >> /order.log\n",
        0o700,
    );
    m.write(
        &format!("{scripts}/vendor/v1"),
        "#!/bin/sh\necho vendor >> /vendor.log\n",
        0o700,
    );
    json!({
        "version": 1, "instance_id": id, "instance_dir": enc(id), "datasource": "nocloud",
        "first_boot": true,
        "modules": [
            module("bootcmd", "init", "always", json!({"bootcmd": ["echo boot $INSTANCE_ID >> /bootcmd.log"]})),
            module("runcmd", "config", "once-per-instance", json!({"runcmd": runcmd})),
            module("timezone", "config", "once-per-instance", json!({"timezone": "Europe/Berlin"})),
            module("ssh_import_id", "config", "once-per-instance", json!({"ssh_import_id": ["gh:alice"]})),
            module("keyboard", "config", "once-per-instance", json!({})),
            module("ssh_authkey_fingerprints", "final", "once-per-instance", json!({"no_ssh_fingerprints": true})),
            module("scripts_vendor", "final", "once-per-instance", json!({})),
            module("scripts_per_once", "final", "once", json!({})),
            module("scripts_per_boot", "final", "always", json!({})),
            module("scripts_per_instance", "final", "once-per-instance", json!({})),
            module("scripts_user", "final", "once-per-instance", json!({})),
            module("final_message", "final", "always", json!({"final_message": "done via $DATASOURCE, up $UPTIME s"})),
            module("power_state_change", "final", "once-per-instance",
                   json!({"power_state": {"mode": "reboot", "delay": "+1", "message": "bye"}})),
        ],
        "scripts": [
            {"path": format!("{scripts}/part-001"), "frequency": "once-per-instance"},
            {"path": format!("{scripts}/part-002"), "frequency": "always"},
        ],
        "vendor_scripts": [{"path": format!("{scripts}/vendor/v1"), "frequency": "once-per-instance"}],
        "boothooks": [],
    })
}

fn image_scripts(m: &Machine) {
    let d = "/var/lib/cloud/scripts";
    m.write(
        &format!("{d}/per-boot/10-a"),
        "#!/bin/sh\necho a >> /perboot.log\n",
        0o755,
    );
    m.write(
        &format!("{d}/per-boot/20-b"),
        "#!/bin/sh\necho b >> /perboot.log\n",
        0o755,
    );
    // ember's own folder runs after cloud-init's.
    m.write(
        "/var/lib/ember/scripts/per-boot/05-ember",
        "#!/bin/sh\necho ember >> /perboot.log\n",
        0o755,
    );
    m.write(
        &format!("{d}/per-boot/30-notexec"),
        "#!/bin/sh\necho x >> /perboot.log\n",
        0o644,
    );
    m.write(
        &format!("{d}/per-instance/a"),
        "#!/bin/sh\necho i >> /perinstance.log\n",
        0o755,
    );
    m.write(
        &format!("{d}/per-once/a"),
        "#!/bin/sh\necho o >> /peronce.log\n",
        0o755,
    );
}

fn step_result(st: &Value, stage: &str, name: &str) -> String {
    let steps = st["stages"][stage]["steps"].as_array().unwrap();
    let step = steps.iter().find(|s| s["name"] == name);
    step.unwrap_or_else(|| panic!("no step {name} in {stage}: {steps:?}"))["result"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn three_boots_follow_the_semaphores() {
    if cannot_chroot() {
        return;
    }
    let m = machine("boots");
    image_scripts(&m);
    let runcmd = json!([
        "echo runcmd >> /order.log",
        ["sh", "-c", "echo 'list form' >> /runcmd.log"]
    ]);
    let h1 = handoff(&m, "i-1", runcmd.clone());

    // Boot 1, instance i-1: everything runs once.
    m.boot(&h1);
    let out = m.all("boot-a");
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(m.lines("/order.log"), ["user1", "user2", "runcmd"]);
    assert_eq!(m.lines("/runcmd.log"), ["list form"]);
    let rc = "/var/lib/cloud/instances/i-1/scripts/runcmd";
    assert_eq!(
        m.read(rc),
        "#!/bin/sh\necho runcmd >> /order.log\nsh -c 'echo '\"'\"'list form'\"'\"' >> /runcmd.log'\n"
    );
    assert_eq!(m.mode(rc), 0o700);
    assert_eq!(m.lines("/bootcmd.log"), ["boot i-1"]);
    assert_eq!(m.lines("/perboot.log"), ["a", "b", "ember"]);
    assert_eq!(m.lines("/perinstance.log"), ["i"]);
    assert_eq!(m.lines("/peronce.log"), ["o"]);
    assert_eq!(m.lines("/vendor.log"), ["vendor"]);
    let tz = std::fs::read_link(m.target.join("etc/localtime")).unwrap();
    assert_eq!(tz, Path::new("/usr/share/zoneinfo/Europe/Berlin"));
    assert_eq!(m.read("/etc/timezone"), "Europe/Berlin\n");
    // final_message and the power change are said on stdout and in the output log (0640).
    let msg_prefix = "done via DataSourceNoCloud [seed=/dev/sr0], up ";
    assert!(
        stdout.lines().any(|l| l.starts_with(msg_prefix)),
        "{stdout}"
    );
    assert!(
        stdout.contains("power_state: would run: shutdown -r +1 bye (not run: --target is not /)")
    );
    let log = m.read("/var/log/cloud-init-output.log");
    assert!(
        log.contains(msg_prefix) && log.contains("running 'modules:final'"),
        "{log}"
    );
    assert!(log.contains("boot i-1\n") || m.read("/bootcmd.log").contains("boot i-1"));
    assert_eq!(m.mode("/var/log/cloud-init-output.log"), 0o640);

    // Status: the init steps kept in config, both stages done, warnings for what is unsupported.
    let st = m.status();
    for stage in ["config", "final"] {
        assert_eq!(st["stages"][stage]["state"], "done", "{stage}");
        assert_eq!(st["stages"][stage]["errors"], json!([]), "{stage}");
    }
    assert_eq!(step_result(&st, "config", "init/module bootcmd"), "ok");
    assert_eq!(step_result(&st, "config", "module runcmd"), "ok");
    assert_eq!(
        step_result(&st, "config", "module keyboard"),
        "skipped (no config)"
    );
    let warns: Vec<(String, String)> = ["config", "final"]
        .iter()
        .flat_map(|s| {
            st["stages"][s]["recoverable_errors"]
                .as_array()
                .unwrap()
                .clone()
        })
        .map(|d| {
            (
                d["code"].as_str().unwrap().into(),
                d["key"].as_str().unwrap().into(),
            )
        })
        .collect();
    // ssh_authkey_fingerprints runs (and with no_ssh_fingerprints prints nothing); the target
    // has no ssh-import-id, a warning as in cloud-init.
    assert_eq!(
        warns,
        [("tool-missing".to_string(), "ssh_import_id".to_string())]
    );
    let ci: Value =
        serde_json::from_slice(&std::fs::read(m.run.join("cloud-init/status.json")).unwrap())
            .unwrap();
    assert!(ci["v1"]["modules-final"]["finished"].is_f64(), "{ci}");
    assert_eq!(ci["v1"]["stage"], Value::Null);
    let result: Value =
        serde_json::from_slice(&std::fs::read(m.run.join("cloud-init/result.json")).unwrap())
            .unwrap();
    assert_eq!(
        result["v1"]["datasource"],
        "DataSourceNoCloud [seed=/dev/sr0]"
    );
    assert_eq!(result["v1"]["errors"], json!([]));
    assert_eq!(
        result["v1"]["recoverable_errors"]["WARNING"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        m.read("/var/lib/cloud/data/result.json"),
        std::fs::read_to_string(m.run.join("cloud-init/result.json")).unwrap()
    );
    let fin = m.read("/var/lib/cloud/instances/i-1/boot-finished");
    let parts: Vec<&str> = fin.trim_end().split(" - ").collect();
    assert_eq!(parts.len(), 3, "{fin:?}");
    assert!(
        parts[0].parse::<f64>().is_ok() && parts[1].ends_with("+0000"),
        "{fin:?}"
    );
    assert_eq!(parts[2], format!("v. {}", env!("CARGO_PKG_VERSION")));

    // Boot 2, same instance: only per-boot work runs again.
    m.boot(&h1);
    let out = m.all("boot-b");
    assert!(out.status.success(), "{}", text(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("power_state: would run"));
    assert_eq!(m.lines("/order.log"), ["user1", "user2", "runcmd", "user2"]);
    assert_eq!(m.lines("/bootcmd.log"), ["boot i-1", "boot i-1"]);
    assert_eq!(
        m.lines("/perboot.log"),
        ["a", "b", "ember", "a", "b", "ember"]
    );
    assert_eq!(m.lines("/perinstance.log"), ["i"]);
    assert_eq!(m.lines("/peronce.log"), ["o"]);
    assert_eq!(m.lines("/vendor.log"), ["vendor"]);
    let st = m.status();
    assert_eq!(
        step_result(&st, "config", "module runcmd"),
        "skipped (once-per-instance done)"
    );
    assert_eq!(
        step_result(&st, "final", "module scripts_per_once"),
        "skipped (once done)"
    );

    // Boot 3, a new instance: per-instance work runs again, per-once never.
    let runcmd2 = json!(["echo runcmd2 >> /order.log"]);
    let h2 = handoff(&m, "i-2", runcmd2);
    m.boot(&h2);
    let out = m.all("boot-c");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/order.log"),
        ["user1", "user2", "runcmd", "user2", "user1", "user2", "runcmd2"]
    );
    assert_eq!(
        m.lines("/bootcmd.log"),
        ["boot i-1", "boot i-1", "boot i-2"]
    );
    assert_eq!(m.lines("/perboot.log").len(), 9);
    assert_eq!(m.lines("/perinstance.log"), ["i", "i"]);
    assert_eq!(m.lines("/peronce.log"), ["o"]);
    assert_eq!(m.lines("/vendor.log"), ["vendor", "vendor"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("would run: shutdown -r +1 bye"));
}

#[test]
fn failing_runcmd_fails_final_and_the_rest_still_runs() {
    if cannot_chroot() {
        return;
    }
    let m = machine("fail");
    image_scripts(&m);
    let h = handoff(&m, "i-f", json!(["echo before >> /order.log", "exit 3"]));
    m.boot(&h);
    for args in [&["init"][..], &["modules", "--mode", "config"]] {
        assert!(m.ember("b1", args).status.success());
    }
    // Before final: no result.json, and `status --wait` keeps waiting.
    assert!(!m.run.join("cloud-init/result.json").exists());
    assert!(!m
        .target
        .join("var/lib/cloud/instances/i-f/boot-finished")
        .exists());
    let mut waiter = Command::new(common::EMBER)
        .arg("--run")
        .arg(&m.run)
        .args(["status", "--wait"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "status --wait returned before final"
    );

    let out = m.ember("b1", &["modules", "--mode", "final"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // The other modules ran: scripts after runcmd's, the per-boot folder, final_message.
    assert_eq!(m.lines("/order.log"), ["user1", "user2", "before"]);
    assert_eq!(m.lines("/perboot.log"), ["a", "b", "ember"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("done via "));
    let st = m.status();
    assert_eq!(step_result(&st, "final", "module scripts_user"), "error");
    assert_eq!(step_result(&st, "final", "module final_message"), "ok");
    let errors = st["stages"]["final"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["code"], "script-failed");
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .ends_with("exited with status 3"));
    let result: Value =
        serde_json::from_slice(&std::fs::read(m.run.join("cloud-init/result.json")).unwrap())
            .unwrap();
    assert_eq!(result["v1"]["errors"].as_array().unwrap().len(), 1);
    assert!(m
        .target
        .join("var/lib/cloud/instances/i-f/boot-finished")
        .exists());

    // The waiter is released by final's end, with cloud-init's exit code for an error.
    let t0 = Instant::now();
    let code = loop {
        if let Some(s) = waiter.try_wait().unwrap() {
            break s.code();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "status --wait did not return"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(code, Some(1));
    common::assert_no_panic(&waiter.wait_with_output().unwrap());

    // The failed script is not run again on the next boot (at most once per instance).
    m.boot(&h);
    let out = m.all("b2");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/order.log"), ["user1", "user2", "before", "user2"]);
}

/// Issue 37 (never hang): a bootcmd that starts a daemon in the background without
/// redirecting its output must not hold `ember init`, which runs before sshd. cloud-init waits
/// for its child to exit, not for the end of its output pipe.
#[test]
fn a_daemon_left_holding_the_output_does_not_hold_the_stage() {
    if cannot_chroot() {
        return;
    }
    let m = machine("daemon");
    // busybox's sh gives a background job /dev/null for its input.
    std::fs::create_dir_all(m.target.join("dev")).unwrap();
    let null = m.target.join("dev/null");
    assert!(Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .unwrap()
        .success());
    let mut h = handoff(&m, "i-d", json!([]));
    h["modules"][0]["config"]["bootcmd"] = json!(["sleep 60 & echo daemon-left-behind"]);
    m.boot(&h);
    let started = Instant::now();
    let out = m.ember("b1", &["init"]);
    assert!(out.status.success(), "{}", text(&out));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "init took {took:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("daemon-left-behind"));
    assert!(m
        .read("/var/log/cloud-init-output.log")
        .contains("daemon-left-behind"));
}

#[test]
fn init_runs_boothooks_host_keys_and_restorecon() {
    if cannot_chroot() {
        return;
    }
    let m = machine("init");
    let mut h = handoff(&m, "i-k", json!([]));
    let hook = "/var/lib/cloud/instances/i-k/boothooks/part-003";
    m.write(
        hook,
        "#!/bin/sh\necho \"hook $INSTANCE_ID\" >> /hook.log\n",
        0o700,
    );
    h["boothooks"] = json!([{"path": hook, "frequency": "always"}]);
    m.write(
        "/usr/bin/ssh-keygen",
        "#!/bin/sh\necho \"$*\" >> /keygen.log\nwhile [ $# -gt 0 ]; do [ \"$1\" = -f ] && f=$2; shift; done\necho key > \"$f\"\n",
        0o755,
    );
    m.write("/etc/ssh/ssh_host_ed25519_key", "existing\n", 0o600);
    m.write(
        "/var/lib/ember/pending-hostkeys",
        "rsa\nbogus\ned25519\n",
        0o600,
    );
    m.write("/usr/sbin/selinuxenabled", "#!/bin/sh\nexit 0\n", 0o755);
    m.write(
        "/usr/sbin/restorecon",
        "#!/bin/sh\necho \"$*\" >> /restorecon.log\n",
        0o755,
    );
    m.write(
        "/var/lib/ember/restorecon.list",
        "/home/u/.ssh\n/etc/ssh\n",
        0o600,
    );
    m.boot(&h);

    let out = m.ember("k1", &["init"]);
    assert_eq!(out.status.code(), Some(1), "bogus key type: {}", text(&out));
    assert_eq!(m.lines("/hook.log"), ["hook i-k"]);
    assert_eq!(
        m.lines("/keygen.log"),
        ["-q -N  -t rsa -f /etc/ssh/ssh_host_rsa_key"]
    );
    assert_eq!(m.read("/etc/ssh/ssh_host_rsa_key"), "key\n");
    assert_eq!(m.read("/etc/ssh/ssh_host_ed25519_key"), "existing\n");
    assert!(!m.target.join("var/lib/ember/pending-hostkeys").exists());
    assert_eq!(m.lines("/restorecon.log"), ["-F -R /home/u/.ssh /etc/ssh"]);
    assert!(!m.target.join("var/lib/ember/restorecon.list").exists());

    // The init steps stay in the config stage's record once the config stage has run.
    assert!(m
        .ember("k1", &["modules", "--mode", "config"])
        .status
        .success());
    let st = m.status();
    let names: Vec<&str> = st["stages"]["config"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names[..4],
        [
            "init/restorecon",
            "init/boothooks",
            "init/module bootcmd",
            "init/hostkeys"
        ]
    );
    assert_eq!(step_result(&st, "config", "init/hostkeys"), "error");
    let errors = st["stages"]["config"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["code"], "hostkey-type");
    assert!(!errors[0]["message"].as_str().unwrap().contains("bogus"));
}

/// `ember init` runs before sshd and may take long (RSA host keys under emulation took 16 s
/// in the Debian QEMU boot): its time is part of the config stage's duration, which `ember
/// status` shows, not only of its steps.
#[test]
fn config_duration_counts_the_init_work() {
    if cannot_chroot() {
        return;
    }
    let m = machine("init-time");
    let h = handoff(&m, "i-t", json!([]));
    m.write(
        "/usr/bin/ssh-keygen",
        "#!/bin/sh\nsleep 1\nwhile [ $# -gt 0 ]; do [ \"$1\" = -f ] && f=$2; shift; done\necho key > \"$f\"\n",
        0o755,
    );
    m.write("/var/lib/ember/pending-hostkeys", "rsa\n", 0o600);
    m.boot(&h);
    for args in [&["init"][..], &["modules", "--mode", "config"]] {
        let out = m.ember("t1", args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
    }
    let config = &m.status()["stages"]["config"];
    let keys = config["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "init/hostkeys")
        .expect("the host key step")["duration_us"]
        .as_u64()
        .unwrap();
    assert!(keys >= 1_000_000, "ssh-keygen slept 1 s: {keys} µs");
    let total = config["duration_us"].as_u64().unwrap();
    assert!(
        total > keys,
        "config lasted {total} µs, its host keys {keys} µs"
    );
}

#[test]
fn without_a_handoff_there_is_nothing_to_do() {
    let m = machine("none");
    std::fs::create_dir_all(&m.run).unwrap();
    for args in [&["init"][..], &["modules", "--mode", "final"]] {
        let out = m.ember("x", args);
        assert!(out.status.success(), "{}", text(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("no handoff"));
    }
    assert!(!m.run.join("ember/status.json").exists());
    let out = m.ember("x", &["modules", "--mode", "sideways"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_broken_handoff_is_an_error_without_its_content() {
    let m = machine("broken");
    std::fs::create_dir_all(m.run.join("ember")).unwrap();
    std::fs::write(
        m.run.join("ember/handoff.json"),
        r#"{"version": "secret-value"}"#,
    )
    .unwrap();
    let out = m.ember("x", &["modules", "--mode", "config"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let st = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    assert!(
        st.contains("handoff-invalid") && !st.contains("secret-value"),
        "{st}"
    );
}

#[test]
fn single_runs_one_module_under_its_semaphore_or_always() {
    if cannot_chroot() {
        return;
    }
    let m = machine("single");
    m.boot(&handoff(&m, "i-1", json!([])));
    let out = m.ember("b1", &["single", "--name", "timezone"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.read("/etc/timezone"), "Europe/Berlin\n");
    std::fs::remove_file(m.target.join("etc/timezone")).unwrap();
    let out = m.ember("b1", &["single", "--name", "cc_timezone"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already ran"),
        "{}",
        text(&out)
    );
    assert!(!m.target.join("etc/timezone").exists());
    let out = m.ember(
        "b1",
        &["single", "--name", "timezone", "--frequency", "always"],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.read("/etc/timezone"), "Europe/Berlin\n");

    let out = m.ember("b1", &["single", "--name", "write_files"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("initramfs"),
        "{}",
        text(&out)
    );
    let out = m.ember("b1", &["single", "--name", "nosuch"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(m.ember("b1", &["single"]).status.code(), Some(2));
}

/// RELIABILITY rule 11: a runcmd that started on an earlier boot and never finished (its
/// `.started` semaphore without the done one, as a power cut leaves it) is reported as
/// interrupted and not run again; the report is given once.
#[test]
fn an_interrupted_runcmd_is_reported_not_repeated() {
    if cannot_chroot() {
        return;
    }
    let m = machine("interrupted");
    image_scripts(&m);
    let h = handoff(&m, "i-1", json!(["echo runcmd >> /order.log"]));
    let sem = format!("/var/lib/ember/instances/{}/sem", enc("i-1"));
    m.write(&format!("{sem}/scripts_user.runcmd.started"), "", 0o600);
    m.boot(&h);
    let out = m.all("boot-a");
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(m.lines("/order.log"), ["user1", "user2"]);
    let st = m.status();
    let errors = st["stages"]["final"]["errors"].to_string();
    assert!(
        errors.contains("\"interrupted\"") && errors.contains("scripts_user.runcmd"),
        "{errors}"
    );
    // The next boot neither runs it nor reports it again.
    m.boot(&h);
    let out = m.all("boot-b");
    assert!(out.status.success(), "{}", text(&out));
    assert!(!m.lines("/order.log").contains(&"runcmd".to_string()));
}

/// As cloud-init: a module that acts with no key of its own (final_message, the script
/// modules) runs with none; one that acts only on its keys (timezone, runcmd) is skipped.
#[test]
fn modules_that_need_no_key_run_without_one() {
    if cannot_chroot() {
        return;
    }
    let m = machine("nokey");
    m.boot_modules(json!([
        module("timezone", "config", "once-per-instance", json!({})),
        module("runcmd", "config", "once-per-instance", json!({})),
        module("scripts_per_boot", "final", "always", json!({})),
        module("final_message", "final", "always", json!({})),
    ]));
    let out = m.all("b1");
    assert!(out.status.success(), "{}", text(&out));
    let st = m.status();
    assert_eq!(
        step_result(&st, "config", "module timezone"),
        "skipped (no config)"
    );
    assert_eq!(
        step_result(&st, "config", "module runcmd"),
        "skipped (no config)"
    );
    for name in ["module scripts_per_boot", "module final_message"] {
        let result = step_result(&st, "final", name);
        assert!(!result.starts_with("skipped"), "{name}: {result}");
    }
    assert!(text(&out).contains("finished at"), "{}", text(&out));
}
