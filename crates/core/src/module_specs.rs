//! Every config module of current cloud-init, as data: where ember runs it, how often, the
//! top-level cloud-config keys it reads, cloud-init's `distros`, and whether ember has it yet.
//! Both binaries link this table and nothing else of the modules: the handoff's default lists
//! (`plan.rs`), the initramfs/runner split and the keys of modules ember lacks are computed from
//! it. Adding a module is its file, its row here, and a row in its stage's table
//! (`modules::LOCAL` or the runner's `TABLE`).
//!
//! Facts from cloud-init's `cloudinit/config/cc_*.py` metadata and `config/cloud.cfg.tmpl`
//! (25.x/26.x, the debian variant's lists). `distros` lists later releases extended (Raspberry Pi
//! OS, Amazon Linux) may lack those names; nothing decides on them yet.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use crate::state::Frequency::{self, PerBoot, PerInstance, PerOnce};

/// Where ember runs a module (or would, for one it lacks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// ember-initrd's local stage, before the pivot: needs no running system.
    Local,
    /// The runner's early unit (`ember init`), before ssh starts: cloud-init's init-stage
    /// modules that need the booted system.
    Init,
    /// The runner's config stage (cloud-init's `cloud_config_modules`).
    Config,
    /// The runner's final stage (cloud-init's `cloud_final_modules`).
    Final,
}

impl Stage {
    /// The handoff's name for a runner stage.
    pub fn handoff_name(self) -> &'static str {
        match self {
            Stage::Local => "local",
            Stage::Init => "init",
            Stage::Config => "config",
            Stage::Final => "final",
        }
    }
}

#[derive(Debug)]
pub struct Spec {
    /// cloud-init's module name, as its module lists write it.
    pub name: &'static str,
    pub stage: Stage,
    /// Its default frequency, as in cloud-init.
    pub frequency: Frequency,
    /// The top-level cloud-config keys it reads: what the handoff carries for a runner module.
    pub keys: &'static [&'static str],
    /// cloud-init's `distros`; empty for all.
    pub distros: &'static [&'static str],
    /// Whether cloud-init's default lists (debian variant) carry it: ember's stages run these
    /// in this table's order unless the image lists its own.
    pub listed: bool,
    /// Whether cloud-init runs it when the config has none of its keys (its
    /// `activate_by_schema_keys` is empty): it acts on defaults, meta-data or the machine. A
    /// runner module without it is skipped when the handoff carries none of its keys.
    pub without_keys: bool,
    /// Whether ember has it yet.
    pub ember: bool,
}

const ALL: &[&str] = &[];
const DEBIAN: &[&str] = &["ubuntu", "debian"];
const UBUNTU: &[&str] = &["ubuntu"];
const RHEL: &[&str] = &[
    "almalinux",
    "amazon",
    "azurelinux",
    "centos",
    "cloudlinux",
    "eurolinux",
    "fedora",
    "mariner",
    "openeuler",
    "OpenCloudOS",
    "openmandriva",
    "photon",
    "rhel",
    "rocky",
    "TencentOS",
    "virtuozzo",
];
const SUSE: &[&str] = &[
    "opensuse",
    "opensuse-microos",
    "opensuse-tumbleweed",
    "opensuse-leap",
    "sle_hpc",
    "sle-micro",
    "sles",
];

/// One row: `m(name, stage, frequency, keys)` with every distro, listed, not yet in ember;
/// the builders below say otherwise.
const fn m(
    name: &'static str,
    stage: Stage,
    frequency: Frequency,
    keys: &'static [&'static str],
) -> Spec {
    Spec {
        name,
        stage,
        frequency,
        keys,
        distros: ALL,
        listed: true,
        without_keys: false,
        ember: false,
    }
}

impl Spec {
    const fn ember(self) -> Spec {
        Spec {
            ember: true,
            ..self
        }
    }
    const fn unlisted(self) -> Spec {
        Spec {
            listed: false,
            ..self
        }
    }
    const fn on(self, distros: &'static [&'static str]) -> Spec {
        Spec { distros, ..self }
    }
    const fn without_keys(self) -> Spec {
        Spec {
            without_keys: true,
            ..self
        }
    }
}

use Stage::{Config, Final, Init, Local};

/// In cloud-init's order within each stage (init, config, final), then the modules its debian
/// lists do not carry.
pub const MODULES: &[Spec] = &[
    // cloud_init_modules
    m("seed_random", Local, PerInstance, &["random_seed"])
        .ember()
        .without_keys(),
    m("bootcmd", Init, PerBoot, &["bootcmd"]).ember(),
    m("write_files", Local, PerInstance, &["write_files"]).ember(),
    m("growpart", Local, PerBoot, &["growpart"])
        .ember()
        .without_keys(),
    m("resizefs", Local, PerBoot, &["resize_rootfs"])
        .ember()
        .without_keys(),
    m(
        "disk_setup",
        Local,
        PerInstance,
        &["disk_setup", "fs_setup", "device_aliases"],
    )
    .ember(),
    m(
        "mounts",
        Local,
        PerInstance,
        &["mounts", "swap", "mount_default_fields"],
    )
    .ember()
    .without_keys(),
    m("set_hostname", Local, PerInstance, HOSTNAME_KEYS)
        .ember()
        .without_keys(),
    m("update_hostname", Local, PerBoot, HOSTNAME_KEYS)
        .ember()
        .without_keys(),
    m(
        "update_etc_hosts",
        Local,
        PerBoot,
        &["manage_etc_hosts", "hostname", "fqdn"],
    )
    .ember(),
    m("ca_certs", Init, PerInstance, &["ca_certs", "ca-certs"]).ember(),
    // The old top-level rsyslog_dir and rsyslog_filename go with the list form of rsyslog;
    // system_info for rsyslog_svcname.
    m(
        "rsyslog",
        Init,
        PerInstance,
        &["rsyslog", "rsyslog_dir", "rsyslog_filename", "system_info"],
    )
    .ember(),
    m(
        "users_groups",
        Local,
        PerInstance,
        &["users", "groups", "user"],
    )
    .ember()
    .without_keys(),
    m("ssh", Local, PerInstance, SSH_KEYS)
        .ember()
        .without_keys(),
    m(
        "set_passwords",
        Local,
        PerInstance,
        &["chpasswd", "password", "ssh_pwauth"],
    )
    .ember()
    .without_keys(),
    // cloud_config_modules
    m("wireguard", Config, PerInstance, &["wireguard"])
        .on(UBUNTU)
        .unlisted()
        .ember(),
    m("snap", Config, PerInstance, &["snap"]).on(UBUNTU).ember(),
    m("ubuntu_autoinstall", Config, PerOnce, &["autoinstall"])
        .on(UBUNTU)
        .unlisted()
        .ember(),
    // users, user, system_info: the users (and default user) whose ids it imports.
    m("ssh_import_id", Config, PerInstance, SSH_IMPORT_ID_KEYS)
        .on(&["alpine", "cos", "debian", "ubuntu"])
        .ember()
        .without_keys(),
    // system_info: cloud-init's distro (Raspberry Pi OS has its own ways).
    m(
        "keyboard",
        Config,
        PerInstance,
        &["keyboard", "system_info"],
    )
    .on(KEYBOARD_DISTROS)
    .ember(),
    m(
        "locale",
        Config,
        PerInstance,
        &["locale", "locale_configfile", "system_info"],
    )
    .ember()
    .without_keys(),
    // Activated by its keys since cloud-init 24.4 (and `enabled` defaults to false).
    m(
        "grub_dpkg",
        Config,
        PerInstance,
        &["grub_dpkg", "grub-dpkg"],
    )
    .on(DEBIAN)
    .ember(),
    m("apt_pipelining", Config, PerInstance, &["apt_pipelining"])
        .on(DEBIAN)
        .ember(),
    m("apt_configure", Config, PerInstance, APT_KEYS)
        .on(&["ubuntu", "debian", "raspberry-pi-os"])
        .without_keys()
        .ember(),
    m(
        "ubuntu_pro",
        Config,
        PerInstance,
        &["ubuntu_pro", "ubuntu_advantage", "ubuntu-advantage"],
    )
    .on(UBUNTU)
    .unlisted()
    .ember(),
    m("apk_configure", Config, PerInstance, &["apk_repos"])
        .on(&["alpine"])
        .unlisted()
        .ember(),
    m(
        "yum_add_repo",
        Config,
        PerInstance,
        &["yum_repos", "yum_repo_dir"],
    )
    .on(RHEL)
    .unlisted()
    .ember(),
    m("rh_subscription", Config, PerInstance, &["rh_subscription"])
        .on(&["fedora", "rhel"])
        .unlisted()
        .ember(),
    m("spacewalk", Config, PerInstance, &["spacewalk"])
        .on(&["rhel", "fedora", "openeuler"])
        .unlisted()
        .ember(),
    m("zypper_add_repo", Config, PerBoot, &["zypper"])
        .on(SUSE)
        .unlisted()
        .ember(),
    m("ntp", Config, PerInstance, &["ntp"]).on(NTP).ember(),
    m("timezone", Config, PerInstance, &["timezone"]).ember(),
    m(
        "disable_ec2_metadata",
        Config,
        PerBoot,
        &["disable_ec2_metadata"],
    )
    .ember(),
    m("runcmd", Config, PerInstance, &["runcmd"]).ember(),
    // user, users and system_info: the default user.
    m(
        "byobu",
        Config,
        PerInstance,
        &["byobu_by_default", "user", "users", "system_info"],
    )
    .on(DEBIAN)
    .ember(),
    m("raspberry_pi", Config, PerInstance, &["rpi"])
        .on(&["raspberry-pi-os"])
        .unlisted()
        .ember(),
    // cloud_final_modules
    m(
        "package_update_upgrade_install",
        Final,
        PerInstance,
        PACKAGE_KEYS,
    )
    .ember(),
    m("fan", Final, PerInstance, &["fan"]).on(UBUNTU).ember(),
    m("landscape", Final, PerInstance, &["landscape"])
        .on(UBUNTU)
        .ember(),
    m("lxd", Final, PerInstance, &["lxd"]).on(UBUNTU).ember(),
    m("ubuntu_drivers", Final, PerInstance, &["drivers"])
        .on(UBUNTU)
        .unlisted()
        .ember(),
    m("write_files_deferred", Final, PerInstance, &["write_files"]).ember(),
    m("puppet", Final, PerInstance, &["puppet"]).ember(),
    m("chef", Final, PerBoot, &["chef"]).ember(),
    m("ansible", Final, PerInstance, &["ansible"]).ember(),
    m("mcollective", Final, PerInstance, &["mcollective"]).ember(),
    m("salt_minion", Final, PerInstance, &["salt_minion"]).ember(),
    m("reset_rmc", Final, PerInstance, &[])
        .ember()
        .without_keys(),
    m("scripts_vendor", Final, PerInstance, &["vendor_data"])
        .ember()
        .without_keys(),
    m("scripts_per_once", Final, PerOnce, &[])
        .ember()
        .without_keys(),
    m("scripts_per_boot", Final, PerBoot, &[])
        .ember()
        .without_keys(),
    m("scripts_per_instance", Final, PerInstance, &[])
        .ember()
        .without_keys(),
    m("scripts_user", Final, PerInstance, &[])
        .ember()
        .without_keys(),
    m("ssh_authkey_fingerprints", Final, PerInstance, AUTHKEY_KEYS)
        .ember()
        .without_keys(),
    m(
        "keys_to_console",
        Final,
        PerInstance,
        &[
            "ssh",
            "ssh_fp_console_blacklist",
            "ssh_key_console_blacklist",
        ],
    )
    .ember()
    .without_keys(),
    m("install_hotplug", Final, PerInstance, &["updates"])
        .ember()
        .without_keys(),
    // hostname and fqdn: what it posts under those names.
    m(
        "phone_home",
        Final,
        PerInstance,
        &["phone_home", "hostname", "fqdn"],
    )
    .ember(),
    m("final_message", Final, PerBoot, &["final_message"])
        .ember()
        .without_keys(),
    m("power_state_change", Final, PerInstance, &["power_state"]).ember(),
    // Not in cloud-init's default lists for any distro.
    m(
        "resolv_conf",
        Init,
        PerInstance,
        &["manage_resolv_conf", "resolv_conf"],
    )
    .on(RESOLV_CONF_DISTROS)
    .unlisted()
    .ember(),
];

/// cloud-init's keyboard distros: its alpine, arch, debian, redhat and suse families.
const KEYBOARD_DISTROS: &[&str] = &[
    "alpine",
    "arch",
    "debian",
    "ubuntu",
    "raspberry-pi-os",
    "almalinux",
    "amazon",
    "azurelinux",
    "centos",
    "cloudlinux",
    "eurolinux",
    "fedora",
    "mariner",
    "miraclelinux",
    "openmandriva",
    "photon",
    "rhel",
    "rocky",
    "virtuozzo",
    "opensuse",
    "opensuse-leap",
    "opensuse-microos",
    "opensuse-tumbleweed",
    "sle_hpc",
    "sle-micro",
    "sles",
    "suse",
];
/// cloud-init's resolv_conf distros (not the Debian family).
const RESOLV_CONF_DISTROS: &[&str] = &[
    "alpine",
    "azurelinux",
    "fedora",
    "mariner",
    "opensuse",
    "opensuse-leap",
    "opensuse-microos",
    "opensuse-tumbleweed",
    "photon",
    "rhel",
    "sle_hpc",
    "sle-micro",
    "sles",
    "openeuler",
];

/// cc_ntp's `distros` (its BSDs left out: ember runs on Linux).
const NTP: &[&str] = &[
    "almalinux",
    "alpine",
    "azurelinux",
    "centos",
    "cloudlinux",
    "cos",
    "debian",
    "eurolinux",
    "fedora",
    "mariner",
    "miraclelinux",
    "openeuler",
    "OpenCloudOS",
    "openmandriva",
    "opensuse",
    "opensuse-microos",
    "opensuse-tumbleweed",
    "opensuse-leap",
    "photon",
    "rhel",
    "rocky",
    "sle_hpc",
    "sle-micro",
    "sles",
    "TencentOS",
    "ubuntu",
    "virtuozzo",
];
const HOSTNAME_KEYS: &[&str] = &[
    "hostname",
    "fqdn",
    "preserve_hostname",
    "prefer_fqdn_over_hostname",
    "create_hostname_file",
];
const SSH_KEYS: &[&str] = &[
    "ssh_keys",
    "ssh_authorized_keys",
    "ssh_deletekeys",
    "ssh_genkeytypes",
    "ssh_quiet_keygen",
    "ssh_publish_hostkeys",
    "disable_root",
    "disable_root_opts",
    "allow_public_ssh_keys",
];
/// `apt`, the deprecated top-level keys cloud-init 26 still converts, and the host's names
/// (`search_dns` looks for mirrors in its domain).
const APT_KEYS: &[&str] = &[
    "apt",
    "apt_sources",
    "apt_mirror",
    "apt_mirror_search",
    "apt_mirror_search_dns",
    "apt_proxy",
    "apt_http_proxy",
    "apt_ftp_proxy",
    "apt_https_proxy",
    "apt_preserve_sources_list",
    "apt_custom_sources_list",
    "add_apt_repo_match",
    "hostname",
    "fqdn",
];
const SSH_IMPORT_ID_KEYS: &[&str] = &["ssh_import_id", "users", "user", "system_info"];
const AUTHKEY_KEYS: &[&str] = &[
    "no_ssh_fingerprints",
    "authkey_hash",
    "users",
    "user",
    "system_info",
];
const PACKAGE_KEYS: &[&str] = &[
    "packages",
    "package_update",
    "package_upgrade",
    "package_reboot_if_required",
    "apt_update",
    "apt_upgrade",
    "apt_reboot_if_required",
];

/// A module's name as the table writes it: cloud.cfg may write `cc_` before it, `.py` after it
/// and dashes for underscores (`cc_power-state-change`).
pub fn canonical(name: &str) -> String {
    let name = name.trim().replace('-', "_");
    let name = name.strip_suffix(".py").unwrap_or(&name);
    name.strip_prefix("cc_").unwrap_or(name).to_string()
}

/// Modules older cloud-init releases had and current ones dropped, which the cloud.cfg of
/// older images still lists (Debian 12's 22.4 lists migrator, refresh_rmc_and_interface and
/// rightscale_userdata): a list naming one skips it quietly, as those releases' own modules
/// did nothing on a machine that needed none of them.
const REMOVED: &[&str] = &[
    "emit_upstart",
    "migrator",
    "refresh_rmc_and_interface",
    "rightscale_userdata",
    "snap_config",
    "snappy",
    "ubuntu_init_switch",
];

/// Modules cloud-init renamed, old name first (its `RENAMED_MODULES`): a list naming the old
/// one runs the new one, with a deprecation.
const RENAMED: &[(&str, &str)] = &[("ubuntu_advantage", "ubuntu_pro")];

/// The new name of a module cloud-init renamed, for its old name in any spelling `canonical`
/// takes.
pub fn renamed(name: &str) -> Option<&'static str> {
    let name = canonical(name);
    RENAMED
        .iter()
        .find(|(old, _)| *old == name)
        .map(|(_, new)| *new)
}

/// True for the name (in any spelling `canonical` takes) of a module cloud-init dropped.
pub fn is_removed(name: &str) -> bool {
    REMOVED.contains(&canonical(name).as_str())
}

/// The module named `name`, in any spelling `canonical` takes, or by its old name when
/// cloud-init renamed it.
pub fn find(name: &str) -> Option<&'static Spec> {
    let name = canonical(name);
    let name = renamed(&name).unwrap_or(&name);
    MODULES.iter().find(|s| s.name == name)
}

/// True for a module ember-initrd applies before the pivot: the runner never runs it, whatever
/// list names it.
pub fn in_initramfs(name: &str) -> bool {
    find(name).is_some_and(|s| s.stage == Stage::Local && s.ember)
}

impl Spec {
    /// The stage of cloud-init's list that carries it: `Init` (`cloud_init_modules`) for the
    /// initramfs's modules and the early unit's, else its own.
    pub fn list_stage(&self) -> Stage {
        match self.stage {
            Stage::Local | Stage::Init => Stage::Init,
            other => other,
        }
    }
}

/// The modules ember runs by default from cloud-init's list for `list_stage` (`Init`, `Config`
/// or `Final`): those of cloud-init's default list it has, in order. (A module it lacks is
/// reported by the local stage, which knows the key's line.)
pub fn default_list(list_stage: Stage) -> impl Iterator<Item = &'static Spec> {
    MODULES
        .iter()
        .filter(move |s| s.list_stage() == list_stage && s.listed && s.ember)
}

/// True for a key that only modules ember lacks read: the local stage warns about it, with its
/// line. A module the image lists by name reaches the runner, which warns too.
pub fn is_lacking_key(key: &str) -> bool {
    let mut readers = MODULES.iter().filter(|s| s.keys.contains(&key)).peekable();
    readers.peek().is_some() && readers.all(|s| !s.ember)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (i, s) in MODULES.iter().enumerate() {
            assert!(MODULES[..i].iter().all(|o| o.name != s.name), "{}", s.name);
            assert_eq!(find(s.name).map(|f| f.name), Some(s.name));
        }
        assert_eq!(find("cc_runcmd").map(|s| s.name), Some("runcmd"));
        assert_eq!(find(" cc_runcmd.py").map(|s| s.name), Some("runcmd"));
        assert_eq!(
            find("power-state-change").map(|s| s.name),
            Some("power_state_change")
        );
        assert!(find("no_such_module").is_none());
        assert!(
            REMOVED.iter().all(|r| find(r).is_none()),
            "removed yet in the table"
        );
        assert!(is_removed("cc_rightscale-userdata") && !is_removed("runcmd"));
        // cloud-init 24.1 renamed ubuntu_advantage; lists naming it run ubuntu_pro.
        assert_eq!(
            find("cc_ubuntu-advantage").map(|s| s.name),
            Some("ubuntu_pro")
        );
        assert_eq!(renamed("ubuntu_advantage"), Some("ubuntu_pro"));
        assert!(!is_removed("ubuntu_advantage") && renamed("ubuntu_pro").is_none());
    }

    #[test]
    fn every_key_is_a_known_cloud_config_key() {
        for s in MODULES {
            for k in s.keys {
                assert!(crate::config::known_keys::is_known(k), "{}: {k}", s.name);
            }
        }
    }

    /// The manual's modules page names the modules that run with no key of their own, those
    /// ember has and those it lacks, as this table says.
    #[test]
    fn the_manual_lists_the_modules_that_run_without_keys() {
        let readme = include_str!("../../../docs/src/modules/index.md");
        let start = readme
            .find("**Run with no key.**")
            .expect("the modules page's paragraph");
        let para = &readme[start..];
        let para = &para[..para.find("\n\n").unwrap_or(para.len())];
        let (has, lacks) = para.split_once("ember lacks").expect("two sentences");
        let named = |text: &str| {
            let mut v: Vec<String> = text
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            crate::sort::sort(&mut v);
            v
        };
        let want = |ember: bool| {
            let mut v: Vec<String> = MODULES
                .iter()
                .filter(|s| s.listed && s.without_keys && s.ember == ember)
                .map(|s| s.name.to_string())
                .collect();
            crate::sort::sort(&mut v);
            v
        };
        assert_eq!(named(has), want(true));
        assert_eq!(named(lacks), want(false));
    }

    #[test]
    fn lacking_keys() {
        // Every module of current cloud-init is ember's: no key lacks its module.
        assert!(MODULES.iter().all(|s| s.ember), "a module ember lacks");
        let every_key = MODULES.iter().flat_map(|s| s.keys);
        assert!(every_key.clone().all(|k| !is_lacking_key(k)));
        assert!(!is_lacking_key("random_seed") && !is_lacking_key("authkey_hash"));
        assert!(!is_lacking_key("ssh"), "keys_to_console reads it");
        assert!(!is_lacking_key("runcmd") && !is_lacking_key("write_files"));
        assert!(!is_lacking_key("hostname"), "read by set_hostname too");
        assert!(!is_lacking_key("no_such_key"));
    }
}
