//! Every cloud-config module ember runs, whatever its stage, one home each: `<name>.rs` or
//! `<name>/`, holding its settings reader (`READER`, which `ember schema` links too), its
//! effect and its glue. The module table (`ember_core::module_specs`) says which stage runs
//! it; `local` holds the initramfs stage's trait and order, `booted` the runner stages'. What
//! several modules share and none owns lives in `common/`, not in a module's folder.
//!
//! Architecture invariant: both binaries link this crate, so it reads no YAML, speaks no TLS,
//! renders no Jinja and knows no datasource. A module that fetches takes
//! `ember_core::url_read::HeaderUrlReader`, one that renders a template takes
//! `ember_core::template::Jinja` (the initramfs stage passes both in) or hands the template to
//! `ember-initrd render`; every write into the target goes through `ember_core::root`.

use ember_core::{
    clock, cmdline, conf_lang, config, date, error, gzip, handoff, host, initrd, instance, limits,
    module_specs, password, paths, pybase64, reason, record, redact, retry, root, secret, state,
    template, url_read, yaml_doc, yaml_emit,
};
use ember_disk as disk;

pub mod booted;
pub mod common;
// The shared helpers by their short names, for the modules' `use super::{shell, ...}`.
use common::{distro, shell};
pub mod local;

pub use booted::*;
pub use local::{Module, ModuleCtx, LOCAL};

pub mod ansible;
pub mod apk_configure;
pub mod apt;
pub mod apt_pipelining;
mod bootcmd;
mod byobu;
pub mod ca_certs;
pub mod chef;
mod disable_ec2_metadata;
pub mod disk_setup;
mod fan;
pub mod final_message;
pub mod growpart;
mod grub_dpkg;
pub mod hostname;
mod install_hotplug;
mod keyboard;
pub mod keys_to_console;
pub mod landscape;
mod locale;
pub mod lxd;
pub mod mcollective;
pub mod mounts;
pub mod ntp;
pub mod packages;
pub mod phone_home;
pub mod power_state;
pub mod puppet;
mod raspberry_pi;
mod reset_rmc;
pub mod resizefs;
mod resolv_conf;
pub mod rh_subscription;
mod rsyslog;
mod runcmd;
pub mod salt_minion;
mod scripts;
pub mod seed_random;
pub mod set_passwords;
pub mod snap;
pub mod spacewalk;
pub mod ssh;
pub mod ssh_authkey_fingerprints;
pub mod ssh_import_id;
pub mod ssh_publish_hostkeys;
pub mod timezone;
pub mod ubuntu_autoinstall;
pub mod ubuntu_drivers;
pub mod ubuntu_pro;
pub mod users;
pub mod wireguard;
pub mod write_files;
mod write_files_deferred;
pub mod yum_add_repo;
pub mod zypper_add_repo;
