//! Modules of the local stage through the real `ember-initrd all` against a target root:
//! hostname, SSH, users and groups, write_files.

#[path = "../common/mod.rs"]
mod common;

mod hostname;
mod severities;
mod ssh;
mod users;
mod write_files;
