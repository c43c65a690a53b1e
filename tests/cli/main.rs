//! The command-line surface of the built binaries: `ember query`, `ember status`, `schema`,
//! the man page made from `--help`, and the disable toggles.

#[path = "../common/mod.rs"]
mod common;

mod book_examples;
mod disabled;
mod man_page;
mod query;
mod schema;
mod status;
mod tools;
