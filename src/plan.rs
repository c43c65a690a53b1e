//! Which of cloud-init's config and final modules the runner runs, in order, with the keys
//! each reads: the module part of the handoff. The image's `cloud_config_modules` and
//! `cloud_final_modules` override the default lists, as in cloud-init.

use crate::handoff::ModuleCallRef;
use serde_json::Value;
use std::collections::BTreeMap;

/// (module, default frequency, keys it reads).
type Row = (&'static str, &'static str, &'static [&'static str]);

/// The runner's early stage (`ember init`): every boot, before ssh starts.
/// `ca_certs` is in cloud-init's init stage (after `bootcmd`), which ember-initrd's list
/// (`cloud_init_modules`) does not carry to the runner: it runs here, before ssh starts.
const INIT: &[Row] = &[
    ("bootcmd", "always", &["bootcmd"]),
    ("ca_certs", "once-per-instance", &["ca_certs", "ca-certs"]),
];

const CONFIG: &[Row] = &[
    (
        "ssh_import_id",
        "once-per-instance",
        &["ssh_import_id"], // per-user ones are reported by users_groups
    ),
    ("keyboard", "once-per-instance", &["keyboard"]),
    (
        "locale",
        "once-per-instance",
        &["locale", "locale_configfile"],
    ),
    (
        "set_passwords",
        "once-per-instance",
        &["chpasswd", "password", "ssh_pwauth"],
    ),
    ("ntp", "once-per-instance", &["ntp"]),
    ("timezone", "once-per-instance", &["timezone"]),
    ("disable_ec2_metadata", "always", &["disable_ec2_metadata"]),
    ("runcmd", "once-per-instance", &["runcmd"]),
];

const FINAL: &[Row] = &[
    (
        "package_update_upgrade_install",
        "once-per-instance",
        &[
            "packages",
            "package_update",
            "package_upgrade",
            "package_reboot_if_required",
            "apt_update",
            "apt_upgrade",
            "apt_reboot_if_required",
        ],
    ),
    (
        "write_files_deferred",
        "once-per-instance",
        &["write_files"],
    ),
    ("scripts_vendor", "once-per-instance", &["vendor_data"]),
    ("scripts_per_once", "once", &[]),
    ("scripts_per_boot", "always", &[]),
    ("scripts_per_instance", "once-per-instance", &[]),
    ("scripts_user", "once-per-instance", &[]),
    (
        "ssh_authkey_fingerprints",
        "once-per-instance",
        &["no_ssh_fingerprints", "authkey_hash"],
    ),
    (
        "keys_to_console",
        "once-per-instance",
        &[
            "ssh",
            "ssh_fp_console_blacklist",
            "ssh_key_console_blacklist",
        ],
    ),
    // hostname and fqdn: what it posts under those names.
    (
        "phone_home",
        "once-per-instance",
        &["phone_home", "hostname", "fqdn"],
    ),
    ("final_message", "always", &["final_message"]),
    ("power_state_change", "once-per-instance", &["power_state"]),
];

fn row(table: &[Row], name: &str) -> Option<Row> {
    table.iter().copied().find(|r| r.0 == name)
}

/// One list entry: `name`, or `[name, frequency]` as cloud.cfg may write it.
fn entry(v: &Value) -> Option<(String, Option<String>)> {
    match v {
        Value::String(s) => Some((s.clone(), None)),
        Value::Array(items) => {
            let name = items.first()?.as_str()?.to_string();
            let freq = items.get(1).and_then(Value::as_str).map(str::to_string);
            Some((name, freq))
        }
        _ => None,
    }
}

fn stage_calls<'c>(
    stage: &'static str,
    table: &[Row],
    listed: Option<&Value>,
    cfg: &'c Value,
) -> Vec<ModuleCallRef<'c>> {
    let names: Vec<(String, Option<String>)> = match listed.and_then(Value::as_array) {
        Some(items) => items.iter().filter_map(entry).collect(),
        None => table.iter().map(|r| (r.0.to_string(), None)).collect(),
    };
    names
        .into_iter()
        .map(|(name, freq)| {
            let name = name.replace('-', "_").trim_start_matches("cc_").to_string();
            let known = row(table, &name);
            let keys: &[&str] = known.map_or(&[], |r| r.2);
            let mut config = BTreeMap::new();
            for key in keys {
                if let Some((k, v)) = cfg.as_object().and_then(|m| m.get_key_value(*key)) {
                    config.insert(k.as_str(), v);
                }
            }
            let frequency =
                freq.unwrap_or_else(|| known.map_or("once-per-instance", |r| r.1).into());
            ModuleCallRef {
                name,
                stage,
                frequency,
                config,
            }
        })
        .collect()
}

/// The runner's modules for this instance, their keys borrowed from the merged cloud-config.
pub fn runner_modules(cfg: &Value) -> Vec<ModuleCallRef<'_>> {
    let mut calls = stage_calls("init", INIT, None, cfg);
    calls.extend(stage_calls(
        "config",
        CONFIG,
        cfg.get("cloud_config_modules"),
        cfg,
    ));
    calls.extend(stage_calls(
        "final",
        FINAL,
        cfg.get("cloud_final_modules"),
        cfg,
    ));
    calls
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::ModuleCall;
    use serde_json::json;

    #[test]
    fn default_lists_carry_their_keys() {
        let cfg = json!({"runcmd": ["ls"], "final_message": "bye"});
        let calls = runner_modules(&cfg);
        let runcmd = calls.iter().find(|c| c.name == "runcmd").unwrap();
        assert_eq!(runcmd.stage, "config");
        let as_read: ModuleCall = serde_json::from_value(json!(runcmd)).unwrap();
        assert_eq!(as_read.config, json!({"runcmd": ["ls"]}));
        assert_eq!(as_read.stage, "config");
        let fm = calls.iter().find(|c| c.name == "final_message").unwrap();
        assert_eq!((fm.stage, fm.frequency.as_str()), ("final", "always"));
    }

    #[test]
    fn image_lists_override_with_frequencies() {
        let cfg = json!({"cloud_config_modules": ["runcmd", ["timezone", "always"], 7], "cloud_final_modules": []});
        let calls = runner_modules(&cfg);
        let names: Vec<_> = calls
            .iter()
            .map(|c| (c.name.as_str(), c.stage, c.frequency.as_str()))
            .collect();
        // bootcmd belongs to the early stage, which cloud_init_modules (ember-initrd's) does not list.
        assert_eq!(
            names,
            [
                ("bootcmd", "init", "always"),
                ("ca_certs", "init", "once-per-instance"),
                ("runcmd", "config", "once-per-instance"),
                ("timezone", "config", "always")
            ]
        );
    }
}
