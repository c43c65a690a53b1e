//! `datasources/test_nocloud.py`, its tests that need no network: a `seedfrom` path with
//! vendor-data, and an SMBIOS serial naming a seed on the local disk.

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO};

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        seed_dir: "nocloud-net",
        meta_data: "seedfrom: /var/tmp/test_seed_dir/\n",
        image: &[
            ("/var/tmp/test_seed_dir/user-data", ""),
            ("/var/tmp/test_seed_dir/meta-data", ""),
            (
                "/var/tmp/test_seed_dir/vendor-data",
                "#cloud-config\nbootcmd:\n  - touch /var/tmp/seeded_vendordata_test_file\n",
            ),
        ],
        rows: &[Row {
            upstream: "datasources/test_nocloud.py::test_nocloud_seedfrom_vendordata",
            checks: &[Exists("/var/tmp/seeded_vendordata_test_file"), NoErrors],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        seed_dir: "",
        dmi_serial: "ds=nocloud;s=file:///smbios_seed;h=myhost",
        image: &[
            (
                "/smbios_seed/user-data",
                "#cloud-config\nruncmd:\n  - touch /var/tmp/smbios_test_file\n",
            ),
            ("/smbios_seed/meta-data", ""),
            ("/smbios_seed/vendor-data", ""),
        ],
        rows: &[Row {
            upstream: "datasources/test_nocloud.py::TestSmbios::test_smbios_seed_local",
            checks: &[Exists("/var/tmp/smbios_test_file")],
            ..ROW
        }],
        ..SCENARIO
    },
];

#[test]
fn nocloud() {
    super::check_all(SCENARIOS);
}
