//! Fault suite, secrets (RELIABILITY.md rules 1 and 2): a NoCloud boot with passwords, a
//! token and user-data carrying a marker, then every file under the target and the run
//! directory, ember-initrd's output (the console) and `ember collect-logs`' default,
//! redacted tarball are searched for them.

use crate::common;
use crate::common::target::Accounts;
use common::faults::files_under;
use common::{stderr, stdout, Machine};
use std::io::Read;
use std::path::Path;

const MARKER: &str = "MARKER-userdata-4c1d7e";
const PASSWORD: &str = "Pa55word-chpasswd-9f2e";
const PLAIN_PASSWD: &str = "Pa55word-plain-b81a";
const TOKEN: &str = "ghp_TOKENfaults0123456789abcdefABCDEF";
const SECRETS: [&str; 4] = [MARKER, PASSWORD, PLAIN_PASSWD, TOKEN];

fn user_data() -> String {
    format!(
        "#cloud-config
# {MARKER}
chpasswd:
  expire: false
  users:
    - {{name: root, password: {PASSWORD}, type: text}}
users:
  - name: ann
    lock_passwd: false
    plain_text_passwd: {PLAIN_PASSWD}
write_files:
  - path: /etc/app/token
    content: {TOKEN}
    permissions: '0600'
runcmd:
  - echo {MARKER}
"
    )
}

fn machine() -> Machine {
    let m = Machine::new("secrets");
    let t = &m.target;
    Accounts::root()
        .shell("/bin/sh")
        .group("shadow", 42)
        .shadow()
        .gshadow()
        .write(t);
    m.seed_files(
        &m.host,
        "seed",
        &[
            ("meta-data", "instance-id: i-secrets\n"),
            ("user-data", &user_data()),
        ],
    );
    m.cmdline("ro ds=nocloud;s=/seed/");
    m
}

/// Whether only root can read `path`: no bits for others or group (0600, 0400), or no bits
/// for others in a directory of `base` that others cannot enter (0640 in a 0700/0750 dir).
fn root_only(base: &Path, path: &Path, mode: u32) -> bool {
    if mode & 0o077 == 0 {
        return true;
    }
    mode & 0o007 == 0
        && path
            .ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(base) && *d != base)
            .any(|d| Machine::mode(d) & 0o001 == 0)
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for s in SECRETS {
        assert!(!text.contains(s), "{s} in {what}");
    }
}

/// Expected: the passwords, the token and the user-data's marker appear in no file under
/// the target or the run directory that anyone but root can read, in no output of
/// ember-initrd, and nowhere in `ember collect-logs`' default tarball or its output. The
/// files that must hold them exist and are root-only (so the search is not vacuous).
#[test]
fn no_secret_outside_root_only_files_logs_or_collect_logs() {
    let m = machine();
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_clean("ember-initrd stdout", &out.stdout);
    assert_clean("ember-initrd stderr", &out.stderr);

    let mut private = Vec::new();
    for base in [&m.target, &m.run] {
        for (path, mode) in files_under(base) {
            let data = std::fs::read(&path).unwrap();
            let shown = path.strip_prefix(&m.dir).unwrap().display().to_string();
            if root_only(base, &path, mode) {
                if SECRETS
                    .iter()
                    .any(|s| String::from_utf8_lossy(&data).contains(s))
                {
                    private.push(shown);
                }
                continue;
            }
            assert_clean(&format!("{shown} (mode {mode:o})"), &data);
        }
    }
    // Where they do belong: the file asked for, and user-data kept for the runner.
    for expected in [
        "target/etc/app/token",
        "target/var/lib/cloud/instances/i-secrets/user-data.txt",
    ] {
        assert!(
            private.iter().any(|p| p == expected),
            "{expected} not among {private:#?}"
        );
    }
    let shadow = m.target_file("etc/shadow");
    assert!(shadow.contains("ann:$6$"), "the password was set, hashed");

    let tarball = m.dir.join("logs.tar.gz");
    let target = m.target.to_str().unwrap();
    let logs = m.ember(&[
        "--target",
        target,
        "collect-logs",
        "--tarfile",
        tarball.to_str().unwrap(),
    ]);
    assert_eq!(logs.status.code(), Some(0), "{}", stderr(&logs));
    assert_clean("collect-logs stdout", stdout(&logs).as_bytes());
    assert_clean("collect-logs stderr", stderr(&logs).as_bytes());
    assert_eq!(Machine::mode(&tarball), 0o600);
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&tarball).unwrap())
        .read_to_end(&mut tar)
        .unwrap();
    assert!(tar.len() > 1024, "an empty tarball proves nothing");
    assert_clean("the collect-logs tarball", &tar);
}
