//! Fault suite, output (RELIABILITY.md rules 1 and 3, and the runner's own state): URLs with
//! passwords typed as people type them, key paths that are user input (escapes, megabytes),
//! and runner state that is hostile (a directory for a semaphore, a huge or NUL-laden handoff,
//! a 5000-digit delay). Nothing secret or raw reaches the console or status.json, output
//! stays bounded, and the runner reports each fault instead of panicking.

use crate::common;
use common::{assert_no_panic, stderr, Machine};

fn nocloud(m: &Machine, user_data: &str) {
    m.seed_files(
        &m.host,
        "seed",
        &[
            ("meta-data", "instance-id: i-output\n"),
            ("user-data", user_data),
        ],
    );
    m.cmdline("ro ds=nocloud;s=/seed/");
}

/// Expected: a password holding an unencoded `?`, `#` or `/` is cut out of every message with
/// the rest of the user info; the include's failure is still reported, naming the host.
#[test]
fn include_urls_with_unencoded_password_characters_never_show_the_password() {
    let m = Machine::new("out-userinfo");
    nocloud(
        &m,
        "#include\nhttp://ann:pA?s5#W0rd@127.0.0.1:9/ud\nhttp://bob:sE/cR?3t@127.0.0.1:9/ud2\n",
    );
    let out = m.initrd("all");
    assert_no_panic(&out);
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    for (what, text) in [("console", stderr(&out)), ("status.json", status)] {
        for secret in ["ann", "pA", "s5", "W0rd", "bob", "sE", "cR", "3t@"] {
            assert!(!text.contains(secret), "{secret} in the {what}:\n{text}");
        }
        assert!(text.contains("http://127.0.0.1:9/ud"), "{what}:\n{text}");
    }
}

/// Expected: an unknown key holding terminal escapes is shown with them replaced, and 230
/// unknown keys of 65 000 characters print a bounded report: each key cut, and past the
/// first hundred warnings one entry counting the rest. The boot's real work is still done.
#[test]
fn hostile_key_paths_reach_the_console_printable_and_bounded() {
    let m = Machine::new("out-keys");
    let mut ud = String::from("#cloud-config\n\"\\e]0;owned\\a\\e[2J\": 1\n");
    for i in 0..230 {
        ud.push_str(&format!("? k{i:03}{}\n: 1\n", "x".repeat(65_000)));
    }
    ud.push_str("write_files:\n  - path: /etc/kept\n    content: kept\n");
    nocloud(&m, &ud);
    let out = m.initrd("all");
    assert_no_panic(&out);
    assert_eq!(m.target_file("etc/kept"), "kept");
    let console = stderr(&out);
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    assert!(!console.contains('\u{1b}'), "an escape reached the console");
    assert!(!status.contains("\\u001b"), "an escape reached status.json");
    assert!(
        console.len() < 64 * 1024,
        "console: {} bytes",
        console.len()
    );
    assert!(
        status.len() < 128 * 1024,
        "status.json: {} bytes",
        status.len()
    );
    assert!(console.contains("more not listed"), "{console}");
}

/// The runner's config stage on machine `m`, for this boot.
fn runner_config(m: &Machine) -> std::process::Output {
    m.write(&m.host, "proc/sys/kernel/random/boot_id", b"boot-1\n");
    common::run(
        std::process::Command::new(common::EMBER)
            .arg("--target")
            .arg(&m.target)
            .arg("--run")
            .arg(&m.run)
            .arg("--host")
            .arg(&m.host)
            .args(["modules", "--mode", "config"]),
    )
}

/// The config stage's diagnostics with `code`, as `(key or file, message)`.
fn config_diags(m: &Machine, code: &str) -> Vec<(String, String)> {
    let stage = &m.status()["stages"]["config"];
    let lists = ["errors", "recoverable_errors"].map(|k| stage[k].as_array().unwrap().clone());
    lists
        .concat()
        .into_iter()
        .filter(|d| d["code"] == code)
        .map(|d| {
            let at = d["key"].as_str().or(d["file"].as_str()).unwrap_or("");
            (at.to_string(), d["message"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Expected: a semaphore that is a directory, a FIFO, a link (dangling or to a file) or below
/// a directory that is a link is reported with its path and what it is, and the module is
/// not run (running it again is what semaphores prevent); a handoff whose runcmd holds NULs
/// and 100 000 entries reports each NUL item and keeps the rest; a power_state delay of 5000
/// digits is refused by key. No panic anywhere.
#[test]
fn hostile_runner_state_is_reported_never_panics_never_reruns() {
    let m = Machine::new("out-runner");
    nocloud(
        &m,
        "#cloud-config\nruncmd: [echo one]\npower_state: {mode: reboot, delay: '+1'}\n",
    );
    assert_eq!(m.initrd("all").status.code(), Some(0));
    let sem = m.target.join("var/lib/ember/instances/i-output/sem/runcmd");
    std::fs::create_dir_all(&sem).unwrap();
    let script = m
        .target
        .join("var/lib/cloud/instances/i-output/scripts/runcmd");

    let out = runner_config(&m);
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!script.exists(), "runcmd ran under an unreadable semaphore");
    let sem_diags = config_diags(&m, "semaphore-unreadable");
    assert_eq!(sem_diags.len(), 1, "{sem_diags:?}");
    assert!(sem_diags[0]
        .1
        .contains("/var/lib/ember/instances/i-output/sem/runcmd"));
    std::fs::remove_dir(&sem).unwrap();

    // Whatever stands at a semaphore's name (or at a directory above it, below ember's state
    // directory) and is not a regular file reached without a link: not run, and reported
    // with the path and what it is, in status and in `ember status --long`.
    let sem_dir = sem.parent().unwrap().to_path_buf();
    let moved = m.target.join("var/lib/ember/instances/i-output/sem-moved");
    type Plant = fn(&std::path::Path, &std::path::Path, &std::path::Path);
    let kinds: [(&str, Plant); 5] = [
        ("a directory", |sem, _, _| std::fs::create_dir(sem).unwrap()),
        ("a FIFO", |sem, _, _| {
            let mode = rustix::fs::Mode::from_raw_mode(0o644);
            let fifo = rustix::fs::FileType::Fifo;
            rustix::fs::mknodat(rustix::fs::CWD, sem, fifo, mode, 0).unwrap();
        }),
        ("a symbolic link", |sem, _, _| {
            std::os::unix::fs::symlink("/nonexistent", sem).unwrap();
        }),
        ("a symbolic link", |sem, _, _| {
            std::os::unix::fs::symlink("/etc/os-release", sem).unwrap();
        }),
        ("sem is a symbolic link", |_, dir, moved| {
            std::fs::rename(dir, moved).unwrap();
            std::os::unix::fs::symlink("/nonexistent", dir).unwrap();
        }),
    ];
    for (n, (what, plant)) in kinds.iter().enumerate() {
        plant(&sem, &sem_dir, &moved);
        let out = runner_config(&m);
        assert_ne!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
        assert!(
            !script.exists(),
            "runcmd ran under a semaphore that is {what} ({n})"
        );
        // With `sem` a link, every module of the stage is reported: runcmd once.
        let sem_diags: Vec<_> = config_diags(&m, "semaphore-unreadable")
            .into_iter()
            .filter(|d| d.1.contains("/sem/runcmd"))
            .collect();
        assert_eq!(sem_diags.len(), 1, "{what} ({n}): {sem_diags:?}");
        let message = &sem_diags[0].1;
        assert!(message.contains(what), "{message}");
        let long = m.ember(&["--target", m.target.to_str().unwrap(), "status", "--long"]);
        let long = common::stdout(&long);
        assert!(
            long.contains("/sem/runcmd") && long.contains(what),
            "{long}"
        );
        match std::fs::symlink_metadata(&sem_dir).unwrap().is_symlink() {
            true => {
                std::fs::remove_file(&sem_dir).unwrap();
                std::fs::rename(&moved, &sem_dir).unwrap();
            }
            false if sem.is_dir() => std::fs::remove_dir(&sem).unwrap(),
            false => std::fs::remove_file(&sem).unwrap(),
        }
    }

    // A handoff as a hostile runner state: NULs, 100 000 commands, a 5000-digit delay.
    let handoff_path = m.run.join("ember/handoff.json");
    let mut handoff: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&handoff_path).unwrap()).unwrap();
    let mut runcmd = vec![
        serde_json::json!("echo a\u{0}b"),
        serde_json::json!(["echo", "\u{0}"]),
    ];
    runcmd.extend((0..100_000).map(|i| serde_json::json!(format!("echo {i}"))));
    for call in handoff["modules"].as_array_mut().unwrap() {
        match call["name"].as_str() {
            Some("runcmd") => call["config"]["runcmd"] = runcmd.clone().into(),
            Some("power_state_change") => {
                call["stage"] = "config".into();
                call["config"]["power_state"]["delay"] = "9".repeat(5000).into();
            }
            _ => {}
        }
    }
    std::fs::write(&handoff_path, handoff.to_string()).unwrap();
    let out = runner_config(&m);
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    let nul_keys: Vec<String> = config_diags(&m, "bad-value")
        .into_iter()
        .map(|d| d.0)
        .collect();
    assert_eq!(nul_keys, ["runcmd.0", "runcmd.1"]);
    let written = std::fs::read_to_string(&script).unwrap();
    assert_eq!(
        written.lines().count(),
        1 + 100_000,
        "the other commands are kept"
    );
    assert!(!written.contains('\0'));
    let delay: Vec<String> = config_diags(&m, "wrong-type")
        .into_iter()
        .map(|d| d.0)
        .collect();
    assert_eq!(delay, ["power_state.delay"]);
    assert!(!stderr(&out).contains("shutdown"), "{}", stderr(&out));
}
