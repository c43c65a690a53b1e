//! Which modules run, in what order and how often: cloud-init's module lists
//! (`cloud_init_modules`, `cloud_config_modules`, `cloud_final_modules`) as the merged config
//! has them (image config, vendor-data, user-data: cloud-init reads the merged config too),
//! else, list by list, cloud-init's defaults from the module table (`module_specs`). A module
//! no list names does not run. The local stage runs its part; the rest is the module part of
//! the handoff.
//!
//! Where a module runs: a module ember applies in the initramfs runs there whatever list
//! names it (ember-initrd has it, the runner has not); a runner module runs in the runner's
//! stage of the list that names it (`cloud_init_modules`: the early unit, `ember init`).
//! <https://docs.cloud-init.io/en/latest/explanation/configuration.html>

use crate::error::Diag;
use crate::handoff::ModuleCallRef;
use crate::module_specs::{self, Spec, Stage};
use crate::reason::Reason;
use crate::state::Frequency;
use serde_json::Value;
use std::collections::BTreeMap;

/// The lists, each with the stage it stands for.
pub const LISTS: [(&str, Stage); 3] = [
    ("cloud_init_modules", Stage::Init),
    ("cloud_config_modules", Stage::Config),
    ("cloud_final_modules", Stage::Final),
];

/// One module the lists ask for.
#[derive(Debug)]
pub struct Planned {
    pub spec: &'static Spec,
    /// Where ember runs it: `Local` for a module of the initramfs, else the list's stage.
    pub stage: Stage,
    /// The list's frequency for it, else the module's own.
    pub frequency: Frequency,
}

/// Every module to run, list by list in list order; problems with the lists go to `diags`,
/// keyed by the item (`cloud_final_modules.3`). A module named twice runs once, as the first
/// entry says (cloud-init would find its semaphore the second time).
pub fn modules(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<Planned> {
    let mut out: Vec<Planned> = Vec::new();
    for (key, list_stage) in LISTS {
        let asked = match cfg.get(key) {
            Some(v) => read_list(key, v, diags),
            None => None,
        };
        let asked = asked.unwrap_or_else(|| {
            module_specs::default_list(list_stage)
                .map(|s| (s, None))
                .collect()
        });
        for (spec, frequency) in asked {
            if out.iter().any(|p| p.spec.name == spec.name) {
                continue;
            }
            let stage = match spec.stage {
                Stage::Local => Stage::Local,
                _ => list_stage,
            };
            let frequency = frequency.unwrap_or(spec.frequency);
            out.push(Planned {
                spec,
                stage,
                frequency,
            });
        }
    }
    out
}

/// One list's modules, with the frequency the list gives; `None` (with a warning) when the
/// value is no list, so cloud-init's default list is used.
fn read_list(
    key: &str,
    v: &Value,
    diags: &mut Vec<Diag>,
) -> Option<Vec<(&'static Spec, Option<Frequency>)>> {
    let items = match v {
        Value::Array(items) => items,
        // cloud-init runs nothing for an empty value.
        Value::Null | Value::Bool(false) => return Some(Vec::new()),
        _ => {
            let msg = "expected a list of modules: cloud-init's default list is used";
            diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            return None;
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{key}.{i}");
        let Some((name, freq, freq_at)) = entry(item, &at, diags) else {
            continue;
        };
        if let Some(new) = module_specs::renamed(name) {
            let msg = format!("module renamed: use {new} (the old name runs it)");
            diags.push(Diag::deprecated(Reason::Deprecated, msg).key(&at));
        }
        let Some(spec) = module_specs::find(name) else {
            if module_specs::is_removed(name) {
                continue;
            }
            let name = crate::redact::printable_up_to(name.trim(), 64);
            let msg = format!("unknown module '{name}': skipped");
            diags.push(Diag::warning(Reason::ModuleUnknown, msg).key(at));
            continue;
        };
        out.push((spec, frequency(spec, freq, freq_at, diags)));
    }
    Some(out)
}

/// An item's module name, its frequency value and that value's key path; `None` for an item
/// cloud-init skips (empty) or cannot read (with a warning).
fn entry<'v>(
    item: &'v Value,
    at: &str,
    diags: &mut Vec<Diag>,
) -> Option<(&'v str, Option<&'v Value>, String)> {
    let (name, freq, freq_at) = match item {
        Value::String(s) => (Some(s.as_str()), None, String::new()),
        // `[name, frequency, args...]`: ember's modules take no arguments.
        Value::Array(a) if a.is_empty() => return None,
        Value::Array(a) => (a[0].as_str(), a.get(1), format!("{at}.1")),
        Value::Object(m) => (
            m.get("name").and_then(Value::as_str),
            m.get("frequency"),
            format!("{at}.frequency"),
        ),
        Value::Null | Value::Bool(false) => return None,
        _ => (None, None, String::new()),
    };
    match name.filter(|n| !n.trim().is_empty()) {
        Some(n) => Some((n, freq, freq_at)),
        None if name.is_some() => None,
        None => {
            let msg = "expected a module name, [name, frequency] or {name, frequency}: skipped";
            diags.push(Diag::warning(Reason::WrongType, msg).key(at));
            None
        }
    }
}

/// The list's frequency, `None` when it gives none or one cloud-init does not know (a warning:
/// the module's own is used, as in cloud-init).
fn frequency(
    spec: &Spec,
    v: Option<&Value>,
    at: String,
    diags: &mut Vec<Diag>,
) -> Option<Frequency> {
    let v = v.filter(|v| !v.is_null())?;
    let found = v.as_str().and_then(|s| Frequency::parse(s.trim()));
    if found.is_none() {
        let own = spec.frequency.cloud_init_name();
        let msg = format!("unknown frequency: the module's own ({own}) is used");
        diags.push(Diag::warning(Reason::FrequencyUnknown, msg).key(at));
    }
    found
}

/// The runner's modules for this instance, their keys borrowed from the merged cloud-config.
/// (The lists' problems are reported by the local stage, which reads them too.)
pub fn runner_modules(cfg: &Value) -> Vec<ModuleCallRef<'_>> {
    let planned = modules(cfg, &mut Vec::new());
    let unverified: Vec<String> = match cfg.get("unverified_modules") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(module_specs::canonical)
            .collect(),
        _ => Vec::new(),
    };
    let mut calls = Vec::new();
    for stage in [Stage::Init, Stage::Config, Stage::Final] {
        for p in planned.iter().filter(|p| p.stage == stage) {
            let mut config = BTreeMap::new();
            for key in p.spec.keys {
                if let Some((k, v)) = cfg.as_object().and_then(|m| m.get_key_value(*key)) {
                    config.insert(k.as_str(), v);
                }
            }
            calls.push(ModuleCallRef {
                name: p.spec.name.to_string(),
                stage: stage.handoff_name(),
                frequency: p.frequency.cloud_init_name().to_string(),
                config,
                unverified: unverified.iter().any(|n| n == p.spec.name),
            });
        }
    }
    calls
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
