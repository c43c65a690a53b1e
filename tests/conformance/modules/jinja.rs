//! `modules/test_jinja_templating.py`: Jinja in user-data and in the image's own config files.
//! Each row needs what the system config work (branch c34-cfg) adds: `merged_system_cfg` in
//! the instance data and `## template: jinja` config files, so the test is ignored until
//! both are merged.

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO};

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        user_data: "## template: jinja
#cloud-config
runcmd:
  - echo {{v1.local_hostname}} > /var/tmp/runcmd_output
  - echo {{merged_system_cfg._doc}} >> /var/tmp/runcmd_output
  - echo {{v1['local-hostname']}} >> /var/tmp/runcmd_output
",
        rows: &[Row {
            upstream: "modules/test_jinja_templating.py::test_runcmd_with_variable_substitution",
            checks: &[Is("/var/tmp/runcmd_output", "conformance\nMerged cloud-init system config from /etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d/\nconformance\n")],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\n{}\n",
        image: &[
            ("/etc/cloud/cloud.cfg", "## template: jinja\n\nsystem_info: {distro: debian}\n\nruncmd:\n - echo {{v1.local_hostname}} > /var/tmp/runcmd_output\n"),
            ("/etc/cloud/cloud.cfg.d/50-jinja-test.cfg", "## template: jinja\nbootcmd:\n - echo '{{merged_system_cfg._doc}}' > /var/tmp/bootcmd_output\n"),
            ("/etc/cloud/cloud.cfg.d/70-no-jinja-test.cfg", "final_message: final hi {{v1.local_hostname}}"),
        ],
        rows: &[Row {
            upstream: "modules/test_jinja_templating.py::test_substitution_in_etc_cloud",
            checks: &[
                Is("/var/tmp/runcmd_output", "conformance\n"),
                Is("/var/tmp/bootcmd_output", "Merged cloud-init system config from /etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d/\n"),
                RunHas("/run/cloud-init/combined-cloud-config.json", "final hi {{v1.local_hostname}}"),
            ],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\n{}\n",
        image: &[
            ("/etc/cloud/cloud.cfg.d/50-no-var.cfg", "## template: jinja\nruncmd:\n - echo {{bad}} > /var/tmp/runcmd_bad\n - echo {{v1.local_hostname}} > /var/tmp/runcmd_output\nfinal_message: final hi {{v1.local_hostname}}"),
            ("/etc/cloud/cloud.cfg.d/60-normal.cfg", "bootcmd:\n - echo hi > /var/tmp/bootcmd_output\n"),
        ],
        rows: &[Row {
            upstream: "modules/test_jinja_templating.py::test_invalid_etc_cloud_substitution",
            checks: &[
                Is("/var/tmp/runcmd_bad", "CI_MISSING_JINJA_VAR/bad\n"),
                Is("/var/tmp/runcmd_output", "conformance\n"),
                RunHas("/run/cloud-init/combined-cloud-config.json", "final hi conformance"),
                Is("/var/tmp/bootcmd_output", "hi\n"),
            ],
            ..ROW
        }],
        ..SCENARIO
    },
];

#[test]
#[ignore = "needs merged_system_cfg and templated config files (branch c34-cfg)"]
fn jinja() {
    super::check_all(SCENARIOS);
}
