//! The runner (`ember`): its stages, modules and operator commands chrooted into a target
//! holding a static busybox, and the whole life of an instance from `ember-initrd all` on.

#[path = "../common/mod.rs"]
mod common;

mod access;
mod apt;
mod cfgmgmt;
mod durable;
mod end_to_end;
mod hostkeys;
mod hotplug;
mod lxd;
mod module_lists;
mod more;
mod ntp;
mod part_handler;
mod plot;
mod repos;
mod snap;
mod stages;
mod subscriptions;
mod system;
mod system_more;
mod tools;
