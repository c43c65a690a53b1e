//! How often user-data's parts run: boothooks every boot (`modules/test_boothook.py`,
//! `test_multi_part_user_data_handling.py`), scripts typed with a frequency
//! (`test_per_freq`), `#cloud-config-archive` (`modules/test_cloud_config_archive.py`), a
//! module list's frequency override (`modules/test_frequency_override.py`), and `output`
//! (`modules/test_command_output.py`).

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO};

const BOOTHOOK: &str = r#"## template: jinja
#cloud-boothook
#!/bin/sh
# Error below will generate stderr
BOOTHOOK/0
echo BOOTHOOKstdout
echo "BOOTHOOK: {{ v1.instance_id }}: is called every boot." >> /boothook.txt
"#;

/// cloud-init's `create_mime_message` of three scripts, one per frequency type.
const PER_FREQ: &str = "Content-Type: multipart/mixed; boundary=\"===BOUNDARY==\"
MIME-Version: 1.0

--===BOUNDARY==
Content-Type: text/x-shellscript-per-boot; charset=\"us-ascii\"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit
Content-Disposition: attachment; filename=\"always.sh\"

#!/bin/bash
touch /tmp/test_per_freq_always

--===BOUNDARY==
Content-Type: text/x-shellscript-per-instance; charset=\"us-ascii\"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit
Content-Disposition: attachment; filename=\"instance.sh\"

#!/bin/bash
touch /tmp/test_per_freq_instance

--===BOUNDARY==
Content-Type: text/x-shellscript-per-once; charset=\"us-ascii\"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit
Content-Disposition: attachment; filename=\"once.sh\"

#!/bin/bash
touch /tmp/test_per_freq_once

--===BOUNDARY==--
";

const ARCHIVE_LOGGING: &str = r#"
#cloud-config-archive
- type: 'text/cloud-boothook'
  content: |
    #!/bin/sh
    echo "BOOTHOOK: $(date -R): this is called every boot." | tee /run/boothook.txt
- type: 'text/cloud-config'
  content: |
    bootcmd:
     - [sh, -c, 'echo "BOOTCMD: $(date -R): from cloud-config" | tee /run/bootcmd.txt']
"#;

/// The upstream data has no `#cloud-config-archive` line, which cloud-init needs too (its
/// `convert_string` takes a part without a known first line as unhandled): added here.
const ARCHIVE: &str = r#"#cloud-config-archive
- type: "text/cloud-boothook"
  content: |
    #!/bin/sh
    echo "this is from a boothook." > /var/tmp/boothook.txt
- type: "text/cloud-config"
  content: |
    bootcmd:
    - echo "this is from a cloud-config." > /var/tmp/bootcmd.txt
"#;

/// The upstream data has no `#cloud-config` line, which cloud-init needs too: added here.
const OVERRIDE: &str = r#"#cloud-config
runcmd:
 - echo "hi" >> /var/tmp/hi
snap:
 commands:
   00: echo heya
"#;

const OUTPUT_LOG: &str = "/var/log/cloud-init-output.log";

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        user_data: BOOTHOOK,
        boots: 2,
        rows: &[
            Row {
                upstream: "modules/test_boothook.py::TestBoothook::test_boothook_header_runs_part_per_instance[first boot]",
                checks: &[Count("/boothook.txt", "BOOTHOOK: i-conformance: is called every boot", 1)],
                after: 1,
                ..ROW
            },
            Row {
                upstream: "modules/test_boothook.py::TestBoothook::test_boothook_header_runs_part_per_instance[restart]",
                checks: &[
                    Count("/boothook.txt", "BOOTHOOK: i-conformance: is called every boot", 2),
                    Has(OUTPUT_LOG, "BOOTHOOKstdout"),
                    Has(OUTPUT_LOG, "BOOTHOOK/0: not found"),
                ],
                ..ROW
            },
            Row {
                upstream: "modules/test_boothook.py::TestBoothook::test_boothook_waits_for_network",
                checks: &[NotCheckable("whether the boothook waited for the network is a line of cloud-init.log on a booted machine")],
                ..ROW
            },
        ],
        ..SCENARIO
    },
    Scenario {
        user_data: PER_FREQ,
        boots: 2,
        rows: &[
            Row {
                upstream: "test_multi_part_user_data_handling.py::test_per_freq[first boot]",
                checks: &[
                    Exists("/var/lib/cloud/scripts/per-boot/always.sh"),
                    Exists("/tmp/test_per_freq_always"),
                    Exists("/var/lib/cloud/scripts/per-instance/instance.sh"),
                    Exists("/tmp/test_per_freq_instance"),
                    Exists("/var/lib/cloud/scripts/per-once/once.sh"),
                    Exists("/tmp/test_per_freq_once"),
                ],
                after: 1,
                ..ROW
            },
            Row {
                upstream: "test_multi_part_user_data_handling.py::test_per_freq[restart]",
                checks: &[
                    Exists("/tmp/test_per_freq_always"),
                    Absent("/tmp/test_per_freq_instance"),
                    Absent("/tmp/test_per_freq_once"),
                ],
                ..ROW
            },
        ],
        ..SCENARIO
    },
    Scenario {
        user_data: ARCHIVE_LOGGING,
        boots: 2,
        rows: &[Row {
            upstream: "test_multi_part_user_data_handling.py::test_cloud_config_archive_boot_hook_logging",
            checks: &[
                Count(OUTPUT_LOG, "BOOTHOOK:", 2),
                Count(OUTPUT_LOG, "BOOTCMD:", 2),
                Has("/run/boothook.txt", "this is called every boot."),
                Has("/run/bootcmd.txt", "from cloud-config"),
            ],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: ARCHIVE,
        rows: &[Row {
            upstream: "modules/test_cloud_config_archive.py::test_cloud_config_archive",
            checks: &[
                Has("/var/tmp/boothook.txt", "this is from a boothook."),
                Has("/var/tmp/bootcmd.txt", "this is from a cloud-config."),
                NoErrors,
            ],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: OVERRIDE,
        image: &[(
            "/etc/cloud/cloud.cfg",
            "cloud_config_modules: [runcmd]\ncloud_final_modules:\n - scripts_user\n",
        )],
        boots: 2,
        before_restart: &[(
            "/etc/cloud/cloud.cfg",
            "cloud_config_modules: [runcmd]\ncloud_final_modules:\n - [ scripts_user, always ]\n",
        )],
        rows: &[
            Row {
                upstream: "modules/test_frequency_override.py::test_frequency_override[first boot]",
                checks: &[Count("/var/tmp/hi", "hi", 1)],
                after: 1,
                ..ROW
            },
            Row {
                upstream: "modules/test_frequency_override.py::test_frequency_override[scripts_user, always]",
                checks: &[Count("/var/tmp/hi", "hi", 2)],
                ..ROW
            },
            Row {
                upstream: "modules/test_frequency_override.py::test_frequency_override[snapd.seeded]",
                checks: &[NotCheckable("the snap module's ordering after snapd.seeded.service is systemd's, on Ubuntu")],
                ..ROW
            },
        ],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\noutput: { all: \"| tee -a /var/log/cloud-init-test-output\" }\nfinal_message: \"should be last line in cloud-init-test-output file\"\n",
        rows: &[Row {
            upstream: "modules/test_command_output.py::test_runcmd",
            checks: &[Has("/var/log/cloud-init-test-output", "should be last line in cloud-init-test-output file")],
            ..ROW
        }],
        ..SCENARIO
    },
];

#[test]
fn frequencies() {
    super::check_all(SCENARIOS);
}
