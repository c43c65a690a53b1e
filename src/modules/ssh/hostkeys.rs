//! Host keys as cloud-init's cc_ssh makes them: image keys deleted (`ssh_deletekeys`), then
//! either the given `ssh_keys` written, or the `ssh_genkeytypes` generated. Ed25519 and ECDSA
//! are generated here; RSA (and DSA) cannot be (ring has no RSA key generation), so their
//! types are left in `/var/lib/ember/pending-hostkeys`, one per line, for the runner's early
//! unit to make with `ssh-keygen -t TYPE -N '' -f /etc/ssh/ssh_host_TYPE_key` inside the
//! target before sshd starts (and to remove the file afterwards).

use super::keygen;
use super::openssh_format::{key_type_of, public_blob_of, public_line};
use super::{cfg_bool, hostname};
use crate::error::Diag;
use crate::modules::accounts::Accounts;
use crate::modules::ModuleCtx;
use crate::reason::Reason;
use crate::root::{FileSpec, Owner, RootError};
use crate::secret::Secret;
use serde_json::Value;

pub const PENDING: &str = "/var/lib/ember/pending-hostkeys";
const SSH_DIR: &str = "/etc/ssh";
const TYPES: [&str; 4] = ["rsa", "dsa", "ecdsa", "ed25519"];
const DEFAULT_GENKEYTYPES: [&str; 3] = ["ecdsa", "ed25519", "rsa"];

pub fn key_path(key_type: &str) -> String {
    format!("{SSH_DIR}/ssh_host_{key_type}_key")
}

const PUBLIC: FileSpec = FileSpec::mode(0o644);

/// Private key files: 0600, or 0640 root:ssh_keys where the target has that group (Fedora's
/// sshd-keygen does the same, and cloud-init after generating).
fn private_spec(ctx: &ModuleCtx) -> FileSpec {
    match Accounts::load(ctx.root).group_gid("ssh_keys") {
        Some(gid) => FileSpec::mode(0o640).with_owner(Owner { uid: 0, gid }),
        None => FileSpec::mode(0o600),
    }
}

fn write_err(path: &str, e: RootError) -> Diag {
    Diag::error(Reason::SshHostkey, e.to_string()).file(path.to_string())
}

/// Removes `/etc/ssh/ssh_host_*key*` (the image's keys, shared by every instance of it).
fn delete_image_keys(ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
    let names = match ctx.root.list_dir(SSH_DIR) {
        Ok(names) => names,
        Err(e) => return diags.push(write_err(SSH_DIR, e)),
    };
    for name in names {
        if name
            .strip_prefix("ssh_host_")
            .is_some_and(|r| r.contains("key"))
        {
            let path = format!("{SSH_DIR}/{name}");
            if let Err(e) = ctx.root.remove_file(&path) {
                diags.push(write_err(&path, e));
            }
        }
    }
}

/// The `HostCertificate` setting for given certificates: like cloud-init, the last one wins.
pub fn certificate_setting(cfg: &Value) -> Option<String> {
    let keys = cfg.get("ssh_keys")?.as_object()?;
    TYPES
        .iter()
        .rfind(|t| {
            keys.get(&format!("{t}_certificate"))
                .is_some_and(Value::is_string)
        })
        .map(|t| format!("{}-cert.pub", key_path(t)))
}

/// Writes the given `ssh_keys`; a public key not given is derived from an OpenSSH-format
/// private key (cloud-init runs `ssh-keygen -y` for it).
fn write_given(ctx: &ModuleCtx, keys: &Value, diags: &mut Vec<Diag>) {
    let Some(keys) = keys.as_object() else {
        return diags.push(Diag::error(Reason::WrongType, "must be a mapping").key("ssh_keys"));
    };
    let private = private_spec(ctx);
    for (name, value) in keys {
        let key = format!("ssh_keys.{name}");
        let Some((t, kind)) = name.rsplit_once('_').filter(|(t, _)| TYPES.contains(t)) else {
            diags.push(Diag::warning(Reason::UnknownKey, "not a host key entry").key(key));
            continue;
        };
        let (path, spec) = match kind {
            "private" => (key_path(t), private),
            "public" => (format!("{}.pub", key_path(t)), PUBLIC),
            // Certificates are public; cloud-init's 0600 protects nothing.
            "certificate" => (format!("{}-cert.pub", key_path(t)), PUBLIC),
            _ => {
                diags.push(Diag::warning(Reason::UnknownKey, "not a host key entry").key(key));
                continue;
            }
        };
        let Some(text) = value.as_str().map(Secret::new) else {
            diags.push(Diag::error(Reason::WrongType, "must be a string").key(key));
            continue;
        };
        // OpenSSH refuses some key files without a final newline.
        let mut data = text.expose().to_string();
        if !data.ends_with('\n') {
            data.push('\n');
        }
        if let Err(e) = ctx.root.write_file(&path, data.as_bytes(), &spec) {
            diags.push(write_err(&path, e).key(key.clone()));
        }
        if kind == "private" && !keys.contains_key(&format!("{t}_public")) {
            match public_blob_of(text.expose()) {
                Ok(blob) if key_type_of(&blob).is_some() => {
                    let pub_path = format!("{path}.pub");
                    let line = public_line(&blob, "root@localhost");
                    if let Err(e) = ctx.root.write_file(&pub_path, line.as_bytes(), &PUBLIC) {
                        diags.push(write_err(&pub_path, e).key(key));
                    }
                }
                _ => diags.push(
                    Diag::warning(
                        Reason::SshPubkeyUnderived,
                        "public key not given and not derivable here (not an OpenSSH-format key)",
                    )
                    .key(key),
                ),
            }
        }
    }
}

/// The `ssh_genkeytypes` list: a list, one string, or null (none), as cloud-init reads it.
fn genkeytypes(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<(String, String)> {
    let key = "ssh_genkeytypes";
    match cfg.get(key) {
        None => DEFAULT_GENKEYTYPES
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), format!("{key}.{i}")))
            .collect(),
        Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![(s.clone(), key.to_string())],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v.as_str() {
                Some(s) => Some((s.to_string(), format!("{key}.{i}"))),
                None => {
                    diags.push(
                        Diag::error(Reason::WrongType, "must be a string")
                            .key(format!("{key}.{i}")),
                    );
                    None
                }
            })
            .collect(),
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "must be a list of strings").key(key));
            Vec::new()
        }
    }
}

/// Generates the missing keys of `ssh_genkeytypes`; returns the types left to the runner.
fn generate(ctx: &ModuleCtx, diags: &mut Vec<Diag>) -> Vec<String> {
    let private = private_spec(ctx);
    let comment = format!("root@{}", hostname(ctx));
    let mut pending = Vec::new();
    for (t, key) in genkeytypes(ctx.cfg, diags) {
        let path = key_path(&t);
        match t.as_str() {
            _ if TYPES.contains(&t.as_str()) && ctx.root.exists(&path) => {}
            "rsa" | "dsa" => pending.push(t),
            // Need a hardware token: ssh-keygen fails on them too, which cloud-init ignores.
            "ecdsa-sk" | "ed25519-sk" => {}
            _ => match keygen::generate(&t, &comment) {
                Some(Ok(g)) => {
                    let pem = g.private_pem.expose().as_bytes();
                    let pub_path = format!("{path}.pub");
                    if let Err(e) = ctx.root.write_file(&path, pem, &private) {
                        diags.push(write_err(&path, e).key(key));
                    } else if let Err(e) =
                        ctx.root
                            .write_file(&pub_path, g.public_line.as_bytes(), &PUBLIC)
                    {
                        diags.push(write_err(&pub_path, e).key(key));
                    }
                }
                Some(Err(why)) => diags.push(
                    Diag::error(
                        Reason::SshKeygen,
                        format!("host key generation failed: {why}"),
                    )
                    .key(key),
                ),
                None => diags
                    .push(Diag::warning(Reason::UnsupportedKey, "unknown host key type").key(key)),
            },
        }
    }
    pending
}

/// Deletes the image's keys (once per instance), writes the given keys or generates new ones,
/// and records what the runner still has to generate.
pub fn apply(ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
    if cfg_bool(ctx.cfg, "ssh_deletekeys", true, diags) {
        delete_image_keys(ctx, diags);
    }
    let pending = match ctx.cfg.get("ssh_keys") {
        // cloud-init generates nothing when keys are given.
        Some(keys) if !keys.is_null() => {
            write_given(ctx, keys, diags);
            Vec::new()
        }
        _ => generate(ctx, diags),
    };
    let result = if pending.is_empty() {
        ctx.root.remove_file(PENDING)
    } else {
        let text: String = pending.iter().map(|t| format!("{t}\n")).collect();
        ctx.root
            .write_file(PENDING, text.as_bytes(), &FileSpec::mode(0o644))
    };
    if let Err(e) = result {
        diags.push(write_err(PENDING, e));
    }
}
