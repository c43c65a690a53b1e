//! `modules/test_jinja_templating.py`: Jinja in user-data and in the image's own config files
//! (`merged_system_cfg` in the instance data, `## template: jinja` config files). Upstream
//! compares `merged_system_cfg._doc` with its own sentence; ember's `_doc` strings are its own
//! words, so those rows check that the variable was rendered and names both sources.

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
            checks: &[
                Line("/var/tmp/runcmd_output", "conformance"),
                Has("/var/tmp/runcmd_output", "from /etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d/\nconformance\n"),
                Count("/var/tmp/runcmd_output", "\n", 3),
            ],
            differs: Some("`_doc` strings"),
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
                Has("/var/tmp/bootcmd_output", "from /etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d/\n"),
                RunHas("/run/cloud-init/combined-cloud-config.json", "final hi {{v1.local_hostname}}"),
            ],
            differs: Some("`_doc` strings"),
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
fn jinja() {
    super::check_all(SCENARIOS);
}
