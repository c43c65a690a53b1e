//! What the booted system shows: keys_to_console's blocks (cloud-init's
//! `write-ssh-key-fingerprints` helper), deferred write_files with their owner, and the
//! output log's owner and mode.

use super::{boot_to_final, check, machine, same, Boot, Row};
use std::os::unix::fs::MetadataExt;

const KEYS: &str = "ssh_genkeytypes: [ed25519, ecdsa]\n";

fn booted(name: &str, user_data: &str) -> Option<Boot> {
    boot_to_final(machine(name, &format!("#cloud-config\n{KEYS}{user_data}")))
}

/// Owner name (from the target's passwd), group id and mode of a target path.
fn stat(b: &Boot, rel: &str) -> Result<(String, u32, u32), String> {
    let meta = std::fs::metadata(b.m.target.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
    let passwd = b.target_file("etc/passwd")?;
    let user = passwd
        .lines()
        .find(|l| l.split(':').nth(2) == Some(&meta.uid().to_string()))
        .and_then(|l| l.split(':').next())
        .unwrap_or("?")
        .to_string();
    Ok((user, meta.gid(), meta.mode() & 0o7777))
}

fn console_has(b: &Boot, text: &str) -> bool {
    b.console.contains(text)
}

const ALL_FINGERPRINTS_BLACKLISTED: &[Row] = &[
    Row {
        upstream: "test_keys_to_console.py::TestAllKeysToConsoleBlacklist::test_header_excluded",
        holds: |b| {
            same(
                "BEGIN header",
                console_has(b, "BEGIN SSH HOST KEY FINGERPRINTS"),
                false,
            )
        },
        differs: None,
    },
    Row {
        upstream: "test_keys_to_console.py::TestAllKeysToConsoleBlacklist::test_footer_excluded",
        holds: |b| {
            same(
                "END footer",
                console_has(b, "END SSH HOST KEY FINGERPRINTS"),
                false,
            )
        },
        differs: None,
    },
    Row {
        upstream: "tools/write-ssh-key-fingerprints (the key block stands on its own blacklist)",
        holds: |b| {
            same(
                "keys block",
                console_has(b, "-----BEGIN SSH HOST KEY KEYS-----"),
                true,
            )?;
            same("an ed25519 key", console_has(b, "ssh-ed25519 AAAA"), true)
        },
        differs: None,
    },
];

const ECDSA_BLACKLISTED: &[Row] = &[
    Row {
        upstream: "test_keys_to_console.py::TestKeysToConsoleBlacklist::test_excluded_keys[ECDSA]",
        holds: |b| same("(ECDSA)", console_has(b, "(ECDSA)"), false),
        differs: None,
    },
    Row {
        upstream:
            "test_keys_to_console.py::TestKeysToConsoleBlacklist::test_included_keys[ED25519]",
        holds: |b| {
            same("(ED25519)", console_has(b, "(ED25519)"), true)?;
            same(
                "ECDSA key printed",
                console_has(b, "ecdsa-sha2-nistp256 AAAA"),
                false,
            )
        },
        differs: None,
    },
];

const DISABLED: &[Row] = &[
    Row {
        upstream: "test_keys_to_console.py::TestKeysToConsoleDisabled::test_keys_excluded[ED25519]",
        holds: |b| same("(ED25519)", console_has(b, "(ED25519)"), false),
        differs: None,
    },
    Row {
        upstream: "test_keys_to_console.py::TestKeysToConsoleDisabled::test_header_excluded",
        holds: |b| same("header", console_has(b, "SSH HOST KEY FINGERPRINTS"), false),
        differs: None,
    },
];

/// The helper runs (its blocks are printed) unless `ssh.emit_keys_to_console` is false.
const EMITTED: &[Row] = &[Row {
    upstream: "config/test_cc_keys_to_console.py::TestHandle::test_emit_keys_to_console_config (default: emitted)",
    holds: |b| {
        same("header", console_has(b, "-----BEGIN SSH HOST KEY FINGERPRINTS-----"), true)?;
        same("(ED25519)", console_has(b, "(ED25519)"), true)?;
        same("(ECDSA)", console_has(b, "(ECDSA)"), true)
    },
    differs: None,
}];

const WRITE_FILES: &str = "users:\n  - name: myuser\nwrite_files:\n-   path: '/home/testuser/my-file'\n    content: |\n      echo 'hello world!'\n    defer: true\n    owner: 'myuser'\n    permissions: '0644'\n    append: true\n-   path: '/home/testuser/subdir1/subdir2/my-file'\n    content: |\n      echo 'hello world!'\n    defer: true\n    owner: 'myuser'\n    permissions: '0644'\n    append: true\n";

const DEFERRED: &[Row] = &[
    Row {
        upstream: "test_write_files.py::TestWriteFiles::test_write_files_deferred",
        holds: |b| {
            same(
                "content",
                b.target_file("home/testuser/my-file")?,
                "echo 'hello world!'\n".into(),
            )?;
            let (user, _, mode) = stat(b, "home/testuser/my-file")?;
            same("owner and mode", (user.as_str(), mode), ("myuser", 0o644))
        },
        differs: None,
    },
    Row {
        upstream:
            "test_write_files.py::TestWriteFiles::test_write_files_deferred_with_newly_created_dir",
        holds: |b| {
            for dir in ["home/testuser/subdir1/subdir2", "home/testuser/subdir1"] {
                let (user, _, mode) = stat(b, dir)?;
                same(dir, (user.as_str(), mode), ("myuser", 0o755))?;
            }
            same(
                "file",
                b.target_file("home/testuser/subdir1/subdir2/my-file")?,
                "echo 'hello world!'\n".into(),
            )
        },
        differs: None,
    },
    Row {
        upstream:
            "test_defaults.py::TestDefaults::test_var_log_cloud_init_output_not_world_readable",
        holds: |b| {
            let (user, gid, mode) = stat(b, "var/log/cloud-init-output.log")?;
            // adm is gid 4 in the target's /etc/group.
            same(
                "mode:user:group",
                (mode, user.as_str(), gid),
                (0o640, "root", 4),
            )
        },
        differs: None,
    },
];

#[test]
fn keys_to_console_with_every_fingerprint_blacklisted() {
    let ud = "ssh_fp_console_blacklist: [ssh-ecdsa, ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256]\n";
    if let Some(b) = booted("cfg-k2c-all", ud) {
        check(&b, ALL_FINGERPRINTS_BLACKLISTED);
    }
}

#[test]
fn keys_to_console_with_ecdsa_blacklisted() {
    let ud = "ssh_fp_console_blacklist: [ecdsa-sha2-nistp256]\nssh_key_console_blacklist: [ecdsa-sha2-nistp256]\n";
    if let Some(b) = booted("cfg-k2c-ecdsa", ud) {
        check(&b, ECDSA_BLACKLISTED);
    }
}

#[test]
fn keys_to_console_disabled() {
    if let Some(b) = booted("cfg-k2c-off", "ssh:\n  emit_keys_to_console: false\n") {
        check(&b, DISABLED);
    }
}

#[test]
fn keys_to_console_by_default() {
    // cloud-init's cases: no config, and `ssh: {}` (the parent key alone).
    for ud in ["", "ssh: {}\n"] {
        if let Some(b) = booted("cfg-k2c-default", ud) {
            check(&b, EMITTED);
        }
    }
}

#[test]
fn deferred_files_and_the_output_log() {
    if let Some(b) = booted("cfg-deferred", WRITE_FILES) {
        check(&b, DEFERRED);
    }
}

pub fn rows() -> usize {
    // EMITTED runs for two configs.
    let emitted = 2 * EMITTED.len();
    ALL_FINGERPRINTS_BLACKLISTED.len()
        + ECDSA_BLACKLISTED.len()
        + DISABLED.len()
        + DEFERRED.len()
        + emitted
}
