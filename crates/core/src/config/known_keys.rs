//! Top-level cloud-config keys that cloud-init (and ember) know. Anything else in user-data or
//! vendor-data is reported as a warning with its line, as `cloud-init schema` would.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

const KNOWN: &[&str] = &[
    "_log",
    "add_apt_repo_match",
    "allow_public_ssh_keys",
    "allow_userdata",
    "ansible",
    "apk_repos",
    "apt",
    "apt_custom_sources_list",
    "apt_ftp_proxy",
    "apt_http_proxy",
    "apt_https_proxy",
    "apt_mirror",
    "apt_mirror_search",
    "apt_mirror_search_dns",
    "apt_pipelining",
    "apt_preserve_sources_list",
    "apt_proxy",
    "apt_reboot_if_required",
    "apt_sources",
    "apt_update",
    "apt_upgrade",
    "authkey_hash",
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
    "rpi",
    "rsyslog",
    "rsyslog_dir",
    "rsyslog_filename",
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
    "ubuntu-advantage",
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

/// True for a key only modules ember lacks read, reported by the local stage (see
/// `module_specs::is_lacking_key`).
pub fn is_unsupported(key: &str) -> bool {
    crate::module_specs::is_lacking_key(key)
}

/// Keys cloud-init acts on that ember takes and does not act on, with why: said once per boot
/// (and by `ember schema`), so that no key is taken silently.
pub fn not_acted_on(key: &str) -> Option<&'static str> {
    match key {
        "reporting" => Some(
            "cloud-init's reporting handlers (log, print, webhook, hyperv) are not run by \
             ember: its status.json and console summary report the stages; ignored",
        ),
        _ => None,
    }
}

pub fn is_known(key: &str) -> bool {
    KNOWN.binary_search(&key).is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn list_is_sorted_for_binary_search() {
        assert!(super::KNOWN.windows(2).all(|w| w[0] < w[1]));
        assert!(!super::is_unsupported("snap") && !super::is_unsupported("runcmd"));
        assert!(super::is_known("write_files"));
        assert!(!super::is_known("write_file"));
    }
}
