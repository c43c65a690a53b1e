//! The runner (`ember`): its stages, modules and operator commands chrooted into a target
//! holding a static busybox, and the whole life of an instance from `ember-initrd all` on.

#[path = "../common/mod.rs"]
mod common;

mod access;
mod end_to_end;
mod module_lists;
mod more;
mod stages;
mod tools;
