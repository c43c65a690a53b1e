//! `bugs/`: each upstream regression test whose facts lie on the root, and the others with
//! what they need.

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO};

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        // The upstream data has no `#cloud-config` line (cloud-init needs it too): added.
        user_data: "#cloud-config\nmounts:\n- - server.example:/export\n  - /mnt/Cdrom Drive\n  - nfs\n  - defaults,noauto\n  - \"0\"\n  - \"0\"\n",
        rows: &[Row {
            upstream: "bugs/test_gh3603.py::test_mount_point_with_space_is_escaped",
            checks: &[
                Has("/etc/fstab", "server.example:/export\t/mnt/Cdrom\\040Drive\tnfs\tdefaults,noauto,comment=cloudconfig\t0\t0\n"),
                Exists("/mnt/Cdrom Drive"),
                NoErrors,
            ],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\nbootcmd:\n- rm -f /etc/fstab\n",
        image: &[("/etc/fstab", "# the image's fstab\n")],
        rows: &[Row {
            upstream: "bugs/test_lp1886531.py::TestLp1886531::test_lp1886531",
            checks: &[NoErrors],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\nbootcmd:\n  - echo 'whoops' > /usr/bin/fallocate\nswap:\n  filename: /swap.img\n  size: 10000000\n  maxsize: 10000000\n",
        rows: &[
            Row {
                upstream: "bugs/test_lp1897099.py::test_fallocate_fallback[fstab]",
            // ember makes the file itself, without the target's fallocate or dd; its line
            // has no comment=cloudconfig, as cloud-init tags the mounts before adding it.
                checks: &[Line("/etc/fstab", "/swap.img\tnone\tswap\tsw\t0\t0"), Exists("/swap.img")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp1897099.py::test_fallocate_fallback[/proc/swaps]",
                checks: &[NotCheckable("the swap in use is the booted kernel's /proc/swaps")],
                ..ROW
            },
        ],
        ..SCENARIO
    },
    Scenario {
        user_data: "#cloud-config\n{}\n",
        image: &[("/etc/cloud/cloud.cfg.d/90_dpkg.cfg", "datasource_list: [ RbxCloud, NoCloud, LXD ]\n")],
        rows: &[Row {
            upstream: "bugs/test_gh632.py::test_datasource_rbx_no_stacktrace",
            checks: &[NoErrors, Has("/var/lib/cloud/instances/i-conformance/datasource", "DataSourceNoCloud")],
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        rows: &[
            Row {
                upstream: "bugs/test_gh626.py::test_wakeonlan",
                checks: &[NotCheckable("network config given through LXD's user.network-config and rendered by netplan on the instance")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_gh668.py::test_static_route_to_host",
                checks: &[NotCheckable("`ip route` of a booted LXD instance")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_gh671.py::test_update_default_password",
                checks: &[NotCheckable("Azure's API and a snapshot relaunched")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_gh868.py::test_chef_license",
                checks: &[NotCheckable("downloads chef's omnibus installer")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp1813396.py::test_gpg_no_tty",
                checks: &[NotCheckable("fetches a key from keyserver.ubuntu.com")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp1835584.py::test_azure_kernel_upgrade_case_insensitive_uuid",
                checks: &[NotCheckable("an Azure FIPS image whose kernel is upgraded and rebooted")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp1898997.py::TestInterfaceListingWithOpenvSwitch::test_ovs_member_interfaces_not_excluded",
                checks: &[NotCheckable("an Open vSwitch bridge on an LXD VM (skipped upstream too)")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp1901011.py::test_ephemeral",
                checks: &[NotCheckable("Azure's resource disk and its udev links")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp1910835.py::test_crlf_in_azure_metadata_ssh_keys",
                checks: &[NotCheckable("keys given through Azure's API")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp1912844.py::test_get_interfaces_by_mac_doesnt_traceback",
                checks: &[NotCheckable("Open vSwitch's internal interfaces on an LXD VM")],
                ..ROW
            },
            Row {
                upstream: "bugs/test_lp2013967.py::TestLogPermissionsNotResetOnReboot::test_permissions_unchanged",
                checks: &[NotCheckable("the mode of /var/log/cloud-init.log, cloud-init's Python log, which ember does not write")],
                ..ROW
            },
        ],
        ..SCENARIO
    },
];

#[test]
fn bugs() {
    super::check_all(SCENARIOS);
}
