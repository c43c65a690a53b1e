//! Disks: disk_setup and fs_setup, partition plans and tables, mounts and swap, growpart and
//! resizefs; on real loop devices where root is available.

#[path = "../common/mod.rs"]
mod common;

mod growroot;
mod layout;
mod mounts;
mod setup;
mod table;
