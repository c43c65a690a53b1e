//! `modules/test_apt_functionality.py::TestApt`, the part that needs no keyserver: its
//! user-data less the sources with keys to fetch (`keyid` + `keyserver`, `ppa:`), which need
//! the network and gpg; those rows say so.

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO, UBUNTU_CLOUD_CFG};

const USER_DATA: &str = r#"#cloud-config
bootcmd:
    - rm -f /etc/apt/sources.list /etc/apt/sources.list.d/ubuntu.sources
apt:
  conf: |
    APT {
        Get {
            Assume-Yes "true";
            Fix-Broken "true";
        }
    }
  primary:
    - arches: [default]
      uri: http://badarchive.ubuntu.com/ubuntu
  security:
    - arches: [default]
      uri: http://badsecurity.ubuntu.com/ubuntu
  sources_list: |
    deb $MIRROR $RELEASE main restricted
    deb-src $MIRROR $RELEASE main restricted
    deb $PRIMARY $RELEASE universe restricted
    deb-src $PRIMARY $RELEASE universe restricted
    deb $SECURITY $RELEASE-security multiverse
    deb-src $SECURITY $RELEASE-security multiverse
  sources:
    test_bad_key:
      key: ""
      source: "deb $MIRROR $RELEASE main"
apt_pipelining: os
"#;

const SOURCES: &str = "/etc/apt/sources.list";

pub const SCENARIOS: &[Scenario] = &[Scenario {
    user_data: USER_DATA,
    image: &[
        UBUNTU_CLOUD_CFG,
        (
            "/etc/os-release",
            "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n",
        ),
    ],
    rows: &[
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_sources_list",
            checks: &[
                Line(
                    SOURCES,
                    "deb http://badarchive.ubuntu.com/ubuntu noble main restricted",
                ),
                Line(
                    SOURCES,
                    "deb-src http://badarchive.ubuntu.com/ubuntu noble main restricted",
                ),
                Line(
                    SOURCES,
                    "deb http://badarchive.ubuntu.com/ubuntu noble universe restricted",
                ),
                Line(
                    SOURCES,
                    "deb-src http://badarchive.ubuntu.com/ubuntu noble universe restricted",
                ),
                Line(
                    SOURCES,
                    "deb http://badsecurity.ubuntu.com/ubuntu noble-security multiverse",
                ),
                Line(
                    SOURCES,
                    "deb-src http://badsecurity.ubuntu.com/ubuntu noble-security multiverse",
                ),
            ],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_apt_conf",
            checks: &[
                Has(
                    "/etc/apt/apt.conf.d/94cloud-init-config",
                    "Assume-Yes \"true\";",
                ),
                Has(
                    "/etc/apt/apt.conf.d/94cloud-init-config",
                    "Fix-Broken \"true\";",
                ),
            ],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_bad_key",
            checks: &[
                Absent("/etc/apt/trusted.list.d/test_bad_key.gpg"),
                Absent("/etc/apt/trusted.gpg.d/test_bad_key.gpg"),
            ],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_os_pipelining",
            checks: &[Absent("/etc/apt/apt.conf.d/90cloud-init-pipelining")],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_ppa_source",
            checks: &[NotCheckable("a PPA's key from keyserver.ubuntu.com")],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_signed_by",
            checks: &[NotCheckable("a key from keyserver.ubuntu.com")],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_key",
            checks: &[NotCheckable("gpg in the target to dearmor the key")],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_keyserver",
            checks: &[NotCheckable("a key from keyserver.ubuntu.com")],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_sources_write",
            checks: &[NotCheckable("its sources' keys from keyserver.ubuntu.com")],
            ..ROW
        },
        Row {
            upstream: "modules/test_apt_functionality.py::TestApt::test_sources_append",
            checks: &[NotCheckable("its sources' keys from keyserver.ubuntu.com")],
            ..ROW
        },
    ],
    ..SCENARIO
}];

#[test]
fn apt() {
    super::check_all(SCENARIOS);
}
