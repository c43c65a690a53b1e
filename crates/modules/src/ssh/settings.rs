//! The ssh module's one reader: the cloud-config keys the module acts on, read into `Settings`
//! with a diagnostic (naming its key path) for each problem, the default standing in for a
//! value that cannot be used. The boot acts on `Settings` only. `ssh_quiet_keygen` is only
//! checked: ember never shows ssh-keygen's output, so `false` is a warning. The console's
//! keys (`ssh.emit_keys_to_console`, the blacklists) are keys_to_console's, in the runner.

use super::authkeys::DISABLE_ROOT_OPTS;
use super::hostkey_settings::{self, HostKeys};
use super::publish::{self, Publish};
use super::{cfg_bool, pwauth, string_list};
use crate::conf_lang::authorized_keys;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

/// Everything the ssh module reads from a cloud-config.
#[derive(Debug, PartialEq)]
pub struct Settings {
    /// `ssh_deletekeys`: the image's host keys are removed first.
    pub delete_image_keys: bool,
    /// `ssh_keys`, or else `ssh_genkeytypes`.
    pub host_keys: HostKeys,
    /// `allow_public_ssh_keys`: the meta-data's public keys are installed too.
    pub allow_public_keys: bool,
    /// `ssh_authorized_keys`, trimmed, blank ones left out.
    pub authorized_keys: Vec<String>,
    pub disable_root: bool,
    /// `disable_root_opts`, its `$USER` and `$DISABLE_USER` still to fill in.
    pub disable_root_opts: String,
    /// `ssh_publish_hostkeys`.
    pub publish: Publish,
    /// `ssh_pwauth` as `pwauth` reads it: the `PasswordAuthentication` value to set, if any.
    pub pwauth: Option<&'static str>,
    /// The image's `ember: {rsa_host_key: before-sshd}`: the keys ssh-keygen makes in the
    /// target (RSA, DSA) are made before sshd starts, not in the background after it.
    pub rsa_before_sshd: bool,
}

/// The keys deciding which host keys are written: their problems belong to the host key step,
/// which runs once per instance.
const HOST_KEY_SETTINGS: [&str; 3] = ["ssh_deletekeys", "ssh_keys", "ssh_genkeytypes"];

/// Whether a diagnostic of `read` is about one of the host key settings.
pub(super) fn about_host_keys(d: &Diag) -> bool {
    let top = d.key.as_deref().and_then(|k| k.split('.').next());
    top.is_some_and(|k| HOST_KEY_SETTINGS.contains(&k))
}

/// Reads the ssh module's keys: the one reader, for the boot and for `ember schema`.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Settings {
    Settings {
        delete_image_keys: cfg_bool(cfg, "ssh_deletekeys", true, diags),
        host_keys: hostkey_settings::read(cfg, diags),
        allow_public_keys: cfg_bool(cfg, "allow_public_ssh_keys", true, diags),
        authorized_keys: authorized_keys(cfg, diags),
        disable_root: cfg_bool(cfg, "disable_root", true, diags),
        disable_root_opts: disable_root_opts(cfg, diags),
        publish: publish::read(cfg, diags),
        pwauth: pwauth(cfg, diags),
        rsa_before_sshd: crate::config::ember::rsa_before_sshd(cfg, diags),
    }
    .quiet_keygen_checked(cfg, diags)
}

impl Settings {
    /// cloud-init shows ssh-keygen's output on the console unless `ssh_quiet_keygen`; ember
    /// makes the keys without printing anything (their fingerprints are keys_to_console's),
    /// so asking for the output is said not to be done.
    fn quiet_keygen_checked(self, cfg: &Value, diags: &mut Vec<Diag>) -> Settings {
        if cfg.get("ssh_quiet_keygen").is_some() && !cfg_bool(cfg, "ssh_quiet_keygen", true, diags)
        {
            let why =
                "ember does not show ssh-keygen's output (the keys' fingerprints are printed \
                       by keys_to_console); taken as true";
            diags.push(Diag::warning(Reason::UnsupportedKey, why).key("ssh_quiet_keygen"));
        }
        self
    }
}

fn authorized_keys(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<String> {
    let key = "ssh_authorized_keys";
    let keys = string_list(cfg.get(key), key, diags);
    keys.iter()
        .map(|k| k.trim())
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect()
}

fn disable_root_opts(cfg: &Value, diags: &mut Vec<Diag>) -> String {
    match cfg.get("disable_root_opts") {
        None | Some(Value::Null) => DISABLE_ROOT_OPTS.to_string(),
        Some(Value::String(s)) => match authorized_keys::options(s) {
            Ok(opts) => opts.to_string(),
            Err(why) => {
                let msg = format!("{why}; the default is used");
                diags.push(Diag::error(Reason::BadValue, msg).key("disable_root_opts"));
                DISABLE_ROOT_OPTS.to_string()
            }
        },
        Some(_) => {
            // The stricter default stands in for a value we cannot read.
            let d = Diag::warning(Reason::WrongType, "must be a string: the default is used");
            diags.push(d.key("disable_root_opts"));
            DISABLE_ROOT_OPTS.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_all(cfg: Value) -> (Settings, Vec<Diag>) {
        let mut diags = Vec::new();
        (read(&cfg, &mut diags), diags)
    }

    /// The one diagnostic a setting of the wrong type gives: its key path and code.
    fn only_diag(diags: &[Diag]) -> (&str, &str) {
        assert_eq!(diags.len(), 1, "{diags:?}");
        (
            diags[0].key.as_deref().unwrap_or(""),
            diags[0].code.as_str(),
        )
    }

    /// Options holding a line break would add a key line of their own to root's
    /// authorized_keys: an error naming the key (not the value), and the default stands.
    #[test]
    fn disable_root_opts_with_line_breaks_are_refused() {
        for opts in [
            "no-pty\nssh-ed25519 AAAAattacker x@y",
            "no-pty\rssh-ed25519 AAAAx",
            "a\0b",
        ] {
            let (s, diags) = read_all(json!({"disable_root_opts": opts}));
            assert_eq!(only_diag(&diags), ("disable_root_opts", "bad-value"));
            assert!(!diags[0].message.contains("AAAA"));
            assert_eq!(s.disable_root_opts, DISABLE_ROOT_OPTS);
        }
        let (s, diags) = read_all(json!({"disable_root_opts": "no-pty,no-agent-forwarding"}));
        assert!(diags.is_empty());
        assert_eq!(s.disable_root_opts, "no-pty,no-agent-forwarding");
    }

    #[test]
    fn defaults_when_absent() {
        let (s, diags) = read_all(json!({}));
        assert!(diags.is_empty(), "{diags:?}");
        assert!(s.delete_image_keys && s.allow_public_keys && s.disable_root);
        assert!(matches!(s.host_keys, HostKeys::Generate(ref t) if t.len() == 3));
        assert!(s.authorized_keys.is_empty());
        assert_eq!(s.disable_root_opts, DISABLE_ROOT_OPTS);
        assert_eq!(
            s.publish,
            Publish {
                enabled: true,
                blacklist: vec![]
            }
        );
        assert_eq!(s.pwauth, None);
        assert!(!s.rsa_before_sshd);
    }

    /// The image's choice of when RSA is made; a value it cannot use warns, the default stands.
    #[test]
    fn rsa_host_key_order() {
        for (v, want, warned) in [
            (json!("before-sshd"), true, false),
            (json!("after-sshd"), false, false),
            (Value::Null, false, false),
            (json!("early"), false, true),
            (json!(true), false, true),
        ] {
            let (s, diags) = read_all(json!({"ember": {"rsa_host_key": v}}));
            assert_eq!(s.rsa_before_sshd, want, "{v}");
            assert_eq!(!diags.is_empty(), warned, "{v}: {diags:?}");
            if warned {
                assert_eq!(only_diag(&diags), ("ember.rsa_host_key", "bad-value"));
                assert!(!diags[0].is_error());
            }
        }
    }

    #[test]
    fn every_key_read() {
        let cfg = json!({
            "ssh_deletekeys": "no",
            "ssh_keys": {"rsa_public": "ssh-rsa AAAA x"},
            "allow_public_ssh_keys": 0,
            "ssh_authorized_keys": ["  ssh-ed25519 AAAA a@b ", " "],
            "disable_root": false,
            "disable_root_opts": "no-pty",
            "ssh_publish_hostkeys": {"enabled": false, "blacklist": ["rsa"]},
            "ssh_pwauth": "yes",
        });
        let (s, diags) = read_all(cfg);
        assert!(diags.is_empty(), "{diags:?}");
        assert!(!s.delete_image_keys && !s.allow_public_keys && !s.disable_root);
        assert!(matches!(s.host_keys, HostKeys::Given(ref k) if k.len() == 1));
        assert_eq!(s.authorized_keys, ["ssh-ed25519 AAAA a@b"]);
        assert_eq!(s.disable_root_opts, "no-pty");
        let publish = Publish {
            enabled: false,
            blacklist: vec!["rsa".into()],
        };
        assert_eq!(s.publish, publish);
        assert_eq!(s.pwauth, Some("yes"));
    }

    /// A warning each: cc_ssh never fails on these (issue 21 item 8).
    #[test]
    fn a_wrong_type_names_its_key_and_the_default_stands() {
        let cases = [
            (json!({"ssh_deletekeys": [1]}), "ssh_deletekeys"),
            (
                json!({"allow_public_ssh_keys": "sometimes"}),
                "allow_public_ssh_keys",
            ),
            (
                json!({"ssh_authorized_keys": "ssh-rsa AAAA"}),
                "ssh_authorized_keys",
            ),
            (
                json!({"ssh_authorized_keys": [{}]}),
                "ssh_authorized_keys.0",
            ),
            (json!({"disable_root": {}}), "disable_root"),
            (json!({"disable_root_opts": 1}), "disable_root_opts"),
        ];
        let (defaults, _) = read_all(json!({}));
        for (cfg, key) in cases {
            let (s, diags) = read_all(cfg.clone());
            assert_eq!(only_diag(&diags), (key, "wrong-type"), "{cfg}");
            assert!(!diags[0].is_error(), "{cfg}");
            assert_eq!(s, defaults, "{cfg}");
        }
    }

    #[test]
    fn host_key_diags_are_told_apart() {
        let cfg = json!({
            "ssh_deletekeys": "x",
            "ssh_keys": {"rsa_private": 1},
            "disable_root": "x",
        });
        let (_, diags) = read_all(cfg);
        let about: Vec<bool> = diags.iter().map(about_host_keys).collect();
        assert_eq!(about, [true, true, false]);
    }
}
