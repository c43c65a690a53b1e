//! The fault suite: what ember does with hostile, broken or slow input (seed volumes,
//! metadata, user-data, network models, budgets, hangs, stale state, output), and bad input in
//! general: a clear error, the rest still used, nothing secret leaked. One module per class:
//! paths another user controls (`user_paths`, `collect_logs`: rule 13), names and values that
//! must stay one name and one value (`names`, `config_values`: rule 14), what a datasource
//! builds in all (`ds_budgets`: rule 9), waits and children without end (`hangs`, `surfaces`:
//! rule 15), and the older classes in the rest.

#[path = "../common/mod.rs"]
mod common;
mod seed_images;

mod bad_input;
mod boots;
mod budgets;
mod collect_logs;
mod config_values;
mod ds_budgets;
mod durable;
mod escapes;
mod hangs;
mod metadata;
mod names;
mod network_model;
mod output;
mod secrets;
mod seeds;
mod stale_state;
mod surfaces;
mod user_paths;
mod userdata;
mod write_files;
