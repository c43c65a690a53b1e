//! cloud-init's `ssh` module (cc_ssh) from the initramfs: host keys (deleted from the image,
//! given or generated), authorized keys for the default user and root, and `ssh_pwauth`
//! (cloud-init's set_passwords sets it; it is here because it edits the same sshd config), and
//! on GCE what the runner needs to publish the host keys (`ssh_publish_hostkeys`, publish.rs).
//! The console's fingerprints are keys_to_console's, printed by the runner once every host key
//! exists. Not done: `ssh_quiet_keygen` output. Every key is read once, by `read`
//! (settings.rs), which `ember schema` shares.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ssh>

pub(crate) mod authkeys;
pub use authkeys::default_user;
pub mod digest;
mod hostkey_settings;
pub use hostkey_settings::{GenKey, GivenKey, HostKeys, KeyPart, KeyType};
mod hostkeys;
mod keygen;
pub mod openssh_format;
pub mod publish;
mod settings;
mod shape;
pub use settings::{read, Settings};
mod sshd_config;

use super::{Module, ModuleCtx};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::reason::Reason;
use crate::state::{encode_instance_id, Frequency, Semaphores};
use serde_json::Value;

pub struct Ssh;

/// The host key step's own per-instance semaphore: if a later part of the module fails (an
/// unreadable authorized_keys, say), the module runs again next boot, and must not replace
/// the host keys users have already accepted.
const HOSTKEYS_SEM: &str = "ssh-hostkeys";

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: shape::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl Module for Ssh {
    fn name(&self) -> &'static str {
        "ssh"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let mut read_diags = Vec::new();
        let settings = read(ctx.cfg, &mut read_diags);
        let (host_key_diags, others): (Vec<Diag>, Vec<Diag>) =
            read_diags.into_iter().partition(settings::about_host_keys);
        host_key_step(ctx, &settings, host_key_diags, diags);
        diags.extend(others);
        authkeys::apply(ctx, &settings, diags);
        let mut updates: Vec<(&str, String)> = Vec::new();
        if let Some(v) = settings.pwauth {
            updates.push(("PasswordAuthentication", v.to_string()));
        }
        // sshd presents every certificate it is given a line for, and cloud-init writes one
        // line per certificate.
        let certs: Vec<String> = settings
            .host_keys
            .certificates()
            .map(hostkeys::certificate_path)
            .collect();
        let lines: Vec<(&str, &str)> = certs
            .iter()
            .map(|c| ("HostCertificate", c.as_str()))
            .collect();
        let updates: Vec<(&str, &str)> = updates.iter().map(|(k, v)| (*k, v.as_str())).collect();
        if let Err(d) = sshd_config::apply(ctx.root, ctx.distro, &updates, &lines) {
            diags.push(d);
        }
        publish::apply(ctx, &settings.publish, diags);
    }
}

/// Deletes, writes or generates the host keys once per instance. The problems of the host key
/// settings (`config_diags`) are reported only then; an error among them, like a key that
/// could not be written, leaves the step to be tried again. A warning (a key ssh-keygen could
/// not make, as cloud-init logs and goes on) does not.
fn host_key_step(
    ctx: &ModuleCtx,
    settings: &Settings,
    config_diags: Vec<Diag>,
    diags: &mut Vec<Diag>,
) {
    let sems = Semaphores::new(ctx.root, &encode_instance_id(&ctx.instance.instance_id), "");
    let keys_done = sems
        .done(HOSTKEYS_SEM, Frequency::PerInstance)
        .unwrap_or_else(|d| {
            diags.push(d);
            true
        });
    if keys_done {
        return;
    }
    let mut own = config_diags;
    hostkeys::apply(ctx, settings, &mut own);
    let failed = own.iter().any(Diag::is_error);
    diags.extend(own);
    if !failed {
        ctx.marks.add(HOSTKEYS_SEM, Frequency::PerInstance);
    }
}

/// A boolean setting as cloud-init's `get_cfg_option_bool` reads it: a boolean, or the strings
/// and numbers `true/yes/on/1`, `false/no/off/0`. Anything else is a warning naming the key
/// (cc_ssh never fails on it), and the default stands where cloud-init would read false: for
/// `disable_root` that keeps root's keys restricted.
fn cfg_bool(cfg: &Value, key: &str, default: bool, diags: &mut Vec<Diag>) -> bool {
    bool_value(cfg.get(key), key, default, diags)
}

/// `cfg_bool` for a value found elsewhere, whose key path is `path`.
fn bool_value(value: Option<&Value>, path: &str, default: bool, diags: &mut Vec<Diag>) -> bool {
    match value {
        None | Some(Value::Null) => default,
        Some(v) => truth(v).unwrap_or_else(|| {
            diags.push(Diag::warning(Reason::WrongType, "must be a boolean").key(path));
            default
        }),
    }
}

fn truth(v: &Value) -> Option<bool> {
    let s = match v {
        Value::Bool(b) => return Some(*b),
        Value::String(s) => s.trim().to_ascii_lowercase(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    match s.as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// `ssh_pwauth` as cc_set_passwords reads it: true/false (or yes/no strings) set
/// `PasswordAuthentication`; absent or `unchanged` leave it; anything else is a warning and
/// leaves it. The boot and `ember schema` both read it here.
pub fn pwauth(cfg: &Value, diags: &mut Vec<Diag>) -> Option<&'static str> {
    let v = cfg.get("ssh_pwauth")?;
    match (v, truth(v)) {
        (_, Some(b)) => Some(if b { "yes" } else { "no" }),
        (Value::Null, _) => None,
        (Value::String(s), _) if s.eq_ignore_ascii_case("unchanged") => None,
        _ => {
            diags.push(
                Diag::warning(
                    Reason::UnrecognizedValue,
                    "not true, false or unchanged: left as is",
                )
                .key("ssh_pwauth"),
            );
            None
        }
    }
}

/// A list of strings at `path` (absent or null: empty). Anything else is a warning and the
/// list stays empty: cc_ssh applies keys and generates host keys inside `try`s that only log.
fn string_list(value: Option<&Value>, path: &str, diags: &mut Vec<Diag>) -> Vec<String> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => string_items(items, path, diags)
            .into_iter()
            .map(|(s, _)| s)
            .collect(),
        Some(_) => {
            diags.push(Diag::warning(Reason::WrongType, "must be a list of strings").key(path));
            Vec::new()
        }
    }
}

/// The string items of the list at `path`, each with its key path; any other item is a
/// warning naming its own and is left out.
fn string_items(items: &[Value], path: &str, diags: &mut Vec<Diag>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("{path}.{i}");
        match item.as_str() {
            Some(s) => out.push((s.to_string(), key)),
            None => diags.push(Diag::warning(Reason::WrongType, "must be a string").key(key)),
        }
    }
    out
}

/// The short host name ssh-keygen would put in a key comment once set_hostname ran:
/// `hostname`, else the first label of `fqdn`, else of the meta-data's, else `localhost`.
pub(crate) fn hostname(ctx: &ModuleCtx) -> String {
    let s = |k: &str| {
        ctx.cfg
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let name = s("hostname")
        .or_else(|| s("fqdn"))
        .or_else(|| ctx.instance.local_hostname())
        .unwrap_or("localhost");
    name.split('.').next().unwrap_or(name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pwauth_values() {
        let cases = [
            (json!({"ssh_pwauth": true}), Some("yes"), 0),
            (json!({"ssh_pwauth": false}), Some("no"), 0),
            (json!({"ssh_pwauth": "no"}), Some("no"), 0),
            (json!({"ssh_pwauth": "Yes"}), Some("yes"), 0),
            (json!({"ssh_pwauth": 0}), Some("no"), 0),
            (json!({"ssh_pwauth": "unchanged"}), None, 0),
            (json!({}), None, 0),
            (json!({"ssh_pwauth": "maybe"}), None, 1),
        ];
        for (cfg, want, n) in cases {
            let mut diags = Vec::new();
            assert_eq!(pwauth(&cfg, &mut diags), want, "{cfg}");
            assert_eq!(diags.len(), n, "{cfg}");
        }
    }

    #[test]
    fn bools_name_the_key_on_error() {
        let mut diags = Vec::new();
        assert!(cfg_bool(
            &json!({"disable_root": [1]}),
            "disable_root",
            true,
            &mut diags
        ));
        assert_eq!(diags[0].key.as_deref(), Some("disable_root"));
        assert!(!cfg_bool(&json!({"x": "off"}), "x", true, &mut diags));
    }
}
