//! The runner's access modules against a target holding a static busybox: ssh_import_id (fake
//! `ssh-import-id`, `sudo`, `doas`), ssh_authkey_fingerprints and keys_to_console (the console
//! checked against the host's real `ssh-keygen -l`), wireguard (fake `wg`, `lsmod`, `modprobe`,
//! `systemctl`, `apt-get`), the seed command, and GCE host key publishing end to end: the real
//! `ember-initrd all` against the GCE emulator, then the runner's stages with the host's real
//! curl in the target, the emulator recording each PUT.

use crate::common;
use crate::common::target::Accounts;
use common::chroot::{cannot_chroot, Machine};
use common::{have, stdout, text};
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

const APPLETS: &[&str] = &[
    "sh", "echo", "cat", "cp", "mkdir", "rm", "true", "test", "[",
];

fn machine(name: &str, os_release: &str) -> Machine {
    let m = Machine::new(name, APPLETS);
    m.write("/etc/os-release", os_release, 0o644);
    m
}

fn call(name: &str, stage: &str, config: Value) -> Value {
    json!({"name": name, "stage": stage, "frequency": "once-per-instance", "config": config})
}

fn d(sev: &str, code: &str, key: &str) -> (String, String, String) {
    (sev.into(), code.into(), key.into())
}

/// A key made by the host's ssh-keygen at `path` (and `path.pub`); its public line.
fn keygen(path: &Path, key_type: &str, comment: &str) -> String {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let out = Command::new("ssh-keygen")
        .args(["-q", "-N", "", "-t", key_type, "-C", comment, "-f"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    std::fs::read_to_string(path.with_extension("pub")).unwrap()
}

/// `ssh-keygen -l [-E hash] -f file`, as the host's tool prints it.
fn fingerprint(file: &Path, hash: &str) -> String {
    let out = Command::new("ssh-keygen")
        .args(["-l", "-E", hash, "-f"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

#[test]
fn ssh_import_id_runs_as_each_user() {
    if cannot_chroot() {
        return;
    }
    let passwd = "root:x:0:0::/root:/bin/sh\nubuntu:x:1000:1000::/home/ubuntu:/bin/sh\n\
                  bob:x:1001:1001::/home/bob:/bin/sh\ncarl:x:1002:1002::/home/carl:/bin/sh\n";
    let cfg = json!({
        "ssh_import_id": ["gh:alice", "lp:alice"],
        "users": ["default", {"name": "bob", "ssh_import_id": ["gh:bob"]}, {"name": "carl"}],
        "system_info": {"default_user": {"name": "ubuntu"}},
    });
    let m = machine("import", "ID=ubuntu\n");
    m.write("/etc/passwd", passwd, 0o644);
    m.fake("/usr/bin/ssh-import-id", "");
    m.fake("/usr/bin/sudo", "");
    m.fake("/usr/bin/doas", "");
    m.boot_modules(json!([call("ssh_import_id", "config", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    // Each other user with their own ids, then the default user (last, as cloud-init orders
    // it) with the top-level ids; carl has none; sudo wins over doas.
    assert_eq!(
        m.lines("/tools.log"),
        [
            "sudo --preserve-env=https_proxy -Hu bob ssh-import-id gh:bob",
            "sudo --preserve-env=https_proxy -Hu ubuntu ssh-import-id gh:alice lp:alice",
        ]
    );
    assert_eq!(m.diags("config"), []);

    // No sudo: doas. A user the target lacks fails the module; the others are imported.
    let cfg = json!({"users": [{"name": "ghost", "ssh_import_id": ["gh:g"]},
                               {"name": "bob", "ssh-import-id": "gh:b1,gh:b2"}]});
    let m = machine("import-doas", "ID=debian\n");
    m.write("/etc/passwd", passwd, 0o644);
    m.fake("/usr/bin/ssh-import-id", "");
    m.fake("/usr/bin/doas", "");
    m.boot_modules(json!([call("ssh_import_id", "config", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(
        m.lines("/tools.log"),
        ["doas -u bob ssh-import-id gh:b1 gh:b2"]
    );
    assert_eq!(
        m.diags("config"),
        [d("error", "user-missing", "users.ghost.ssh_import_id")]
    );

    // No ssh-import-id in the target: a warning, as cloud-init logs it, and nothing runs.
    let m = machine("import-notool", "ID=debian\n");
    m.write("/etc/passwd", passwd, 0o644);
    m.fake("/usr/bin/sudo", "");
    let cfg = json!({"users": [{"name": "bob", "ssh_import_id": ["gh:bob"]}]});
    m.boot_modules(json!([call("ssh_import_id", "config", cfg)]));
    assert!(m
        .ember("boot-1", &["modules", "--mode", "config"])
        .status
        .success());
    assert!(!m.exists("/tools.log"));
    assert_eq!(
        m.diags("config"),
        [d("warning", "tool-missing", "ssh_import_id")]
    );

    // No ssh_import_id anywhere: nothing, not even that warning.
    let m = machine("import-none", "ID=debian\n");
    let cfg = json!({"users": ["default"], "system_info": {"default_user": {"name": "u"}}});
    m.boot_modules(json!([call("ssh_import_id", "config", cfg)]));
    assert!(m
        .ember("boot-1", &["modules", "--mode", "config"])
        .status
        .success());
    assert_eq!(m.diags("config"), []);
}

/// The `ci-info:` lines of the run's output.
fn ci_info(out: &std::process::Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter(|l| l.starts_with("ci-info: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn authkey_fingerprints_table_per_user() {
    if cannot_chroot() || !have("ssh-keygen") {
        return;
    }
    let m = machine("authkey", "ID=debian\n");
    m.write(
        "/etc/passwd",
        "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n\
         bob:x:1001:1001::/home/bob:/bin/sh\nsvc:x:998:998::/home/svc:/bin/sh\n",
        0o644,
    );
    let src = m.dir.join("keys");
    let ed = keygen(&src.join("ed"), "ed25519", "alice@laptop");
    let ecdsa = keygen(&src.join("ec"), "ecdsa", "alice@desk");
    let keys = format!("# alice's keys\n{ed}no-pty,from=\"10.0.0.0/8\" {ecdsa}");
    m.write("/home/alice/.ssh/authorized_keys", &keys, 0o600);
    m.write("/home/svc/.ssh/authorized_keys", &ed, 0o600);
    let cfg = json!({
        "users": ["default", {"name": "bob"}, {"name": "svc", "system": true}],
        "system_info": {"default_user": {"name": "alice"}},
        "authkey_hash": "md5",
    });
    m.boot_modules(json!([call("ssh_authkey_fingerprints", "final", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    let lines = ci_info(&out);
    // bob first (the default user goes last), svc skipped as a system user.
    assert_eq!(
        lines[0],
        "ci-info: no authorized SSH keys fingerprints found for user bob."
    );
    assert!(
        lines[1].contains("Authorized keys from /home/alice/.ssh/authorized_keys for user alice")
    );
    assert!(lines[1].starts_with("ci-info: +++"), "{}", lines[1]);
    assert!(lines[3].contains("Fingerprint (md5)"), "{lines:?}");
    // The fingerprints are the host ssh-keygen's MD5 ones, rows in the file's order.
    let md5 = |name: &str| {
        let fp = fingerprint(&src.join(format!("{name}.pub")), "md5");
        fp.split_whitespace()
            .nth(1)
            .unwrap()
            .trim_start_matches("MD5:")
            .to_string()
    };
    assert!(
        lines[5].contains(&md5("ed")) && lines[5].contains("alice@laptop"),
        "{lines:?}"
    );
    assert!(
        lines[6].contains(&md5("ec")) && lines[6].contains("no-pty,from="),
        "{lines:?}"
    );
    assert!(lines[6].contains("ecdsa-sha2-nistp256"), "{lines:?}");
    assert_eq!(lines.len(), 8, "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("svc")));
    let widths: Vec<usize> = lines[1..].iter().map(|l| l.chars().count()).collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{lines:?}");
    // The console lines go to the output log too.
    assert!(m.read("/var/log/cloud-init-output.log").contains(&lines[5]));
    assert_eq!(m.diags("final"), []);

    // AuthorizedKeysFile naming a per-user file is read instead; no_ssh_fingerprints: none.
    let m2 = machine("authkey-file", "ID=debian\n");
    m2.write(
        "/etc/passwd",
        "alice:x:1000:1000::/home/alice:/bin/sh\n",
        0o644,
    );
    m2.write(
        "/etc/ssh/sshd_config",
        "AuthorizedKeysFile /etc/ssh/keys/%u\n",
        0o644,
    );
    m2.write("/etc/ssh/keys/alice", &ed, 0o644);
    let cfg = json!({"users": ["default"], "system_info": {"default_user": {"name": "alice"}}});
    m2.boot_modules(json!([call(
        "ssh_authkey_fingerprints",
        "final",
        cfg.clone()
    )]));
    let out = m2.ember("boot-1", &["modules", "--mode", "final"]);
    let lines = ci_info(&out);
    assert!(
        lines[0].contains("from /etc/ssh/keys/alice for user alice"),
        "{lines:?}"
    );
    let sha256 = {
        let fp = fingerprint(&src.join("ed.pub"), "sha256");
        let b64 = fp
            .split_whitespace()
            .nth(1)
            .unwrap()
            .trim_start_matches("SHA256:");
        use base64::Engine as _;
        let raw = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(b64)
            .unwrap();
        raw.iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    assert!(lines[4].contains(&sha256), "{lines:?}");
    let m3 = machine("authkey-off", "ID=debian\n");
    m3.write(
        "/etc/passwd",
        "alice:x:1000:1000::/home/alice:/bin/sh\n",
        0o644,
    );
    let mut off = cfg;
    off["no_ssh_fingerprints"] = json!(true);
    m3.boot_modules(json!([call("ssh_authkey_fingerprints", "final", off)]));
    let out = m3.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(ci_info(&out).is_empty(), "{}", text(&out));
}

/// The lines of the host key blocks in the run's output, without logger's header.
fn key_blocks(out: &std::process::Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter_map(|l| {
            l.split_once(" ec2: ")
                .map(|(h, rest)| (h, rest.to_string()))
        })
        .map(|(h, rest)| {
            assert!(h.starts_with("<14>"), "{h}");
            rest
        })
        .collect()
}

#[test]
fn keys_to_console_prints_every_host_key() {
    if cannot_chroot() || !have("ssh-keygen") {
        return;
    }
    let m = machine("console", "ID=debian\n");
    let ssh = m.target.join("etc/ssh");
    let mut pubs = Vec::new();
    for t in ["ecdsa", "ed25519", "rsa"] {
        pubs.push(keygen(
            &ssh.join(format!("ssh_host_{t}_key")),
            t,
            "root@console",
        ));
    }
    // `ssh` is keys_to_console's key: read, not warned about as unsupported.
    let cfg = json!({"ssh": {"emit_keys_to_console": true}});
    m.boot_modules(json!([call("keys_to_console", "final", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(out.status.success(), "{}", text(&out));
    let lines = key_blocks(&out);
    let mut want = vec![
        String::new(),
        "#".repeat(61),
        "-----BEGIN SSH HOST KEY FINGERPRINTS-----".into(),
    ];
    for t in ["ecdsa", "ed25519", "rsa"] {
        want.push(fingerprint(
            &ssh.join(format!("ssh_host_{t}_key.pub")),
            "sha256",
        ));
    }
    want.extend([
        "-----END SSH HOST KEY FINGERPRINTS-----".into(),
        "#".repeat(61),
        "-----BEGIN SSH HOST KEY KEYS-----".into(),
    ]);
    want.extend(pubs.iter().map(|p| p.trim_end().to_string()));
    want.push("-----END SSH HOST KEY KEYS-----".into());
    assert_eq!(lines, want);
    assert_eq!(m.diags("final"), []);

    // Blacklists by key type, each for its own block; `emit_keys_to_console: false`: nothing.
    let cfg = json!({"ssh_fp_console_blacklist": ["ssh-rsa"],
                     "ssh_key_console_blacklist": ["ecdsa-sha2-nistp256"]});
    let m2 = machine("console-bl", "ID=debian\n");
    std::fs::create_dir_all(m2.target.join("etc")).unwrap();
    let copy = Command::new("cp")
        .arg("-a")
        .arg(&ssh)
        .arg(m2.target.join("etc/ssh"))
        .status()
        .unwrap();
    assert!(copy.success());
    m2.boot_modules(json!([call("keys_to_console", "final", cfg)]));
    let lines = key_blocks(&m2.ember("boot-1", &["modules", "--mode", "final"]));
    assert!(!lines.iter().any(|l| l.ends_with("(RSA)")), "{lines:?}");
    assert!(lines.iter().any(|l| l.ends_with("(ECDSA)")), "{lines:?}");
    assert!(
        !lines.contains(&pubs[0].trim_end().to_string()),
        "{lines:?}"
    );
    assert!(lines.contains(&pubs[2].trim_end().to_string()), "{lines:?}");
    let m3 = machine("console-off", "ID=debian\n");
    m3.boot_modules(json!([call(
        "keys_to_console",
        "final",
        json!({"ssh": {"emit_keys_to_console": false}})
    )]));
    let out = m3.ember("boot-1", &["modules", "--mode", "final"]);
    assert!(!stdout(&out).contains("HOST KEY"), "{}", text(&out));
}

const WG_CONTENT: &str = "[Interface]\nPrivateKey = wg-private-key-9f3a\nAddress = 10.8.0.2/24\n";

#[test]
fn wireguard_interfaces_and_probes() {
    if cannot_chroot() {
        return;
    }
    let m = machine("wg", "ID=ubuntu\n");
    m.fake("/usr/bin/wg", "");
    m.fake("/usr/sbin/lsmod", "echo 'ext4 1 0'");
    m.fake("/usr/sbin/modprobe", "");
    m.fake("/usr/bin/systemctl", "");
    let iface = |n: &str| json!({"name": n, "config_path": format!("/etc/wireguard/{n}.conf"), "content": WG_CONTENT});
    let cfg = json!({"wireguard": {
        "interfaces": [iface("wg0"), iface("wg1")],
        "readinessprobe": ["echo one >> /probe.log", "exit 3", "echo three >> /probe.log"],
    }});
    m.boot_modules(json!([call("wireguard", "config", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(
        !out.status.success(),
        "a failed probe fails the module: {}",
        text(&out)
    );
    assert_eq!(
        m.lines("/tools.log"),
        [
            "lsmod ",
            "modprobe wireguard",
            "systemctl enable wg-quick@wg0",
            "systemctl restart wg-quick@wg0",
            "systemctl enable wg-quick@wg1",
            "systemctl restart wg-quick@wg1",
        ]
    );
    for n in ["wg0", "wg1"] {
        let path = format!("/etc/wireguard/{n}.conf");
        assert_eq!((m.read(&path).as_str(), m.mode(&path)), (WG_CONTENT, 0o600));
    }
    // Every probe ran; the failing one is named by its place, never by its text.
    assert_eq!(m.read("/probe.log"), "one\nthree\n");
    assert_eq!(
        m.diags("config"),
        [d("error", "command-failed", "wireguard.readinessprobe")]
    );
    assert!(!m.exists("/var/lib/ember/wireguard-probe"));
    let secret = "wg-private-key-9f3a";
    assert!(!text(&out).contains(secret));
    assert!(!m.read("/var/log/cloud-init-output.log").contains(secret));
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    assert!(!status.contains(secret) && !status.contains("exit 3"));

    // No wg: wireguard-tools installed first; lsmod lists the module: no modprobe.
    let m = machine("wg-install", "ID=ubuntu\n");
    m.fake("/usr/bin/apt-get", "");
    m.fake("/usr/sbin/lsmod", "echo 'wireguard 118784 0'");
    m.fake("/usr/sbin/modprobe", "");
    m.fake("/usr/bin/systemctl", "");
    let cfg = json!({"wireguard": {"interfaces": [iface("wg0")]}});
    m.boot_modules(json!([call("wireguard", "config", cfg)]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    let log = m.lines("/tools.log");
    assert!(
        log[0].starts_with("apt-get ") && log[0].ends_with(" update"),
        "{log:?}"
    );
    assert!(log[1].ends_with(" install wireguard-tools"), "{log:?}");
    assert_eq!(
        log[2..],
        [
            "lsmod ",
            "systemctl enable wg-quick@wg0",
            "systemctl restart wg-quick@wg0"
        ]
    );

    // An interface without its content: the module fails before writing or starting it.
    let m = machine("wg-bad", "ID=ubuntu\n");
    for t in [
        "/usr/bin/wg",
        "/usr/sbin/lsmod",
        "/usr/sbin/modprobe",
        "/usr/bin/systemctl",
    ] {
        m.fake(t, "");
    }
    let cfg =
        json!({"wireguard": {"interfaces": [{"name": "wg0", "config_path": "/etc/wg0.conf"}]}});
    m.boot_modules(json!([call("wireguard", "config", cfg)]));
    m.ember("boot-1", &["modules", "--mode", "config"]);
    assert_eq!(
        m.diags("config"),
        [d("error", "missing-key", "wireguard.interfaces.0")]
    );
    assert!(!m.exists("/etc/wg0.conf"));
    assert!(!m
        .lines("/tools.log")
        .iter()
        .any(|l| l.starts_with("systemctl")));

    // Not Ubuntu: cloud-init's distros for it; skipped without unverified_modules.
    let m = machine("wg-debian", "ID=debian\n");
    m.fake("/usr/bin/systemctl", "");
    m.boot_modules(json!([call(
        "wireguard",
        "config",
        json!({"wireguard": {"interfaces": [iface("wg0")]}})
    )]));
    assert!(m
        .ember("boot-1", &["modules", "--mode", "config"])
        .status
        .success());
    assert!(!m.exists("/etc/wireguard/wg0.conf") && !m.exists("/tools.log"));
}

/// The config stage's step `name` and its result.
fn step(m: &Machine, name: &str) -> Option<String> {
    let st = m.status();
    let steps = st["stages"]["config"]["steps"].as_array().cloned()?;
    steps
        .iter()
        .find(|s| s["name"] == name)
        .map(|s| s["result"].as_str().unwrap_or_default().to_string())
}

#[test]
fn the_seed_command_runs_once_the_network_is_up() {
    if cannot_chroot() {
        return;
    }
    let pending = "/var/lib/ember/seed-random-command.json";
    let m = machine("seedcmd", "ID=debian\n");
    let cmd = json!({"command": ["sh", "-c", "echo \"$RANDOM_SEED_FILE\" >> /seed.log"],
                     "required": true, "file": "/var/lib/my-seed"});
    m.write(pending, &cmd.to_string(), 0o600);
    m.boot_modules(json!([]));
    let out = m.ember("boot-1", &["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(m.read("/seed.log"), "/var/lib/my-seed\n");
    assert_eq!(step(&m, "seed_random command").as_deref(), Some("ok"));
    assert!(!m.exists(pending) && !m.exists("/var/lib/ember/seed-random-command"));
    // Once: the next boot has nothing to run.
    m.boot_modules(json!([]));
    m.ember("boot-2", &["modules", "--mode", "config"]);
    assert_eq!(m.read("/seed.log"), "/var/lib/my-seed\n");
    assert_eq!(step(&m, "seed_random command"), None);

    // Not found: nothing unless it is required, then an error.
    for (required, want) in [
        (false, vec![]),
        (
            true,
            vec![d("error", "tool-missing", "random_seed.command")],
        ),
    ] {
        let m = machine("seedcmd-missing", "ID=debian\n");
        let cmd =
            json!({"command": ["pollinate", "-q"], "required": required, "file": "/dev/urandom"});
        m.write(pending, &cmd.to_string(), 0o600);
        m.boot_modules(json!([]));
        m.ember("boot-1", &["modules", "--mode", "config"]);
        assert_eq!(m.diags("config"), want, "required: {required}");
        assert!(!m.exists(pending));
    }
}

/// Copies the host's `bin` and the libraries `ldd` names into the same paths of `target`.
fn install_host_binary(target: &Path, bin: &str) {
    let dest = |p: &str| target.join(p.trim_start_matches('/'));
    let copy = |p: &str| {
        std::fs::create_dir_all(dest(p).parent().unwrap()).unwrap();
        std::fs::copy(p, dest(p)).unwrap();
    };
    copy(bin);
    let out = Command::new("ldd").arg(bin).output().unwrap();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let path = match line.split_once("=>") {
            Some((_, rest)) => rest.split_whitespace().next(),
            None => line.split_whitespace().next(),
        };
        if let Some(p) = path.filter(|p| p.starts_with('/')) {
            copy(p);
        }
    }
}

/// GCE from ember-initrd to the runner's final stage: Ed25519 and ECDSA made in the
/// initramfs, RSA by `ember init` before sshd, not in the background, since the config stage
/// publishes it (a stand-in ssh-keygen copying a key the host made), then
/// the config stage PUTs each key not blacklisted to the emulator's guest attributes with the
/// target's own curl, and the final stage shows every key's fingerprint.
#[test]
fn gce_host_keys_are_published_after_the_rsa_key_exists() {
    use common::emulator::gce;
    if !rustix::process::geteuid().is_root() || !Path::new("/bin/busybox").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root with busybox-static"
        );
        return common::skip("chroot into the target needs root and /bin/busybox");
    }
    if !have("curl") || !have("ssh-keygen") {
        return;
    }
    let server = gce::start();
    let ud = "#cloud-config\nssh_genkeytypes: [ed25519, ecdsa, rsa]\nssh_publish_hostkeys: {blacklist: [ecdsa]}\n";
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(ud);
    server.attribute("instance", "user-data", Some(&b64));
    let m = common::Machine::new("gce-publish");
    for (f, v) in [
        ("sys_vendor", "Google"),
        ("product_name", "Google Compute Engine"),
        ("bios_vendor", "Google"),
        ("product_serial", "GoogleCloud-5A1B2C3D4E5F"),
    ] {
        m.dmi(f, v);
    }
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let t = &m.target;
    for d in ["bin", "tmp", "root", "home/admin", "dev"] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    std::fs::copy("/bin/busybox", t.join("bin/busybox")).unwrap();
    for applet in ["sh", "cp", "cat", "echo", "mkdir", "[", "test"] {
        symlink("busybox", t.join("bin").join(applet)).unwrap();
    }
    std::fs::write(t.join("dev/null"), "").unwrap();
    install_host_binary(t, "/usr/bin/curl");
    // The RSA key the stand-in ssh-keygen hands out.
    let rsa_pub = keygen(&m.dir.join("rsa/key"), "rsa", "root@gce-vm-1");
    std::fs::copy(m.dir.join("rsa/key"), t.join("rsa-key")).unwrap();
    std::fs::write(t.join("rsa-key.pub"), &rsa_pub).unwrap();
    m.write(
        t,
        "usr/bin/ssh-keygen",
        b"#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = -f ] && f=$2; shift; done\ncp /rsa-key \"$f\" && cp /rsa-key.pub \"$f.pub\"\n",
    );
    std::fs::set_permissions(
        t.join("usr/bin/ssh-keygen"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    Accounts::root().shell("/bin/sh").user("admin").write(t);
    // The image's locale is set: the locale module (on by default) has nothing to do.
    m.write(t, "etc/default/locale", b"LANG=C.UTF-8\n");
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert!(
        server.guest_attributes().is_empty(),
        "nothing before the runner"
    );

    let runner = |args: &[&str]| {
        m.write(&m.host, "proc/sys/kernel/random/boot_id", b"boot-1\n");
        common::run(
            Command::new(common::EMBER)
                .arg("--target")
                .arg(t)
                .arg("--run")
                .arg(&m.run)
                .arg("--host")
                .arg(&m.host)
                .args(args),
        )
    };
    let out = runner(&["init"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.join("etc/ssh/ssh_host_rsa_key.pub").exists());
    assert!(
        server.guest_attributes().is_empty(),
        "ember init has no network"
    );
    let out = runner(&["modules", "--mode", "config"]);
    assert!(out.status.success(), "{}", text(&out));
    let key = |t_: &str| {
        let line =
            std::fs::read_to_string(t.join(format!("etc/ssh/ssh_host_{t_}_key.pub"))).unwrap();
        line.split_whitespace().nth(1).unwrap().to_string()
    };
    assert_eq!(
        server.guest_attributes(),
        [
            ("hostkeys/ssh-ed25519".to_string(), key("ed25519")),
            ("hostkeys/ssh-rsa".to_string(), key("rsa")),
        ]
    );
    let puts: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "PUT")
        .collect();
    assert_eq!(puts.len(), 2);
    assert!(puts
        .iter()
        .all(|r| r.header("metadata-flavor") == Some("Google")));
    assert!(!t.join("var/lib/ember/publish-hostkeys.json").exists());
    let status: Value = serde_json::from_str(&m.run_file("ember/status.json")).unwrap();
    let errors = &status["stages"]["config"]["errors"];
    assert_eq!(errors, &json!([]), "{status}");

    // The final stage: every host key's fingerprint, RSA's included, on the console.
    let out = runner(&["modules", "--mode", "final"]);
    let console = stdout(&out);
    for t_ in ["ecdsa", "ed25519", "rsa"] {
        let fp = fingerprint(&t.join(format!("etc/ssh/ssh_host_{t_}_key.pub")), "sha256");
        assert!(
            console.lines().any(|l| l.ends_with(&format!(" ec2: {fp}"))),
            "{fp}: {console}"
        );
    }
    // And the default user's keys from GCE's metadata, as a table.
    assert!(
        console.contains("Authorized keys from /home/admin/.ssh/authorized_keys for user admin"),
        "{console}"
    );
}
