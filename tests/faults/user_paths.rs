//! Fault suite, paths another user controls (RELIABILITY.md rule 13): a user's home, `~/.ssh`
//! and directories anyone can write (`/tmp`) hold links, FIFOs and files of other users that
//! would make root read or write what it should not. ember refuses each by name (never by
//! content), does not hang, and neither prints nor gives away what lies behind them.

use crate::common;
use common::chroot;
use serde_json::{json, Value};
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A root-only line that parses as a key: it must never reach the console as a user's key.
const SECRET_LINE: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRootOnly root-only-marker\n";
const USER_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm ann@laptop\n";
const PASSWD: &str = "root:x:0:0::/root:/bin/sh\nann:x:1000:1000::/home/ann:/bin/sh\n\
                      bob:x:1001:1001::/home/bob:/bin/sh\n";
const HOSTILE_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttackerKey x@y";

fn chown(p: &Path, uid: u32) {
    std::os::unix::fs::lchown(p, Some(uid), Some(uid)).unwrap();
}

fn as_root() -> bool {
    let root = rustix::process::geteuid().is_root();
    if !root {
        assert!(std::env::var_os("CI").is_none(), "under CI: run as root");
        common::skip("these tests give files to other users: run them as root");
    }
    root
}

/// A runner machine with ann and bob, a root-only secret file, and ann's home owned by her.
fn runner_machine(name: &str) -> chroot::Machine {
    let m = chroot::Machine::new(name, &[]);
    m.write("/etc/passwd", PASSWD, 0o644);
    m.write("/etc/secret-keys", SECRET_LINE, 0o600);
    m.write("/root/.ssh/authorized_keys", SECRET_LINE, 0o600);
    std::fs::create_dir_all(m.target.join("home/ann")).unwrap();
    chown(&m.target.join("home/ann"), 1000);
    m
}

/// `ember modules --mode final` running ssh_authkey_fingerprints for ann, ended after 20
/// seconds (a FIFO opened for reading would block for ever); its stdout and the final stage's
/// warning messages.
fn fingerprints(m: &chroot::Machine) -> (String, Vec<String>) {
    let cfg = json!({"users": ["default"], "system_info": {"default_user": {"name": "ann"}}});
    m.boot_modules(
        json!([{"name": "ssh_authkey_fingerprints", "stage": "final",
        "frequency": "once-per-instance", "config": cfg}]),
    );
    let mut child = Command::new(common::EMBER)
        .arg("--target")
        .arg(&m.target)
        .arg("--run")
        .arg(&m.run)
        .arg("--host")
        .arg(common::boot_host(&m.dir, "boot-1"))
        .args(["modules", "--mode", "final"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the runner hung reading ann's authorized_keys");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    common::assert_no_panic(&out);
    let st = m.status();
    let warnings = st["stages"]["final"]["recoverable_errors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| d["message"].as_str().unwrap_or("").to_string())
        .collect();
    (common::text(&out), warnings)
}

/// Nothing of the root-only file on the console or in the warnings, and one warning that names
/// ann and `path`.
fn assert_skipped(out: &str, warnings: &[String], path: &str) {
    assert!(!out.contains("root-only-marker"), "{out}");
    assert!(!out.contains("RootOnly"), "{out}");
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("marker") || w.contains("AAAA")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("ann") && w.contains(path)),
        "no warning names ann and {path}: {warnings:?}"
    );
}

/// Expected: ann's `~/.ssh/authorized_keys` is a link to a root-only file; nothing of it is
/// printed, and a warning names ann and the file.
#[test]
fn fingerprints_of_an_authorized_keys_link_are_not_printed() {
    if !as_root() {
        return;
    }
    let m = runner_machine("up-fp-link");
    std::fs::create_dir_all(m.target.join("home/ann/.ssh")).unwrap();
    chown(&m.target.join("home/ann/.ssh"), 1000);
    symlink(
        "/etc/secret-keys",
        m.target.join("home/ann/.ssh/authorized_keys"),
    )
    .unwrap();
    let (out, warnings) = fingerprints(&m);
    assert_skipped(&out, &warnings, "/home/ann/.ssh/authorized_keys");
}

/// Expected: ann's `~/.ssh` is a link to root's (a parent component inside the home); root's
/// keys are not printed as hers.
#[test]
fn fingerprints_through_a_linked_ssh_directory_are_not_printed() {
    if !as_root() {
        return;
    }
    let m = runner_machine("up-fp-dir");
    symlink("/root/.ssh", m.target.join("home/ann/.ssh")).unwrap();
    let (out, warnings) = fingerprints(&m);
    assert_skipped(&out, &warnings, "/home/ann/.ssh");
}

/// Expected: ann's home itself is a link to `/root` (made in root's own `/home`, so no
/// directory others can write is on the way): root's keys are not printed as hers.
#[test]
fn fingerprints_through_a_home_that_is_a_link_are_not_printed() {
    if !as_root() {
        return;
    }
    let m = runner_machine("up-fp-home");
    std::fs::remove_dir(m.target.join("home/ann")).unwrap();
    symlink("/root", m.target.join("home/ann")).unwrap();
    let (out, warnings) = fingerprints(&m);
    assert_skipped(&out, &warnings, "/home/ann");
}

/// Expected: a FIFO as ann's authorized_keys ends the module at once with a warning.
#[test]
fn fingerprints_of_a_fifo_neither_hang_nor_print() {
    if !as_root() {
        return;
    }
    let m = runner_machine("up-fp-fifo");
    let ssh = m.target.join("home/ann/.ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    chown(&ssh, 1000);
    let fifo = ssh.join("authorized_keys");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    chown(&fifo, 1000);
    let (out, warnings) = fingerprints(&m);
    assert_skipped(&out, &warnings, "/home/ann/.ssh/authorized_keys");
}

/// Expected: ann's home is owned by bob, who could put any key there: her file is not read,
/// and not written either (the users module refuses her key).
#[test]
fn a_home_owned_by_another_user_is_neither_read_nor_written() {
    if !as_root() {
        return;
    }
    let m = runner_machine("up-fp-owner");
    m.write("/home/ann/.ssh/authorized_keys", USER_KEY, 0o600);
    for p in ["home/ann", "home/ann/.ssh", "home/ann/.ssh/authorized_keys"] {
        chown(&m.target.join(p), 1001);
    }
    let (out, warnings) = fingerprints(&m);
    assert!(!out.contains("ann@laptop"), "{out}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("ann") && w.contains("/home/ann") && w.contains("another user")),
        "{warnings:?}"
    );

    let ud = format!(
        "#cloud-config\nusers:\n  - {{name: ann, ssh_authorized_keys: ['{HOSTILE_KEY}']}}\n"
    );
    let m = initrd_machine("up-owner-write", &ud);
    let home = m.target.join("home/ann");
    std::fs::create_dir_all(&home).unwrap();
    chown(&home, 1001);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert!(
        !home.join(".ssh").exists(),
        "ann's keys written into bob's home"
    );
    let msgs = messages(&m);
    assert!(
        msgs.iter()
            .any(|d| d.contains("/home/ann") && d.contains("another user")),
        "{msgs:#?}"
    );
}

fn initrd_machine(name: &str, user_data: &str) -> common::Machine {
    let m = common::Machine::new(name);
    let t = &m.target;
    m.write(t, "etc/passwd", PASSWD.as_bytes());
    m.write(t, "etc/group", b"root:x:0:\nann:x:1000:\nbob:x:1001:\n");
    m.write(t, "etc/shadow", b"root:*:19000:0:99999:7:::\n");
    m.write(t, "etc/gshadow", b"root:*::\n");
    std::fs::create_dir_all(t.join("tmp")).unwrap();
    std::fs::set_permissions(t.join("tmp"), std::fs::Permissions::from_mode(0o1777)).unwrap();
    m.seed_files(
        t,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", "instance-id: i-user-paths\n"),
            ("user-data", user_data),
        ],
    );
    m
}

/// `key message` of every diagnostic.
fn messages(m: &common::Machine) -> Vec<String> {
    m.diags()
        .into_iter()
        .map(|d: Value| format!("{} {}", d["key"], d["message"]))
        .collect()
}

/// Expected: write_files for ann into her home, where `~/.ssh` links to `/etc` and
/// `~/.config` to `/root`; and into `/tmp`, where bob planted `/tmp/app -> /etc`: each item is
/// refused naming its key and the link, nothing lands in /etc or /root, and the plain item
/// beside them is written, hers.
#[test]
fn write_files_through_links_in_user_directories_is_refused() {
    if !as_root() {
        return;
    }
    let ud = "#cloud-config\nwrite_files:\n\
              - {path: /home/ann/.ssh/config, content: x, owner: 'ann:ann'}\n\
              - {path: /home/ann/.config/autostart/a.desktop, content: x, owner: 'ann:ann'}\n\
              - {path: /tmp/app/evil.conf, content: x}\n\
              - {path: /home/ann/.profile, content: ok, owner: 'ann:ann'}\n";
    let m = initrd_machine("up-wf-links", ud);
    let t = &m.target;
    std::fs::create_dir_all(t.join("home/ann")).unwrap();
    std::fs::create_dir_all(t.join("root")).unwrap();
    chown(&t.join("home/ann"), 1000);
    symlink("/etc", t.join("home/ann/.ssh")).unwrap();
    symlink("/root", t.join("home/ann/.config")).unwrap();
    symlink("/etc", t.join("tmp/app")).unwrap();
    for link in ["home/ann/.ssh", "home/ann/.config", "tmp/app"] {
        chown(
            &t.join(link),
            if link.starts_with("tmp") { 1001 } else { 1000 },
        );
    }
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert!(
        !t.join("etc/config").exists(),
        "written through ~/.ssh -> /etc"
    );
    assert!(
        !t.join("root/autostart").exists(),
        "written through ~/.config -> /root"
    );
    assert!(
        !t.join("etc/evil.conf").exists(),
        "written through /tmp/app -> /etc"
    );
    let msgs = messages(&m);
    for (i, link) in [
        (0, "/home/ann/.ssh"),
        (1, "/home/ann/.config"),
        (2, "/tmp/app"),
    ] {
        assert!(
            msgs.iter().any(|d| d.contains(&format!("write_files.{i}"))
                && d.contains(link)
                && d.contains("symbolic link")),
            "item {i}: {msgs:#?}"
        );
    }
    let profile = t.join("home/ann/.profile");
    assert_eq!(std::fs::read_to_string(&profile).unwrap(), "ok");
    assert_eq!(std::fs::metadata(&profile).unwrap().uid(), 1000);
}

/// Expected: an `append: true` item aimed at `/tmp/log`, a file bob planted there, is refused:
/// root's content does not go into bob's file.
#[test]
fn write_files_appends_to_another_users_file_are_refused() {
    if !as_root() {
        return;
    }
    let ud = "#cloud-config\nwrite_files:\n\
              - {path: /tmp/log, content: root-secret, append: true, permissions: '0600'}\n";
    let m = initrd_machine("up-wf-append", ud);
    let log = m.target.join("tmp/log");
    std::fs::write(&log, "bob's\n").unwrap();
    chown(&log, 1001);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "bob's\n");
    let msgs = messages(&m);
    assert!(
        msgs.iter().any(|d| d.contains("write_files.0")
            && d.contains("/tmp/log")
            && d.contains("another user")),
        "{msgs:#?}"
    );
}

/// Expected: a home listed below a directory others can write, where a link was planted above
/// the home (`/tmp/guests -> /root`, home `/tmp/guests/cid`): the user's keys are refused
/// naming the link, and nothing is made in /root.
#[test]
fn authorized_keys_through_a_link_above_the_home_in_a_writable_directory_are_refused() {
    if !as_root() {
        return;
    }
    let ud = format!(
        "#cloud-config\nusers:\n  - {{name: cid, homedir: /tmp/guests/cid, ssh_authorized_keys: ['{HOSTILE_KEY}']}}\n"
    );
    let m = initrd_machine("up-keys-above", &ud);
    let t = &m.target;
    m.write(
        t,
        "etc/passwd",
        format!("{PASSWD}cid:x:1002:1002::/tmp/guests/cid:/bin/sh\n").as_bytes(),
    );
    m.write(
        t,
        "etc/group",
        b"root:x:0:\nann:x:1000:\nbob:x:1001:\ncid:x:1002:\n",
    );
    std::fs::create_dir_all(t.join("root")).unwrap();
    std::fs::set_permissions(t.join("root"), std::fs::Permissions::from_mode(0o700)).unwrap();
    symlink("/root", t.join("tmp/guests")).unwrap();
    chown(&t.join("tmp/guests"), 1001);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert!(!t.join("root/cid").exists(), "a home made in /root");
    let msgs = messages(&m);
    assert!(
        msgs.iter()
            .any(|d| d.contains("/tmp/guests") && d.contains("symbolic link")),
        "{msgs:#?}"
    );
}

/// Expected: a new user's home goes below `/tmp/x`, a link bob planted to `/etc`: the home is
/// refused naming the link; no directory of the user's and no copy of /etc/skel lands in /etc.
#[test]
fn a_new_home_through_a_link_in_a_writable_directory_is_refused() {
    if !as_root() {
        return;
    }
    let ud = "#cloud-config\nusers:\n  - {name: dan, homedir: /tmp/x/dan}\n";
    let m = initrd_machine("up-new-home", ud);
    let t = &m.target;
    m.write(t, "etc/skel/.profile", b"skel\n");
    symlink("/etc", t.join("tmp/x")).unwrap();
    chown(&t.join("tmp/x"), 1001);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert!(!t.join("etc/dan").exists(), "dan's home made in /etc");
    let msgs = messages(&m);
    assert!(
        msgs.iter()
            .any(|d| d.contains("/tmp/x") && d.contains("symbolic link")),
        "{msgs:#?}"
    );
}

/// Expected: a `defer: true` item for ann, left for the runner, aimed through `~/.config`, a
/// link she planted to `/etc`: the runner refuses it naming the link; nothing lands in /etc.
#[test]
fn deferred_write_files_through_a_link_in_a_home_are_refused() {
    if !as_root() {
        return;
    }
    let m = runner_machine("up-deferred");
    m.write("/etc/group", "root:x:0:\nann:x:1000:\nbob:x:1001:\n", 0o644);
    symlink("/etc", m.target.join("home/ann/.config")).unwrap();
    chown(&m.target.join("home/ann/.config"), 1000);
    let items = json!([{"path": "/home/ann/.config/sudoers.d/ann", "content_b64": "eA==",
        "permissions": 0o644, "owner": "ann:ann", "append": false}]);
    m.write(
        "/var/lib/ember/deferred/write_files.json",
        &items.to_string(),
        0o600,
    );
    m.boot_modules(json!([{"name": "write_files_deferred", "stage": "final",
        "frequency": "once-per-instance", "config": {"write_files": [
            {"path": "/home/ann/.config/sudoers.d/ann", "owner": "ann:ann", "defer": true}]}}]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    common::assert_no_panic(&out);
    assert!(
        !m.target.join("etc/sudoers.d").exists(),
        "written through ~/.config -> /etc"
    );
    let errors: Vec<String> = m.status()["stages"]["final"]["errors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| format!("{} {}", d["key"], d["message"]))
        .collect();
    assert!(
        errors.iter().any(|e| e.contains("write_files_deferred.0")
            && e.contains("/home/ann/.config")
            && e.contains("symbolic link")),
        "{errors:#?}"
    );
}
