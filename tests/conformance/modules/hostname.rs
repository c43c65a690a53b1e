//! `modules/test_set_hostname.py`: the names the booted system gets, from /etc/hostname and
//! /etc/hosts (upstream asks `hostname`, which reads what the boot set from them).

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO};

macro_rules! hostname_scenarios {
    ($class:literal, $file:literal) => {
        [
            Scenario {
                user_data: concat!("#cloud-config\nhostname: cloudinit2\n", $file),
                rows: &[Row {
                    upstream: concat!("modules/test_set_hostname.py::", $class, "::test_hostname"),
                    checks: &[Is("/etc/hostname", "cloudinit2\n")],
                    ..ROW
                }],
                ..SCENARIO
            },
            Scenario {
                user_data: concat!("#cloud-config\nprefer_fqdn_over_hostname: true\nhostname: cloudinit1\nfqdn: cloudinit2.test.io\n", $file),
                rows: &[Row {
                    upstream: concat!("modules/test_set_hostname.py::", $class, "::test_prefer_fqdn"),
                    checks: &[Is("/etc/hostname", "cloudinit2.test.io\n")],
                    ..ROW
                }],
                ..SCENARIO
            },
            Scenario {
                user_data: concat!("#cloud-config\nprefer_fqdn_over_hostname: false\nhostname: cloudinit1\nfqdn: cloudinit2.test.io\n", $file),
                rows: &[Row {
                    upstream: concat!("modules/test_set_hostname.py::", $class, "::test_prefer_short_hostname"),
                    checks: &[Is("/etc/hostname", "cloudinit1\n")],
                    ..ROW
                }],
                ..SCENARIO
            },
            Scenario {
                user_data: concat!("#cloud-config\nmanage_etc_hosts: true\nhostname: cloudinit1\nfqdn: cloudinit2.i9n.cloud-init.io\n", $file),
                rows: &[Row {
                    upstream: concat!("modules/test_set_hostname.py::", $class, "::test_hostname_and_fqdn"),
                    checks: &[
                        Is("/etc/hostname", "cloudinit1\n"),
                        Line("/etc/hosts", "127.0.1.1 cloudinit2.i9n.cloud-init.io cloudinit1"),
                        Line("/etc/hosts", "127.0.0.1 localhost"),
                    ],
                    ..ROW
                }],
                ..SCENARIO
            },
        ]
    };
}

const PLAIN: [Scenario; 4] = hostname_scenarios!("TestHostname", "");
const FILE: [Scenario; 4] =
    hostname_scenarios!("TestCreateHostnameFile", "create_hostname_file: true\n");

pub const SCENARIOS: &[Scenario] = &[
    PLAIN[0], PLAIN[1], PLAIN[2], PLAIN[3], FILE[0], FILE[1], FILE[2], FILE[3],
];

#[test]
fn hostname() {
    super::check_all(SCENARIOS);
}
