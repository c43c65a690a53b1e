//! The modules ember-initrd runs in the local stage: the file-level work that needs no running
//! system (files, hostname, users, passwords, ssh). One file per module behind one small trait;
//! the table gives cloud-init's order. Adding a module is a file and a row.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::limits::Limits;
use crate::root::Root;
use crate::state::Frequency;
use serde_json::Value;

pub mod accounts;
pub mod disk_setup;
pub mod growpart;
pub mod hostname;
pub mod mounts;
pub mod resizefs;
pub mod set_passwords;
pub mod ssh;
pub mod users;
pub mod write_files;

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
    pub urls: &'a dyn crate::fetch::HeaderUrlReader,
    /// The initramfs's own /proc, /sys and /dev (the disk modules' devices).
    pub host: &'a crate::host::Host,
    /// Where the target root is mounted, as the host's mount table names it.
    pub target_path: &'a std::path::Path,
    /// The kernel command line's words (`root=`).
    pub cmdline: &'a [String],
}

pub trait Module: Sync {
    /// cloud-init's module name: `write_files`, `users_groups`, ...
    fn name(&self) -> &'static str;
    /// How often it runs, as in cloud-init.
    fn frequency(&self) -> Frequency {
        Frequency::PerInstance
    }
    /// Applies the module; problems go to `diags` (an error fails this module only).
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>);
}

/// The names of `LOCAL`, for the runner, which must not link the modules themselves.
pub const LOCAL_NAMES: &[&str] = &[
    "write_files",
    "growpart",
    "resizefs",
    "disk_setup",
    "mounts",
    "set_hostname",
    "update_hostname",
    "update_etc_hosts",
    "users_groups",
    "ssh",
    "set_passwords",
];

/// The local stage's modules, in cloud-init's order.
pub const LOCAL: &[&dyn Module] = &[
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
    #[test]
    fn local_names_follow_the_table() {
        let names: Vec<&str> = super::LOCAL.iter().map(|m| m.name()).collect();
        assert_eq!(names, super::LOCAL_NAMES);
    }
}
