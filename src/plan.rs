//! Which modules the runner runs, in order, with the keys each reads: the module part of the
//! handoff. The default lists come from the module table (`module_specs`); the image's
//! `cloud_config_modules` and `cloud_final_modules` override them, as in cloud-init.

use crate::handoff::ModuleCallRef;
use crate::module_specs::{self, Stage};
use serde_json::Value;
use std::collections::BTreeMap;

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

fn stage_calls<'c>(stage: Stage, listed: Option<&Value>, cfg: &'c Value) -> Vec<ModuleCallRef<'c>> {
    let names: Vec<(String, Option<String>)> = match listed.and_then(Value::as_array) {
        Some(items) => items.iter().filter_map(entry).collect(),
        None => module_specs::default_list(stage)
            .map(|s| (s.name.to_string(), None))
            .collect(),
    };
    names
        .into_iter()
        .map(|(name, freq)| {
            let name = module_specs::canonical(&name);
            let spec = module_specs::find(&name);
            let keys: &[&str] = spec.map_or(&[], |s| s.keys);
            let mut config = BTreeMap::new();
            for key in keys {
                if let Some((k, v)) = cfg.as_object().and_then(|m| m.get_key_value(*key)) {
                    config.insert(k.as_str(), v);
                }
            }
            let frequency = freq.unwrap_or_else(|| {
                spec.map_or("once-per-instance", |s| s.frequency.cloud_init_name())
                    .into()
            });
            ModuleCallRef {
                name,
                stage: stage.handoff_name(),
                frequency,
                config,
            }
        })
        .collect()
}

/// The runner's modules for this instance, their keys borrowed from the merged cloud-config.
pub fn runner_modules(cfg: &Value) -> Vec<ModuleCallRef<'_>> {
    let mut calls = stage_calls(Stage::Init, None, cfg);
    calls.extend(stage_calls(
        Stage::Config,
        cfg.get("cloud_config_modules"),
        cfg,
    ));
    calls.extend(stage_calls(
        Stage::Final,
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
