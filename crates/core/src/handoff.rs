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
    /// Python part-handlers and the parts after them they may claim, in part order, written
    /// into the target by ember-initrd (only where it has python3): run by the runner's init
    /// stage, as cloud-init runs them before its init modules.
    #[serde(default)]
    pub part_handlers: Vec<PartHandlerRef>,
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

/// One entry of [`Handoff::part_handlers`]: a handler (`content_type` is
/// `text/part-handler`) or a part for the handlers registered before it in the same data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartHandlerRef {
    /// `user-data`, `vendor-data` or `vendor-data2`: as in cloud-init, each is walked on its
    /// own, and a handler sees only the parts of its own data.
    pub source: String,
    /// How diagnostics name the part: `user-data part 2 (handler.py)`.
    pub name: String,
    /// Absolute path inside the target root of its payload (0600).
    pub path: String,
    /// The part's type (user-controlled for unknown types).
    pub content_type: String,
    /// The file name `handle_part` is given: the part's own, or `part-NNN`.
    pub filename: String,
}
