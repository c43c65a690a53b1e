//! ember: cloud-init's detect and local stages from the initramfs.
//! The stages run in order: detect → fetch → local (ember-initrd), then config → final (runner).
#![deny(unsafe_code)]
// A `Diag` is ~136 bytes; it travels only on the rare error path, where boxing buys nothing.
#![allow(clippy::result_large_err)]

pub mod child;
pub mod clock;
pub mod cmdline;
pub mod conf_lang;
pub mod config;
pub mod context;
pub mod datasource;
pub mod date;
pub mod detect;
pub mod disk;
pub mod error;
pub mod fetch;
pub mod fuzz;
pub mod handoff;
pub mod host;
pub mod instance_data;
pub mod limits;
pub mod malloc;
pub mod module_specs;
pub mod modules;
pub mod network;
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
pub mod runner;
pub mod schema;
pub mod secret;
pub mod seedfs;
pub mod stages;
pub mod state;
pub mod status;
pub mod userdata;
pub mod xml;
pub mod yaml;
