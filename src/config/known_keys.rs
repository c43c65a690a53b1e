//! Top-level cloud-config keys that cloud-init (and ember) know. Anything else in user-data or
//! vendor-data is reported as a warning with its line, as `cloud-init schema` would.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

const KNOWN: &[&str] = &[
    "_log",
    "allow_public_ssh_keys",
    "allow_userdata",
    "ansible",
    "apk_repos",
    "apt",
    "apt_pipelining",
    "apt_preserve_sources_list",
    "apt_reboot_if_required",
    "apt_update",
    "apt_upgrade",
    "autoinstall",
    "bootcmd",
    "byobu_by_default",
    "ca-certs",
    "ca_certs",
    "chef",
    "chpasswd",
    "cloud_config_modules",
    "cloud_final_modules",
    "cloud_init_modules",
    "create_hostname_file",
    "datasource",
    "datasource_list",
    "def_log_file",
    "device_aliases",
    "disable_ec2_metadata",
    "disable_network_activation",
    "disable_root",
    "disable_root_opts",
    "disable_vmware_customization",
    "disk_setup",
    "drivers",
    "ember",
    "fan",
    "final_message",
    "fqdn",
    "fs_setup",
    "groups",
    "growpart",
    "grub-dpkg",
    "grub_dpkg",
    "hostname",
    "keyboard",
    "keys_to_console",
    "landscape",
    "launch-index",
    "locale",
    "locale_configfile",
    "log_cfgs",
    "lxd",
    "manage_etc_hosts",
    "manage_resolv_conf",
    "manual_cache_clean",
    "mcollective",
    "merge_how",
    "merge_type",
    "mount_default_fields",
    "mounts",
    "network",
    "no_ssh_fingerprints",
    "ntp",
    "output",
    "package_reboot_if_required",
    "package_update",
    "package_upgrade",
    "packages",
    "password",
    "phone_home",
    "power_state",
    "prefer_fqdn_over_hostname",
    "preserve_hostname",
    "puppet",
    "random_seed",
    "reporting",
    "resize_rootfs",
    "resolv_conf",
    "rh_subscription",
    "rsyslog",
    "runcmd",
    "salt_minion",
    "snap",
    "spacewalk",
    "ssh",
    "ssh_authorized_keys",
    "ssh_deletekeys",
    "ssh_fp_console_blacklist",
    "ssh_genkeytypes",
    "ssh_import_id",
    "ssh_key_console_blacklist",
    "ssh_keys",
    "ssh_publish_hostkeys",
    "ssh_pwauth",
    "ssh_quiet_keygen",
    "swap",
    "syslog_fix_perms",
    "system_info",
    "timezone",
    "ubuntu_advantage",
    "ubuntu_pro",
    "unverified_modules",
    "updates",
    "user",
    "users",
    "vendor_data",
    "vendor_data2",
    "version",
    "wireguard",
    "write_files",
    "yum_repo_dir",
    "yum_repos",
    "zypper",
];

/// Keys of cloud-init modules ember has no module for yet, and which no runner module takes
/// from the handoff either: reported as warnings so they are never silently dropped. (Keys of
/// modules the handoff lists, such as `locale`, are reported by the runner.)
const UNSUPPORTED: &[&str] = &[
    "ansible", "apk_repos", "apt", "apt_pipelining", "autoinstall", "byobu_by_default", "chef",
    "device_aliases", "disk_setup", "drivers", "fan", "fs_setup", "growpart", "grub-dpkg",
    "grub_dpkg", "landscape", "lxd", "manage_resolv_conf", "mcollective", "mount_default_fields",
    "mounts", "puppet", "random_seed", "resize_rootfs", "resolv_conf", "rh_subscription",
    "rsyslog", "salt_minion", "snap", "spacewalk", "swap", "ubuntu_advantage", "ubuntu_pro",
    "wireguard", "yum_repo_dir", "yum_repos", "zypper",
];

/// True for a key whose module ember does not have yet.
pub fn is_unsupported(key: &str) -> bool {
    UNSUPPORTED.binary_search(&key).is_ok()
}

pub fn is_known(key: &str) -> bool {
    KNOWN.binary_search(&key).is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn list_is_sorted_for_binary_search() {
        assert!(super::KNOWN.windows(2).all(|w| w[0] < w[1]));
        assert!(super::UNSUPPORTED.windows(2).all(|w| w[0] < w[1]));
        assert!(super::UNSUPPORTED.iter().all(|k| super::is_known(k)));
        assert!(super::is_unsupported("snap") && !super::is_unsupported("runcmd"));
        assert!(super::is_known("write_files"));
        assert!(!super::is_known("write_file"));
    }
}
