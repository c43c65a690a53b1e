//! ember's spine, linked by both binaries: diagnostics and their reasons, budgets, the one
//! writer into the target root, instance state and records, the handoff between the stages,
//! the module table and plan, and the cloud-config readers' shapes.
//!
//! Architecture invariant: this crate reads no YAML, speaks no TLS, renders no Jinja and knows
//! no datasource. Its dependencies are rustix, serde, serde_json, base64, flate2 and ring (password hashes); whatever
//! needs more lives in a crate above it. Every write into the target goes through `root`.

pub mod bounds;
pub mod child;
pub mod clock;
pub mod cmdline;
pub mod conf_lang;
pub mod config;
pub mod date;
pub mod error;
pub mod gzip;
pub mod handoff;
pub mod host;
pub mod initrd;
pub mod instance;
pub mod limits;
pub mod malloc;
pub mod mime;
pub mod module_specs;
pub mod password;
pub mod paths;
pub mod percent;
pub mod plan;
pub mod pybase64;
pub mod reason;
pub mod record;
pub mod redact;
pub mod regular;
pub mod retry;
pub mod root;
pub mod secret;
pub mod sort;
pub mod state;
pub mod status;
pub mod template;
pub mod url_read;
pub mod xml;
pub mod yaml_doc;
pub mod yaml_emit;
