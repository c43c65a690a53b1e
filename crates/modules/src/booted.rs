//! The booted stages' side of the modules: what the handoff lists for the `init`, `config` and `final` stages,
//! one file per module behind one small trait, found by cloud-init's name in `TABLE`. Each
//! runs as a timed step under its semaphore; a failing one never stops the next. A module the
//! handoff lists with config that ember cannot run yet is a warning naming its keys, never
//! silently dropped.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use super::*;
use crate::common::exec::Exec;
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::handoff::{Handoff, ModuleCall};
use crate::module_specs;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::root::Root;
use crate::state::{Frequency, Semaphores};
use serde_json::Value;
use std::cell::RefCell;

/// What a module works with. Writes go through `root`, commands through `exec`.
pub struct ModCtx<'a> {
    pub root: &'a Root,
    pub exec: &'a Exec<'a>,
    pub handoff: &'a Handoff,
    pub sems: &'a Semaphores<'a>,
    /// cloud-init's instance directory, `/var/lib/cloud/instances/<encoded id>`, which
    /// `/var/lib/cloud/instance` links to.
    pub ci_instance: String,
    /// cloud-init's description of the datasource (`DataSourceNoCloud [seed=/dev/sr0]`).
    pub datasource: String,
    /// The `shutdown` command `power_state_change` asks for, run once the final stage has
    /// recorded its end (so result.json and boot-finished exist before the machine goes down).
    pub power: RefCell<Option<Vec<String>>>,
}

/// How the runner guards a module with its semaphore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Replayable: marked done only when it recorded no error, so a failure retries next boot.
    Idempotent,
    /// Runs user code or acts on the machine: marked started before and done after, whatever
    /// the result, so it runs at most once per period and an interrupted run is reported
    /// rather than repeated (RELIABILITY rule 11). Per-boot ones simply run each boot.
    AtMostOnce,
    /// Runs every time; the module guards each of its items (scripts with their own frequency).
    PerItem,
}

pub trait RunnerModule: Sync {
    /// cloud-init's module name: `runcmd`, `scripts_user`, ...
    fn name(&self) -> &'static str;
    fn guard(&self) -> Guard {
        Guard::Idempotent
    }
    /// Applies the module; problems go to `diags` (an error fails this module only).
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>);
    /// Applies a `PerItem` module at the frequency the module lists give it (its items' own
    /// frequencies, unless that says every boot). Others implement `run` alone.
    fn run_at(&self, ctx: &ModCtx, cfg: &Value, freq: Frequency, diags: &mut Vec<Diag>) {
        let _ = freq;
        self.run(ctx, cfg, diags)
    }
}

/// One row per module: its name, the module, and its reader (the shapes of its keys and the
/// typed reader its `run` calls; `None` for a module with no keys, or whose keys another
/// module's reader reads). The macro makes two tables of the rows, so `ember schema` (in
/// ember-initrd) links the readers and none of the modules' run code.
macro_rules! modules {
    ($($name:literal => $module:expr, $reader:expr;)*) => {
        pub const TABLE: &[&dyn RunnerModule] = &[$(&$module,)*];
        pub static READERS: &[(&str, Option<&Reader>)] = &[$(($name, $reader),)*];
    };
}

modules! {
    "apt_configure" => apt::AptConfigure, Some(&apt::READER);
    "apt_pipelining" => apt_pipelining::AptPipelining, Some(&apt_pipelining::READER);
    "bootcmd" => bootcmd::Bootcmd, Some(&bootcmd::READER);
    "ca_certs" => ca_certs::CaCerts, Some(&ca_certs::READER);
    "ntp" => ntp::Ntp, Some(&ntp::READER);
    "package_update_upgrade_install" => packages::Packages, Some(&packages::READER);
    "phone_home" => phone_home::PhoneHome, Some(&phone_home::READER);
    "runcmd" => runcmd::Runcmd, Some(&runcmd::READER);
    "timezone" => timezone::Timezone, Some(&timezone::READER);
    "ubuntu_autoinstall" => ubuntu_autoinstall::UbuntuAutoinstall, Some(&ubuntu_autoinstall::READER);
    "ubuntu_pro" => ubuntu_pro::UbuntuPro, Some(&ubuntu_pro::READER);
    "rh_subscription" => rh_subscription::RhSubscription, Some(&rh_subscription::READER);
    "spacewalk" => spacewalk::Spacewalk, Some(&spacewalk::READER);
    "landscape" => landscape::Landscape, Some(&landscape::READER);
    "write_files_deferred" => write_files_deferred::WriteFilesDeferred, None;
    "puppet" => puppet::Puppet, Some(&puppet::READER);
    "chef" => chef::Chef, Some(&chef::READER);
    "ansible" => ansible::Ansible, Some(&ansible::READER);
    "mcollective" => mcollective::Mcollective, Some(&mcollective::READER);
    "salt_minion" => salt_minion::SaltMinion, Some(&salt_minion::READER);
    "scripts_vendor" => scripts::Vendor, Some(&scripts::VENDOR_READER);
    "scripts_per_once" => scripts::PER_ONCE, None;
    "scripts_per_boot" => scripts::PER_BOOT, None;
    "scripts_per_instance" => scripts::PER_INSTANCE, None;
    "scripts_user" => scripts::User, None;
    "final_message" => final_message::FinalMessage, Some(&final_message::READER);
    "power_state_change" => power_state::PowerState, Some(&power_state::READER);
    "yum_add_repo" => yum_add_repo::YumAddRepo, Some(&yum_add_repo::READER);
    "zypper_add_repo" => zypper_add_repo::ZypperAddRepo, Some(&zypper_add_repo::READER);
    "apk_configure" => apk_configure::ApkConfigure, Some(&apk_configure::READER);
    "snap" => snap::Snap, Some(&snap::READER);
    "lxd" => lxd::Lxd, Some(&lxd::READER);
    "ubuntu_drivers" => ubuntu_drivers::UbuntuDrivers, Some(&ubuntu_drivers::READER);
    "locale" => locale::Locale, Some(&locale::READER);
    "keyboard" => keyboard::Keyboard, Some(&keyboard::READER);
    "resolv_conf" => resolv_conf::ResolvConf, Some(&resolv_conf::READER);
    "rsyslog" => rsyslog::Rsyslog, Some(&rsyslog::READER);
    "grub_dpkg" => grub_dpkg::GrubDpkg, Some(&grub_dpkg::READER);
    "byobu" => byobu::Byobu, Some(&byobu::READER);
    "disable_ec2_metadata" => disable_ec2_metadata::DisableEc2Metadata, Some(&disable_ec2_metadata::READER);
    "fan" => fan::Fan, Some(&fan::READER);
    "install_hotplug" => install_hotplug::InstallHotplug, Some(&install_hotplug::READER);
    "reset_rmc" => reset_rmc::ResetRmc, None;
    "raspberry_pi" => raspberry_pi::RaspberryPi, Some(&raspberry_pi::READER);
    "ssh_import_id" => ssh_import_id::SshImportId, Some(&ssh_import_id::READER);
    "wireguard" => wireguard::Wireguard, Some(&wireguard::READER);
    "ssh_authkey_fingerprints" => ssh_authkey_fingerprints::SshAuthkeyFingerprints,
        Some(&ssh_authkey_fingerprints::READER);
    "keys_to_console" => keys_to_console::KeysToConsole, Some(&keys_to_console::READER);
}

pub use distro::which;
pub use scripts::run_script;

/// Runs the handoff's modules for `stage` in order. `prefix` starts step and file names
/// (`init/` for the early unit's steps, which are kept in the config stage's record).
pub fn run_stage(rec: &mut Recorder, ctx: &ModCtx, stage: &str, prefix: &str) {
    let os = distro::OsRelease::read(ctx.root);
    for call in ctx.handoff.modules.iter().filter(|c| c.stage == stage) {
        let label = format!("{prefix}module {}", call.name);
        let has_config = call.config.as_object().is_some_and(|m| !m.is_empty());
        let spec_of = module_specs::find(&call.name);
        if let Some(result) = spec_of.and_then(|s| not_verified(s, call, &os)) {
            rec.skipped(&label, result);
            continue;
        }
        let Some(module) = TABLE.iter().find(|m| m.name() == call.name) else {
            let result = unsupported(rec, call, &label);
            rec.skipped(&label, result);
            continue;
        };
        let spec = spec_of;
        // As cloud-init: a module that acts only on its keys is skipped without them.
        if !spec.is_some_and(|s| s.without_keys) && !has_config {
            rec.skipped(&label, "skipped (no config)".into());
            continue;
        }
        let own = spec.map_or(Frequency::PerInstance, |s| s.frequency);
        let freq = match Frequency::parse(&call.frequency) {
            Some(f) => f,
            None => {
                let msg = format!(
                    "unknown frequency; the module's own ({}) is used",
                    own.cloud_init_name()
                );
                let d = Diag::warning(Reason::FrequencyUnknown, msg).file(label.clone());
                rec.record(d);
                own
            }
        };
        if module.guard() != Guard::PerItem {
            if let Some(result) = ctx.sems.skip(module.name(), freq, |d| rec.record(d)) {
                rec.skipped(&label, result);
                continue;
            }
        }
        rec.step(&label, |rec| {
            let mut diags = Vec::new();
            run_guarded(ctx, *module, freq, &call.config, &mut diags);
            rec.record_all(diags.into_iter().map(|d| match d.file {
                Some(_) => d,
                None => d.file(label.clone()),
            }));
        });
    }
}

/// As cloud-init: a module whose metadata lists distributions, none of them the target's (its
/// os-release `ID`, or an `ID_LIKE` a derivative names), is skipped unless the config's
/// `unverified_modules` names it. Returns the step's result when it is skipped.
fn not_verified(
    spec: &module_specs::Spec,
    call: &ModuleCall,
    os: &distro::OsRelease,
) -> Option<String> {
    if spec.distros.is_empty() || call.unverified {
        return None;
    }
    let mut names = std::iter::once(&os.id).chain(&os.like);
    // os-release IDs are lower case; cloud-init's lists spell some with capitals (TencentOS).
    if names.any(|n| spec.distros.iter().any(|d| d.eq_ignore_ascii_case(n))) {
        return None;
    }
    let id = if os.id.is_empty() {
        "unknown"
    } else {
        os.id.as_str()
    };
    Some(format!(
        "skipped (not verified on distro {id}; unverified_modules runs it anyway)"
    ))
}

/// `ember single`: one module of the handoff, now. With `--frequency always` it runs
/// whatever its semaphore says; otherwise under its semaphore as in a stage. `Err` says why it
/// cannot run; `Ok(false)` that its semaphore says it already ran.
pub fn run_single(
    ctx: &ModCtx,
    call: &ModuleCall,
    always: bool,
    diags: &mut Vec<Diag>,
) -> Result<bool, String> {
    let Some(module) = TABLE.iter().find(|m| m.name() == call.name) else {
        return Err(format!("{} is not a module the runner can run", call.name));
    };
    let freq = Frequency::parse(&call.frequency).unwrap_or(Frequency::PerInstance);
    if always {
        module.run(ctx, &call.config, diags);
        return Ok(true);
    }
    if module.guard() != Guard::PerItem {
        let mut unreadable = None;
        if ctx
            .sems
            .skip(module.name(), freq, |d| unreadable = Some(d))
            .is_some()
        {
            return match unreadable {
                Some(d) => Err(d.to_string()),
                None => Ok(false),
            };
        }
    }
    run_guarded(ctx, *module, freq, &call.config, diags);
    Ok(true)
}

/// Runs a module whose semaphore let it run, and records it done as its `Guard` says: the
/// one place for it, for the stages and for `ember single`.
fn run_guarded(
    ctx: &ModCtx,
    module: &dyn RunnerModule,
    freq: Frequency,
    cfg: &Value,
    diags: &mut Vec<Diag>,
) {
    match module.guard() {
        Guard::PerItem => module.run_at(ctx, cfg, freq, diags),
        Guard::AtMostOnce => {
            once(ctx, module.name(), freq, diags, |d| module.run(ctx, cfg, d));
        }
        Guard::Idempotent => {
            module.run(ctx, cfg, diags);
            if !diags.iter().any(Diag::is_error) {
                if let Err(e) = ctx.sems.mark_done(module.name(), freq) {
                    diags.push(Diag::error(e.code(), e.to_string()));
                }
            }
        }
    }
}

/// Runs `f` at most once per `freq` period under the semaphore `name` (see `Guard`). Returns
/// whether it ran.
pub fn once(
    ctx: &ModCtx,
    name: &str,
    freq: Frequency,
    diags: &mut Vec<Diag>,
    f: impl FnOnce(&mut Vec<Diag>),
) -> bool {
    let sem_err = |e: crate::root::RootError| Diag::error(e.code(), e.to_string());
    match ctx.sems.done(name, freq) {
        Ok(false) => {}
        Ok(true) => return false,
        Err(d) => {
            diags.push(d);
            return false;
        }
    }
    let started = format!("{name}.started");
    if freq != Frequency::PerBoot {
        match ctx.sems.done(&started, freq) {
            Ok(false) => {}
            Ok(true) => {
                diags.push(Diag::error(
                    Reason::Interrupted,
                    format!("{name} started on an earlier boot and did not finish; not run again"),
                ));
                if let Err(e) = ctx.sems.mark_done(name, freq) {
                    diags.push(sem_err(e));
                }
                return false;
            }
            Err(d) => {
                diags.push(d);
                return false;
            }
        }
        if let Err(e) = ctx.sems.mark_started(&started, freq) {
            // Without the marker an interruption would go unnoticed: do not run.
            diags.push(sem_err(e));
            return false;
        }
    }
    // The marker on the disk before anything that must not happen twice.
    ctx.exec.flush_before_commands(freq != Frequency::PerBoot);
    f(diags);
    ctx.exec.flush_before_commands(false);
    if let Err(e) = ctx.sems.mark_done(name, freq) {
        diags.push(sem_err(e));
    }
    true
}

/// A module ember does not run: a warning per key it would have read, so nothing the user
/// asked for disappears without a word. Returns the step's result.
fn unsupported(rec: &mut Recorder, call: &ModuleCall, label: &str) -> String {
    if crate::module_specs::in_initramfs(&call.name) {
        return "skipped (applied by ember-initrd)".into();
    }
    let name = call.name.as_str();
    let warn = |key: String| {
        Diag::warning(
            Reason::ModuleUnsupported,
            format!("module {name} not supported yet"),
        )
        .key(key)
        .file(label.to_string())
    };
    let mut keys = Vec::new();
    if let Some(map) = call.config.as_object() {
        keys.extend(map.keys().cloned());
    }
    if keys.is_empty() {
        return "skipped (no config)".into();
    }
    rec.record_all(keys.into_iter().map(warn));
    "skipped (not supported yet)".into()
}

#[cfg(test)]
mod tests {
    use crate::module_specs::{Stage, MODULES};

    #[test]
    fn a_module_not_verified_on_the_distro_is_skipped_unless_asked_for() {
        let spec = crate::module_specs::find("apt_pipelining").unwrap();
        let mut call = super::ModuleCall {
            name: "apt_pipelining".into(),
            stage: "config".into(),
            frequency: "once-per-instance".into(),
            config: serde_json::json!({}),
            unverified: false,
        };
        let os = |t: &str| crate::common::distro::OsRelease::parse(t);
        assert_eq!(super::not_verified(spec, &call, &os("ID=debian\n")), None);
        assert_eq!(
            super::not_verified(
                spec,
                &call,
                &os("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n")
            ),
            None
        );
        let skipped = super::not_verified(spec, &call, &os("ID=fedora\n")).unwrap();
        assert!(
            skipped.contains("not verified on distro fedora"),
            "{skipped}"
        );
        call.unverified = true;
        assert_eq!(super::not_verified(spec, &call, &os("ID=fedora\n")), None);
        let all = crate::module_specs::find("runcmd").unwrap();
        assert_eq!(super::not_verified(all, &call, &os("")), None);
    }

    /// Each row's name is its module's.
    #[test]
    fn readers_follow_the_table() {
        let names: Vec<&str> = super::TABLE.iter().map(|m| m.name()).collect();
        let readers: Vec<&str> = super::READERS.iter().map(|r| r.0).collect();
        assert_eq!(names, readers);
    }

    /// The runner has exactly the table's modules that ember has outside the local stage.
    #[test]
    fn table_follows_the_module_table() {
        let mut names: Vec<&str> = super::TABLE.iter().map(|m| m.name()).collect();
        let mut specs: Vec<&str> = MODULES
            .iter()
            .filter(|s| s.stage != Stage::Local && s.ember)
            .map(|s| s.name)
            .collect();
        names.sort_unstable();
        specs.sort_unstable();
        assert_eq!(names, specs);
    }
}
