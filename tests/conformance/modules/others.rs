//! The other `modules/` tests: ntp, keyboard and ca_certs where their files can be read on
//! the root, and the tests that need a real machine, a package archive or a cloud, each with
//! what it needs.

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO};

/// Stand-ins for the NTP daemons, so the module finds its client installed.
const NTP_TOOLS: &[(&str, &str)] = &[
    ("/usr/sbin/ntpd", "#!/bin/sh\n"),
    ("/usr/sbin/chronyd", "#!/bin/sh\n"),
    ("/lib/systemd/systemd-timesyncd", "#!/bin/sh\n"),
];

const NTP: &str = "#cloud-config
ntp:
  ntp_client: ntp
  servers:
      - 172.16.15.14
      - 172.16.17.18
  pools:
      - 0.cloud-init.mypool
      - 1.cloud-init.mypool
      - 172.16.15.15
";

const CA_CERT: &str = "#cloud-config
ca_certs:
  remove_defaults: true
  trusted:
    - |
      -----BEGIN CERTIFICATE-----
      MIIBConformanceTestCertificateBody
      -----END CERTIFICATE-----
";

/// A row that cannot be checked here: what the upstream test needs.
macro_rules! row {
    ($upstream:literal, $needs:literal) => {
        Row {
            upstream: $upstream,
            checks: &[NotCheckable($needs)],
            ..ROW
        }
    };
}

/// Upstream tests whose facts are not on a target root.
const NOT_ON_A_ROOT: &[Row] = &[
    row!("modules/test_ntp_servers.py::TestNtpServers::test_ntp_installed", "`ntpd --version`: the ntp package installed"),
    row!("modules/test_ntp_servers.py::TestNtpServers::test_ntpq_servers", "`ntpq -p` of the running daemon"),
    row!("modules/test_ca_certs.py::TestCaCerts::test_certs_updated", "update-ca-certificates' links in /etc/ssl/certs"),
    row!("modules/test_ca_certs.py::TestCaCerts::test_clean_log", "lines of cloud-init.log"),
    row!("modules/test_power_state_change.py::TestPowerChange::test_poweroff", "the instance powering off"),
    row!("modules/test_power_state_change.py::TestPowerChange::test_poweroff_false_condition", "the instance staying up, read from its log"),
    row!("modules/test_ssh_auth_key_fingerprints.py::TestSshAuthkeyFingerprints::test_ssh_authkey_fingerprints_disable", "the fingerprints on the instance's syslog"),
    row!("modules/test_ssh_auth_key_fingerprints.py::TestSshAuthkeyFingerprints::test_ssh_authkey_fingerprints_enable", "the fingerprints on the instance's syslog"),
    row!("modules/test_disk_setup.py::TestDeviceAliases::test_device_alias", "an LXD disk attached to the instance"),
    row!("modules/test_disk_setup.py::TestPartProbeAvailability::test_disk_setup_when_mounted", "an LXD disk, mounted, repartitioned"),
    row!("modules/test_disk_setup.py::TestPartProbeAvailability::test_disk_setup_no_partprobe", "an LXD disk and the image's partprobe removed"),
    row!("modules/test_disk_setup.py::TestPartProbeAvailability::test_required_mounts", "an LXD disk and the mounts systemd makes of it"),
    row!("modules/test_growpart.py::TestGrowPart::test_grow_part", "an LXD disk grown and the partition table of the running instance"),
    row!("modules/test_user_events.py::test_boot_event_disabled_by_default", "network config changed between boots by LXD"),
    row!("modules/test_user_events.py::test_boot_event_enabled_by_default", "network config changed between boots by LXD"),
    row!("modules/test_user_events.py::test_boot_event_enabled", "network config changed between boots by LXD"),
    row!("modules/test_version_change.py::test_reboot_without_version_change", "cloud-init's Python pickle of the datasource"),
    row!("modules/test_version_change.py::test_cache_purged_on_version_change", "cloud-init's Python pickle of the datasource"),
    row!("modules/test_version_change.py::test_log_message_on_missing_version_file", "cloud-init's Python pickle of the datasource"),
    row!("modules/test_persistence.py::test_log_message_on_missing_version_file", "cloud-init's Python pickle of the datasource"),
    row!("modules/test_puppet.py::test_puppet_service", "puppet installed from the archive and its service running"),
    row!("modules/test_puppet.py::test_puppet_exec", "puppet installed from the archive"),
    row!("modules/test_ansible.py::test_ansible_pull_pip", "ansible installed with pip and a git repository pulled"),
    row!("modules/test_ansible.py::test_ansible_pull_distro", "ansible installed from the archive and a git repository pulled"),
    row!("modules/test_ansible.py::test_ansible_controller", "ansible and an LXD controller"),
    row!("modules/test_apt_functionality.py::TestDefaults", "apt's sources of a cloud image"),
    row!("modules/test_apt_functionality.py::TestDisabled", "apt's sources of a cloud image"),
    row!("modules/test_apt_functionality.py::test_install_missing_deps", "apt installing gnupg"),
    row!("modules/test_package_update_upgrade_install.py::TestPackageUpdateUpgradeInstall", "apt and snap installing from their archives"),
    row!("modules/test_lxd.py::TestLxdBridge", "LXD installed and initialised"),
    row!("modules/test_lxd.py::test_storage_lvm", "LXD installed and initialised"),
    row!("modules/test_lxd.py::test_basic_preseed", "LXD installed and initialised"),
    row!("modules/test_lxd.py::test_storage_btrfs", "LXD installed and initialised"),
    row!("modules/test_lxd.py::test_storage_zfs", "LXD installed and initialised"),
    row!("modules/test_wireguard.py::TestWireguard", "the wireguard kernel module and tools"),
    row!("modules/test_wireguard.py::TestWireguardWithoutKmod", "wireguard-tools installed from the archive"),
    row!("modules/test_ubuntu_autoinstall.py::TestUbuntuAutoinstall::test_autoinstall_schema_valid_when_snap_present", "the subiquity snap"),
    row!("modules/test_ubuntu_drivers.py::test_ubuntu_drivers_installed", "NVIDIA hardware and the archive"),
    row!("modules/test_ubuntu_pro.py::TestUbuntuAdvantage", "an Ubuntu Pro token and Canonical's contract server"),
    row!("modules/test_ubuntu_pro.py::TestUbuntuAdvantagePro", "an Ubuntu Pro image"),
    row!("modules/test_hotplug.py::test_hotplug_add", "NICs added to a running LXD or EC2 instance"),
    row!("modules/test_hotplug.py::test_hotplug_enable_cmd", "NICs added to a running LXD instance"),
    row!("modules/test_hotplug.py::test_hotplug_enable_cmd_ec2", "NICs added to a running EC2 instance"),
    row!("modules/test_hotplug.py::test_no_hotplug_in_userdata", "NICs added to a running LXD instance"),
    row!("modules/test_hotplug.py::test_multi_nic_hotplug", "NICs added to a running EC2 instance"),
    row!("modules/test_hotplug.py::test_multi_nic_hotplug_vpc", "NICs added to a running EC2 instance"),
    row!("modules/test_hotplug.py::test_no_hotplug_triggered_by_docker", "docker on a running instance"),
    row!("modules/test_hotplug.py::test_nics_before_config_trigger_hotplug", "NICs added to a running LXD instance"),
];

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        user_data: NTP,
        image: NTP_TOOLS,
        rows: &[Row {
            upstream: "modules/test_ntp_servers.py::TestNtpServers::test_ntp_entries",
            checks: &[
                Line("/etc/ntp.conf", "server 172.16.15.14 iburst"),
                Line("/etc/ntp.conf", "server 172.16.17.18 iburst"),
                Line("/etc/ntp.conf", "pool 0.cloud-init.mypool iburst"),
                Line("/etc/ntp.conf", "pool 1.cloud-init.mypool iburst"),
                Line("/etc/ntp.conf", "pool 172.16.15.15 iburst"),
            ],
            ..ROW
        }, Row {
            upstream: "modules/test_ntp_servers.py::TestNtpServers::test_dist_config_file_is_empty",
            // Skipped upstream where the image has no ntp.conf.dist, as here.
            checks: &[Absent("/etc/ntp.conf.dist")],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\nntp:\n  enabled: true\n  ntp_client: chrony\n  servers:\n      - 172.16.15.14\n",
        image: NTP_TOOLS,
        rows: &[Row {
            upstream: "modules/test_ntp_servers.py::test_chrony",
            checks: &[Has("/etc/chrony/chrony.conf", "server 172.16.15.14")],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\nntp:\n  enabled: true\n  ntp_client: systemd-timesyncd\n  servers:\n      - 172.16.15.14\n",
        image: NTP_TOOLS,
        rows: &[Row {
            upstream: "modules/test_ntp_servers.py::test_timesyncd",
            checks: &[Has("/etc/systemd/timesyncd.conf.d/cloud-init.conf", "NTP=172.16.15.14")],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\nntp:\n  ntp_client: ntp\n  pools: []\n  servers: []\n",
        image: NTP_TOOLS,
        rows: &[Row {
            upstream: "modules/test_ntp_servers.py::test_empty_ntp",
            checks: &[Absent("/etc/ntp.conf.dist"), Has("/etc/ntp.conf", "pool.ntp.org iburst")],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\nkeyboard:\n    layout: de\n    model: pc105\n    variant: nodeadkeys\n    options: compose:rwin\n",
        rows: &[Row {
            upstream: "modules/test_keyboard.py::TestKeyboard::test_keyboard",
            // Upstream asks localectl, which reads this file on Debian and Ubuntu.
            checks: &[Has("/etc/default/keyboard", "XKBLAYOUT=\"de\"")],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: CA_CERT,
        image: &[("/etc/ca-certificates.conf", "mozilla/Some_Root_CA.crt\n"), ("/usr/sbin/update-ca-certificates", "#!/bin/sh\n")],
        rows: &[Row {
            upstream: "modules/test_ca_certs.py::TestCaCerts::test_cert_installed",
            // Upstream sums the bundle update-ca-certificates makes; here, what it is made
            // from: the cert, and the defaults switched off.
            checks: &[
                Has("/usr/local/share/ca-certificates/cloud-init-ca-cert-1.crt", "MIIBConformanceTestCertificateBody"),
                Has("/etc/ca-certificates.conf", "!mozilla/Some_Root_CA.crt"),
            ],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\nusers:\n - default\n - name: nch\n   no_create_home: true\n - name: system\n   system: true\n",
        image: &[super::UBUNTU_CLOUD_CFG],
        rows: &[Row {
            upstream: "modules/test_ssh_auth_key_fingerprints.py::test_no_home_directory_created",
            checks: &[
                Absent("/home/nch"),
                Absent("/home/system"),
                Has("/etc/passwd", "\nnch:"),
                Has("/etc/passwd", "\nsystem:"),
            ],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        rows: NOT_ON_A_ROOT,
        ..SCENARIO
    },
];

#[test]
fn others() {
    super::check_all(SCENARIOS);
}
