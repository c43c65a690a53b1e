//! cloud-init's `ssh` module (cc_ssh) from the initramfs: host keys (deleted from the image,
//! given or generated), authorized keys for the default user and root, and `ssh_pwauth`
//! (cloud-init's set_passwords sets it; it is here because it edits the same sshd config).
//! Host key fingerprints go to the console as keys_to_console prints them. Not done:
//! `ssh_publish_hostkeys` (no datasource publishes from here), `ssh_quiet_keygen` output.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ssh>

mod authkeys;
pub use authkeys::default_user;
mod console;
mod hostkeys;
mod keygen;
pub mod openssh_format;
mod sshd_config;

use super::{Module, ModuleCtx};
use crate::error::Diag;
use crate::reason::Reason;
use crate::state::{encode_instance_id, Frequency, Semaphores};
use serde_json::Value;

pub struct Ssh;

/// The host key step's own per-instance semaphore: if a later part of the module fails (an
/// unreadable authorized_keys, say), the module runs again next boot, and must not replace
/// the host keys users have already accepted.
const HOSTKEYS_SEM: &str = "ssh-hostkeys";

impl Module for Ssh {
    fn name(&self) -> &'static str {
        "ssh"
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let sems = Semaphores::new(ctx.root, &encode_instance_id(&ctx.instance.instance_id), "");
        let keys_done = sems
            .done(HOSTKEYS_SEM, Frequency::PerInstance)
            .unwrap_or_else(|d| {
                diags.push(d);
                true
            });
        if !keys_done {
            let mut own = Vec::new();
            hostkeys::apply(ctx, &mut own);
            let failed = own.iter().any(Diag::is_error);
            diags.extend(own);
            if !failed {
                if let Err(e) = sems.mark_done(HOSTKEYS_SEM, Frequency::PerInstance) {
                    diags.push(Diag::error(e.code(), e.to_string()));
                }
            }
        }
        authkeys::apply(ctx, diags);
        let mut updates: Vec<(&str, String)> = Vec::new();
        if let Some(v) = pwauth(ctx.cfg, diags) {
            updates.push(("PasswordAuthentication", v.to_string()));
        }
        if let Some(cert) = hostkeys::certificate_setting(ctx.cfg) {
            updates.push(("HostCertificate", cert));
        }
        let updates: Vec<(&str, &str)> = updates.iter().map(|(k, v)| (*k, v.as_str())).collect();
        if let Err(d) = sshd_config::apply(ctx.root, ctx.distro, &updates) {
            diags.push(d);
        }
        console::print(ctx);
    }
}

/// A boolean setting as cloud-init's `get_cfg_option_bool` reads it: a boolean, or the strings
/// and numbers `true/yes/on/1`, `false/no/off/0`. Anything else is an error naming the key,
/// and the default stands.
pub(crate) fn cfg_bool(cfg: &Value, key: &str, default: bool, diags: &mut Vec<Diag>) -> bool {
    match cfg.get(key) {
        None | Some(Value::Null) => default,
        Some(v) => truth(v).unwrap_or_else(|| {
            diags.push(Diag::error(Reason::WrongType, "must be a boolean").key(key));
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
