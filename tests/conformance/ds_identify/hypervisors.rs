//! Hypervisors and containers: LXD, VMware and OVF, WSL, SmartOS, MAAS beside LXD.

use super::Want::*;
use super::{check, Row, ROW};

pub const TABLE: &[Row] = &[
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-kvm] (lxd_kvm)",
        dmi: &[("board_name", "LXD")],
        want: Found("lxd"),
        ..ROW
    },
    Row {
        upstream: "test_ds_identify.py::VALID_CFG[LXD-virtio-empty] (lxd_virtio_empty_dir)",
        dirs: &["/sys/class/virtio-ports"],
        want: NotFound,
        ..ROW
    },
];

#[test]
fn hypervisors_agree_with_ds_identify() {
    check(TABLE);
}
