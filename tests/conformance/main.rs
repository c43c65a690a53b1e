//! Conformance: ember against cloud-init's own tests. Each table row is a fact taken from an
//! upstream test or source (named in the row: file, test and case), written in our words, and
//! checked against ember's real binaries. A row where ember deliberately differs keeps ember's
//! outcome and names the entry of the manual's differences page that explains it; the table
//! fails if that entry is missing. Nothing here runs cloud-init.

#[path = "../common/mod.rs"]
mod common;

mod differences;
mod ds_identify;
mod modules;
mod network;
mod schema_cli;
mod system_cfg;
