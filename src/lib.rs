//! ember: cloud-init's detect and local stages from the initramfs.
//! The stages run in order: detect → fetch → local (ember-initrd), then config → final (runner).
//! This is the initramfs side, the library of `ember-initrd`: detection, the seed filesystems,
//! fetch (http(s) with TLS and DNS), the datasources, user-data, schema and the stages.
//!
//! Architecture invariant: the only crate that links the YAML parser (`ember-yaml`), TLS, Jinja
//! (`ember-jinja`) and the datasources, and nothing in the workspace depends on it: it runs
//! before the pivot and hands the runner (`crates/runner`) a JSON handoff. The crates below it
//! are re-exported under their names here (`ember::network`, `ember::root`), so tests, benches
//! and the fuzz targets name one crate.

pub use ember_core::bounds;
pub use ember_core::child;
pub use ember_core::clock;
pub use ember_core::cmdline;
pub use ember_core::conf_lang;
pub mod config;
pub mod context;
pub mod datasource;
pub use ember_core::date;
pub mod detect;
pub use ember_core::error;
pub use ember_disk as disk;
pub mod fetch;
pub mod fuzz;
pub use ember_core::handoff;
pub use ember_core::host;
pub mod instance_data;
pub use ember_core::limits;
pub use ember_core::malloc;
pub use ember_core::module_specs;
pub use ember_modules as modules;
pub use ember_network as network;
pub mod net_convert;
pub use ember_core::password;
pub use ember_core::paths;
pub use ember_core::percent;
pub use ember_core::plan;
pub use ember_core::pybase64;
pub use ember_core::reason;
pub use ember_core::record;
pub use ember_core::redact;
pub use ember_core::regular;
pub use ember_core::retry;
pub use ember_core::root;
pub mod schema;
pub use ember_core::secret;
pub mod measure;
pub mod seedfs;
pub mod stages;
pub use ember_core::state;
pub use ember_core::status;
pub mod userdata;
pub use ember_core::xml;
pub use ember_core::yaml_emit;
pub use ember_yaml as yaml;

/// network-config text (YAML or JSON) parsed as the boot parses it: read into a `Doc`, whose
/// line map puts a line on each diagnostic, then handed to the network crate, which takes
/// values only.
pub fn network_text(
    source: &str,
    text: &str,
    limits: &limits::Limits,
) -> Result<network::Parsed, Vec<error::Diag>> {
    let doc = yaml::parse(text, limits).map_err(|e| vec![e.to_diag(source)])?;
    network::parse(source, network::Input::Doc(&doc))
}
