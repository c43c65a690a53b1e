//! Clouds found by DMI, labels, seed directories, policy and the command line.

use super::Want::*;
use super::{check, Row, ROW};

pub const TABLE: &[Row] = &[
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Ec2-hvm] (aws_ec2_hvm)",
        dmi: &[
            ("product_serial", "ec23aef5-54be-4843-8d24-8c819f88453e"),
            ("product_uuid", "EC23AEF5-54BE-4843-8D24-8C819F88453E"),
        ],
        want: Found("ec2"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[Hetzner] (hetzner_found)",
        dmi: &[("sys_vendor", "Hetzner")],
        want: Found("hetzner"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[ConfigDrive] (config_drive)",
        labels: &[("vdb", "iso9660", "config-2")],
        want: Found("configdrive"),
        ..ROW
    },
];

#[test]
fn clouds_agree_with_ds_identify() {
    check(TABLE);
}
