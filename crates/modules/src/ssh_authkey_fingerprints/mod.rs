//! `ssh_authkey_fingerprints`: for each user cloud-init names (users.rs of ssh_import_id; not
//! those with `no_create_home` or `system`), a table of the keys in their authorized_keys on the
//! console, `ci-info: ` before each line: key type, the fingerprint by `authkey_hash` (default
//! sha256; hex pairs joined by `:`), options, comment. `no_ssh_fingerprints: true` turns it
//! off. A hash ember does not compute (Python's sha224, sha3_*, blake2*) prints `?`, with a
//! warning. A user missing from the target's passwd fails the module, as in cloud-init. The
//! file is read with `Root::read_user_file` (RELIABILITY rule 13): a link, a FIFO, a device, a
//! file or directory of another user, or one over 1 MiB is skipped with a warning naming the
//! user and the path, never its content.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ssh-authkey-fingerprints>

mod authkeys;
mod table;

use super::ssh_import_id::users;
use super::{ModCtx, RunnerModule};
use crate::common::accounts::Accounts;
use crate::config::reader::Reader;
use crate::config::shape::Shape;
use crate::error::Diag;
use crate::reason::Reason;
use crate::ssh::digest;
use serde_json::Value;

pub struct SshAuthkeyFingerprints;

const PREFIX: &str = "ci-info: ";
/// The budget for one user's keys file.
const MAX_BYTES: u64 = 1024 * 1024;

/// Its keys' shapes (`users`' are the users module's) and typed reader.
pub static READER: Reader = Reader {
    shapes: &[
        ("no_ssh_fingerprints", Shape::Bool),
        ("authkey_hash", Shape::Str),
    ],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// `(no_ssh_fingerprints, authkey_hash)` as cloud-init reads them: `is_true`, and the hash's
/// name as text. A hash ember cannot compute warns.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> (bool, String) {
    let off = match cfg.get("no_ssh_fingerprints") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => {
            matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "true" | "1" | "on" | "yes"
            )
        }
        Some(Value::Number(n)) => n.to_string() == "1",
        _ => false,
    };
    let hash = match cfg.get("authkey_hash") {
        None | Some(Value::Null) => "sha256".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    if !off && digest::digest(&hash, b"").is_none() {
        let msg = "not a hash ember computes (md5, sha1, sha256, sha384, sha512, sha512_256): \
                   fingerprints shown as ?";
        diags.push(Diag::warning(Reason::UnsupportedKey, msg).key("authkey_hash"));
    }
    (off, hash)
}

/// cloud-init's fingerprint: the hash's hex digest in pairs joined by `:`; `?` when the key is
/// not base64 or the hash unknown.
fn fingerprint(b64: &str, hash: &str) -> String {
    if b64.is_empty() {
        return String::new();
    }
    match crate::pybase64::b64decode(b64.as_bytes())
        .ok()
        .and_then(|blob| digest::digest(hash, &blob.bytes))
    {
        Some(d) => d
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":"),
        None => "?".into(),
    }
}

/// The lines printed for one user whose keys file is `file` with `lines`.
fn report(user: &str, file: &str, lines: &[String], hash: &str) -> Vec<String> {
    if lines.is_empty() {
        return vec![format!(
            "{PREFIX}no authorized SSH keys fingerprints found for user {user}."
        )];
    }
    let or_dash = |s: String| if s.is_empty() { "-".to_string() } else { s };
    let rows: Vec<Vec<String>> = lines
        .iter()
        .map(|l| authkeys::parse(l))
        .filter(authkeys::Entry::printable)
        .map(|e| {
            vec![
                or_dash(e.key_type.clone()),
                or_dash(fingerprint(&e.base64, hash)),
                or_dash(e.options),
                or_dash(e.comment),
            ]
        })
        .collect();
    let header = [
        "Keytype",
        &format!("Fingerprint ({hash})"),
        "Options",
        "Comment",
    ]
    .map(str::to_string);
    let body = table::table(&header, &rows);
    let width = body.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let title = format!("Authorized keys from {file} for user {user}");
    std::iter::once(table::title(&title, '+', width))
        .chain(body)
        .map(|l| format!("{PREFIX}{l}"))
        .collect()
}

/// Python's truth of a user's setting (`no_create_home`, `system`).
fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(m)) => !m.is_empty(),
    }
}

impl RunnerModule for SshAuthkeyFingerprints {
    fn name(&self) -> &'static str {
        "ssh_authkey_fingerprints"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let (off, hash) = read(cfg, diags);
        if off {
            return;
        }
        let accounts = Accounts::load(ctx.root);
        let sshd = ctx
            .root
            .read_file("/etc/ssh/sshd_config", 1024 * 1024)
            .ok()
            .flatten()
            .map(|d| String::from_utf8_lossy(&d).into_owned())
            .unwrap_or_default();
        let setting = authkeys::keys_file_setting(&sshd);
        for user in users::normalize(cfg) {
            if truthy(user.cfg.get("no_create_home")) || truthy(user.cfg.get("system")) {
                continue;
            }
            let Some(account) = accounts.user(&user.name) else {
                let msg = "the user is not in the target's passwd: no fingerprints shown";
                diags.push(Diag::error(Reason::UserMissing, msg).key("users"));
                return;
            };
            let file = authkeys::keys_file(setting.as_deref(), &account.home, &user.name);
            // Read as the user could read it, never through what another controls.
            let read = ctx
                .root
                .read_user_file(&file, &account.home, account.uid, MAX_BYTES);
            let lines: Vec<String> = match read {
                Ok(Some(d)) => String::from_utf8_lossy(&d)
                    .lines()
                    .map(str::to_string)
                    .collect(),
                Ok(None) => Vec::new(),
                Err(e) => {
                    let msg = format!("keys of user {} not shown: {e}", user.name);
                    let code = match e.code() {
                        Reason::BudgetExceeded => Reason::BudgetExceeded,
                        _ => Reason::ReadFailed,
                    };
                    diags.push(Diag::warning(code, msg).key("users"));
                    Vec::new()
                }
            };
            for line in report(&user.name, &file, &lines, &hash) {
                ctx.exec.say(&line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_as_cloud_init_prints_it() {
        let lines = vec![
            "# a comment".to_string(),
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm a@b"
                .to_string(),
            "no-pty ssh-rsa AAAA".to_string(),
        ];
        let got = report("ann", "/home/ann/.ssh/authorized_keys", &lines, "md5");
        // Python: hashlib.md5(base64.b64decode(key)).hexdigest(), in pairs.
        let fp = "19:76:41:b1:4c:17:4d:9a:fb:63:a7:2b:66:1d:aa:bb";
        assert_eq!(got[1], format!("{PREFIX}+-------------+-------------------------------------------------+---------+---------+"));
        assert_eq!(got[2], format!("{PREFIX}|   Keytype   |                Fingerprint (md5)                | Options | Comment |"));
        assert_eq!(
            got[4],
            format!("{PREFIX}| ssh-ed25519 | {fp} |    -    |   a@b   |")
        );
        let zeros = "69:3e:9a:f8:4d:3d:fc:c7:1e:64:0e:00:5b:dc:5e:2e";
        assert_eq!(
            got[5],
            format!("{PREFIX}|   ssh-rsa   | {zeros} |  no-pty |    -    |")
        );
        let width = got[1].chars().count() - PREFIX.len();
        let title = got[0].strip_prefix(PREFIX).unwrap();
        assert_eq!(title.chars().count(), width);
        assert!(
            title.starts_with("++") && title.contains(" for user ann"),
            "{title}"
        );
        assert_eq!(got.len(), 7);
    }

    #[test]
    fn fingerprints_in_hex_pairs() {
        let b64 = "AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm";
        let fp = fingerprint(b64, "sha256");
        assert_eq!(fp.len(), 32 * 3 - 1);
        assert!(fp.split(':').all(|p| p.len() == 2));
        // Python drops what is not base64, then wants the padding right.
        assert_eq!(fingerprint("AAA", "sha256"), "?");
        assert_eq!(
            fingerprint("!!!", "md5"),
            "d4:1d:8c:d9:8f:00:b2:04:e9:80:09:98:ec:f8:42:7e"
        );
        assert_eq!(fingerprint(b64, "sha3_256"), "?");
        assert_eq!(fingerprint("", "sha256"), "");
        let none = report("bob", "/x", &[], "sha256");
        assert_eq!(
            none,
            [format!(
                "{PREFIX}no authorized SSH keys fingerprints found for user bob."
            )]
        );
    }

    #[test]
    fn settings() {
        let mut d = Vec::new();
        assert_eq!(
            read(&serde_json::json!({}), &mut d),
            (false, "sha256".into())
        );
        assert!(read(&serde_json::json!({"no_ssh_fingerprints": true}), &mut d).0);
        assert!(d.is_empty());
        read(&serde_json::json!({"authkey_hash": "blake2b"}), &mut d);
        assert_eq!(d[0].key.as_deref(), Some("authkey_hash"));
    }
}
