//! The fault suite: what ember does with hostile, broken or slow input (seed volumes,
//! metadata, user-data, network models, budgets, hangs, stale state, output), and bad input in
//! general: a clear error, the rest still used, nothing secret leaked.

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
