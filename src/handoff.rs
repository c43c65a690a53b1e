//! The handoff: the JSON ember-initrd leaves in `<run>/ember/handoff.json` (0600) for the
//! runner, the one contract between the two binaries. The runner needs no YAML parser and no
//! datasource code: everything it runs is spelled out here.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// `M` is what a module call is: the runner reads [`ModuleCall`]s; ember-initrd writes
/// [`ModuleCallRef`]s, the same JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Handoff<M = ModuleCall> {
    pub version: u32,
    pub instance_id: String,
    /// Path component of the instance's state directory (the id, encoded; see `state.rs`).
    pub instance_dir: String,
    pub datasource: String,
    pub first_boot: bool,
    /// Modules for the runner's config and final stages, in order.
    pub modules: Vec<M>,
    /// User scripts (from user-data parts), written into the target by ember-initrd.
    #[serde(default)]
    pub scripts: Vec<ScriptRef>,
    /// Scripts from vendor-data, run by `scripts_vendor` (and not at all when user-data says
    /// `vendor_data: {enabled: false}`).
    #[serde(default)]
    pub vendor_scripts: Vec<ScriptRef>,
    /// cloud-init's `output:` setting, where the runner's commands' output goes.
    #[serde(default)]
    pub output: Value,
    /// `#cloud-boothook` parts: run by the runner at the start of its config stage.
    #[serde(default)]
    pub boothooks: Vec<ScriptRef>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModuleCall {
    /// cloud-init's module name: `runcmd`, `scripts_user`, `final_message`, ...
    pub name: String,
    /// `config` or `final`.
    pub stage: String,
    /// `once-per-instance`, `always`, or `once`, as cloud-init names frequencies.
    pub frequency: String,
    /// The cloud-config keys this module reads, copied from the merged config.
    pub config: Value,
    /// The config's `unverified_modules` names it: it runs even on a distribution its
    /// cloud-init metadata does not list.
    #[serde(default)]
    pub unverified: bool,
}

/// A [`ModuleCall`] as ember-initrd writes it: its keys borrowed from the merged config, so
/// writing the handoff copies no user value (a large `write_files` would be held twice).
#[derive(Debug, Serialize)]
pub struct ModuleCallRef<'a> {
    pub name: String,
    pub stage: &'static str,
    pub frequency: String,
    pub config: BTreeMap<&'a str, &'a Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unverified: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptRef {
    /// Absolute path inside the target root.
    pub path: String,
    /// `once-per-instance`, `always`, or `once`.
    pub frequency: String,
}
