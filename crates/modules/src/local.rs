//! The local stage's side of the modules, which ember-initrd runs before the pivot: the
//! file-level work that needs no running system (random seed, files, hostname, users,
//! passwords, ssh, disks). One small trait; `LOCAL` holds them in the module table's order
//! (`module_specs`, which also gives each its frequency). A module of this stage is its folder
//! or file, its row in the module table and a row in `LOCAL`; it hands out its `Reader` so
//! `ember schema` checks its keys with its own code.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use super::*;
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::instance::InstanceData;
use crate::limits::Limits;
use crate::root::Root;
use serde_json::Value;

/// What a module works with. Everything it writes goes through `root`.
pub struct ModuleCtx<'a> {
    /// The target root (writes are batched: the stage syncs before marking a module done).
    pub root: &'a Root,
    /// The merged cloud-config (image config, vendor-data, user-data).
    pub cfg: &'a Value,
    /// The instance: meta-data (hostname, public keys), instance id.
    pub instance: &'a InstanceData,
    pub limits: &'a Limits,
    /// The target's distribution id from os-release (`debian`, `fedora`, …), empty if unknown.
    pub distro: &'a str,
    /// The console: the one place a generated secret may be shown (chpasswd RANDOM), and where
    /// host key fingerprints go.
    pub console: &'a dyn Fn(&str),
    /// http(s) for modules that fetch (`write_files` `source`), with the datasource's deadlines.
    pub urls: &'a dyn crate::url_read::HeaderUrlReader,
    /// Jinja for the templates a module renders (`/etc/cloud/templates/hosts.*.tmpl`).
    pub jinja: &'a dyn crate::template::Jinja,
    /// The initramfs's own /proc, /sys and /dev (the disk modules' devices).
    pub host: &'a crate::host::Host,
    /// Where the target root is mounted, as the host's mount table names it.
    pub target_path: &'a std::path::Path,
    /// The kernel command line's words (`root=`).
    pub cmdline: &'a [String],
    /// Semaphores the module sets besides its own, marked after the stage's durable point.
    pub marks: &'a crate::state::ExtraMarks,
}

pub trait Module: Sync {
    /// cloud-init's module name: `write_files`, `users_groups`, ...
    fn name(&self) -> &'static str;
    /// Applies the module; problems go to `diags` (an error fails this module only).
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>);
    /// The shapes of its keys and its typed reader, for `ember schema`. `None` for a module
    /// whose keys another module's reader reads.
    fn reader(&self) -> Option<&'static Reader> {
        None
    }
}

/// The local stage's modules, in cloud-init's order.
pub const LOCAL: &[&dyn Module] = &[
    &seed_random::SeedRandom,
    &write_files::WriteFiles,
    &growpart::Growpart,
    &resizefs::Resizefs,
    &disk_setup::DiskSetup,
    &mounts::Mounts,
    &hostname::SetHostname,
    &hostname::UpdateHostname,
    &hostname::UpdateEtcHosts,
    &users::UsersGroups,
    &ssh::Ssh,
    &set_passwords::SetPasswords,
];

#[cfg(test)]
mod tests {
    use crate::module_specs::{Stage, MODULES};

    /// The table's local modules that ember has are exactly `LOCAL`, in the table's order.
    #[test]
    fn local_follows_the_module_table() {
        let names: Vec<&str> = super::LOCAL.iter().map(|m| m.name()).collect();
        let specs: Vec<&str> = MODULES
            .iter()
            .filter(|s| s.stage == Stage::Local && s.ember)
            .map(|s| s.name)
            .collect();
        assert_eq!(names, specs);
    }
}
