//! `modules/test_combined.py`: one instance with many modules' user-data (Ubuntu's), each
//! row one of its assertions. The image has the tools the modules call where a row checks
//! what they were asked (`update-locale` writes its file as the real one does).

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO, SSHD_CONFIG, UBUNTU_CLOUD_CFG};

const USER_DATA: &str = r#"#cloud-config
users:
- default
- name: craig
  sudo: false  # make sure craig doesn't get elevated perms
apt:
  primary:
    - arches: [default]
      uri: http://us.archive.ubuntu.com/ubuntu/
byobu_by_default: enable
final_message: |
  This is my final message!
  $version
  $timestamp
  $datasource
  $uptime
locale: en_GB.UTF-8
locale_configfile: /etc/default/locale
ntp:
  servers: ['ntp.ubuntu.com']
package_update: true
random_seed:
  data: 'MYUb34023nD:LFDK10913jk;dfnk:Df'
  encoding: raw
  file: /root/seed
rsyslog:
  configs:
    - "*.* @@127.0.0.1"
    - filename: 0-basic-config.conf
      content: |
        module(load="imtcp")
        input(type="imtcp" port="514")
        $template RemoteLogs,"/var/spool/rsyslog/cloudinit.log"
        *.* ?RemoteLogs
        & stop
  remotes:
    me: "127.0.0.1"
runcmd:
  - echo 'hello world' > /var/tmp/runcmd_output
  - echo '💩' > /var/tmp/unicode_data

  - #
  - logger --server localhost --tcp --port 514 "My test log"
snap:
  commands:
    - snap install hello-world
ssh_import_id:
  - gh:blackboxsw

timezone: Europe/Madrid
"#;

const UPDATE_LOCALE: &str = "#!/bin/sh
for a; do case $a in --locale-file=*) f=${a#*=};; LANG=*) echo \"$a\" > \"$f\";; esac; done
";

pub const SCENARIOS: &[Scenario] = &[Scenario {
    user_data: USER_DATA,
    image: &[
        UBUNTU_CLOUD_CFG,
        SSHD_CONFIG,
        ("/usr/share/zoneinfo/Europe/Madrid", "TZif2 (stand-in)\n"),
        ("/usr/sbin/update-locale", UPDATE_LOCALE),
        ("/usr/sbin/locale-gen", "#!/bin/sh\n"),
    ],
    rows: &[
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_random_seed_data",
            checks: &[Has("/root/seed", "MYUb34023nD:LFDK10913jk;dfnk:Df")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_runcmd",
            checks: &[Is("/var/tmp/runcmd_output", "hello world\n")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_unicode",
            checks: &[Is("/var/tmp/unicode_data", "💩\n")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_configured_locale",
            checks: &[Has("/etc/default/locale", "LANG=en_GB.UTF-8")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_timezone",
            // Upstream asks `date` for the zone's abbreviation; here, the zone set.
            checks: &[Is("/etc/timezone", "Europe/Madrid\n")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_rsyslog",
            // Upstream reads what rsyslogd logged; here, the config that asks for it.
            checks: &[
                Has("/etc/rsyslog.d/20-cloud-config.conf", "*.* @@127.0.0.1\n"),
                Line("/etc/rsyslog.d/20-cloud-config.conf", "*.* @127.0.0.1 # me"),
                Has(
                    "/etc/rsyslog.d/0-basic-config.conf",
                    "$template RemoteLogs,\"/var/spool/rsyslog/cloudinit.log\"\n",
                ),
            ],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_deprecated_message",
            checks: &[Said("users.1.sudo")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_correct_datasource_detected",
            checks: &[RunHas(
                "/run/cloud-init/status.json",
                "\"datasource\": \"DataSourceNoCloud",
            )],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_cloud_id_file_symlink",
            checks: &[RunLink(
                "/run/cloud-init/cloud-id",
                "/run/cloud-init/cloud-id-nocloud",
            )],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_combined_cloud_config_json",
            checks: &[RunHas(
                "/run/cloud-init/combined-cloud-config.json",
                "\"name\": \"ubuntu\"",
            )],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_netplan_permissions",
            checks: &[NotCheckable(
                "netplan's Python API on the instance and its NIC",
            )],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_final_message",
            checks: &[NotCheckable(
                "lines of cloud-init.log, cloud-init's Python log",
            )],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_ntp_with_apt",
            checks: &[NotCheckable("apt installing ntp from the archive")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_byobu",
            checks: &[NotCheckable("the byobu package's launcher")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_snap",
            checks: &[NotCheckable("snapd installing hello-world from the store")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_no_problems",
            checks: &[NotCheckable(
                "a clean boot needs apt, snap and ssh-import-id to reach the network",
            )],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_run_frequency",
            checks: &[NotCheckable(
                "imports cloud-init's Python modules for their frequencies",
            )],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_network_config_json",
            checks: &[NotCheckable("LXD's network config for its NIC")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_instance_json_lxd",
            checks: &[NotCheckable("LXD's instance data")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_instance_json_lxd_vm",
            checks: &[NotCheckable("LXD's instance data")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_instance_json_ec2",
            checks: &[NotCheckable("an EC2 instance")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_instance_json_gce",
            checks: &[NotCheckable("a GCE instance")],
            ..ROW
        },
        Row {
            upstream:
                "modules/test_combined.py::TestCombined::test_instance_cloud_id_across_reboot",
            checks: &[NotCheckable("LXD's cloud id across a reboot")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_networkd_wait_online",
            checks: &[NotCheckable("systemd-networkd-wait-online on the instance")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombined::test_cli",
            checks: &[NotCheckable("the CLI's answers (the schema/CLI rows)")],
            ..ROW
        },
        Row {
            upstream: "modules/test_combined.py::TestCombinedNoCI::test_ssh_import_id",
            checks: &[NotCheckable("ssh-import-id fetching keys from GitHub")],
            ..ROW
        },
    ],
    ..SCENARIO
}];

#[test]
fn combined() {
    super::check_all(SCENARIOS);
}
