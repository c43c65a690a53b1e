//! `ssh_publish_hostkeys`: cc_ssh hands the public host keys to the datasource, and only GCE's
//! does anything with them (a PUT per key to the instance's guest attributes, namespace
//! `hostkeys`, where `gcloud compute ssh` finds them). The RSA key is made after the pivot and
//! the request needs the booted system's network, so ember-initrd leaves what to publish in
//! [`PUBLISH_FILE`] and the runner's config stage does it
//! (`runner::modules::ssh_publish_hostkeys`). On other datasources nothing is left.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ssh>

use super::truth;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::ModuleCtx;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Left for the runner on GCE; removed otherwise.
pub const PUBLISH_FILE: &str = "/var/lib/ember/publish-hostkeys.json";
/// ember's GCE datasource's metadata server (an IP literal, RELIABILITY rule 7): cloud-init
/// names it `metadata.google.internal`, which resolves to it on GCE.
const GCE_BASE: &str = "http://169.254.169.254";
/// Under the metadata server: each key type is PUT below it.
pub const GCE_HOSTKEYS: &str = "computeMetadata/v1/instance/guest-attributes/hostkeys/";

/// `ssh_publish_hostkeys` as cc_ssh reads it.
#[derive(Debug, PartialEq)]
pub struct Publish {
    /// `enabled`, default true.
    pub enabled: bool,
    /// `blacklist`: key types (`rsa`, `ecdsa`, …) whose `ssh_host_<type>_key.pub` is left out;
    /// default none (cloud-init 23.x and later publish every type).
    pub blacklist: Vec<String>,
}

/// What the runner publishes: the URL each key type is appended to, and the blacklist.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingPublish {
    pub url: String,
    pub blacklist: Vec<String>,
}

/// Reads `ssh_publish_hostkeys`: `enabled` as cloud-init's `get_cfg_option_bool` (true/yes/
/// on/1, anything else false) and `blacklist` as its `get_cfg_option_list` (a list, or one
/// name). A value of the wrong type warns: publishing is a courtesy to the platform.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Publish {
    let mut p = Publish {
        enabled: true,
        blacklist: Vec::new(),
    };
    let m = match cfg.get("ssh_publish_hostkeys") {
        None | Some(Value::Null) => return p,
        Some(Value::Object(m)) => m,
        Some(_) => {
            let d = Diag::warning(Reason::WrongType, "must be a mapping: defaults used");
            diags.push(d.key("ssh_publish_hostkeys"));
            return p;
        }
    };
    match m.get("enabled") {
        None => {}
        Some(v) => {
            if !v.is_boolean() {
                let d = Diag::warning(Reason::WrongType, "must be true or false");
                diags.push(d.key("ssh_publish_hostkeys.enabled"));
            }
            p.enabled = truth(v).unwrap_or(false);
        }
    }
    p.blacklist = match m.get("blacklist") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v.as_str() {
                Some(s) => Some(s.to_string()),
                None => {
                    let d = Diag::warning(Reason::WrongType, "must be a key type: ignored");
                    diags.push(d.key(format!("ssh_publish_hostkeys.blacklist.{i}")));
                    None
                }
            })
            .collect(),
        Some(_) => {
            let d = Diag::warning(Reason::WrongType, "must be a list of key types: ignored");
            diags.push(d.key("ssh_publish_hostkeys.blacklist"));
            Vec::new()
        }
    };
    p
}

/// On GCE with publishing enabled, leaves the URL and blacklist for the runner (the metadata
/// server ember's datasource used: `ember.metadata-url=` when given); elsewhere removes what
/// an earlier instance left.
pub fn apply(ctx: &ModuleCtx, publish: &Publish, diags: &mut Vec<Diag>) {
    let result = if ctx.instance.datasource == "gce" && publish.enabled {
        let base = crate::cmdline::metadata_url(ctx.cmdline)
            .unwrap_or(GCE_BASE)
            .trim_end_matches('/');
        let pending = PendingPublish {
            url: format!("{base}/{GCE_HOSTKEYS}"),
            blacklist: publish.blacklist.clone(),
        };
        let json = serde_json::to_vec(&pending).unwrap_or_default();
        ctx.root
            .write_file(PUBLISH_FILE, &json, &FileSpec::mode(0o600))
    } else {
        ctx.root.remove_file(PUBLISH_FILE)
    };
    if let Err(e) = result {
        let d = Diag::warning(e.code(), e.to_string()).key("ssh_publish_hostkeys");
        diags.push(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn read_as_cloud_init_reads_it() {
        let cases = [
            (json!({}), true, vec![], 0),
            (
                json!({"ssh_publish_hostkeys": {"enabled": false}}),
                false,
                vec![],
                0,
            ),
            (
                json!({"ssh_publish_hostkeys": {"blacklist": ["dsa", "rsa"]}}),
                true,
                vec!["dsa", "rsa"],
                0,
            ),
            (
                json!({"ssh_publish_hostkeys": {"blacklist": "rsa"}}),
                true,
                vec!["rsa"],
                0,
            ),
            (
                json!({"ssh_publish_hostkeys": {"enabled": "yes"}}),
                true,
                vec![],
                1,
            ),
            (
                json!({"ssh_publish_hostkeys": {"enabled": "sure"}}),
                false,
                vec![],
                1,
            ),
            (
                json!({"ssh_publish_hostkeys": {"blacklist": [1, "rsa"]}}),
                true,
                vec!["rsa"],
                1,
            ),
            (json!({"ssh_publish_hostkeys": "on"}), true, vec![], 1),
        ];
        for (cfg, enabled, blacklist, n) in cases {
            let mut diags = Vec::new();
            let p = read(&cfg, &mut diags);
            assert_eq!(p.enabled, enabled, "{cfg}");
            assert_eq!(p.blacklist, blacklist, "{cfg}");
            assert_eq!(diags.len(), n, "{cfg}: {diags:?}");
            assert!(diags.iter().all(|d| !d.is_error()), "{cfg}");
        }
    }
}
