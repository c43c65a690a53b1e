//! `modules/test_ssh_keysfile.py`: authorized keys land where sshd's `AuthorizedKeysFile`
//! says, owned and moded for their user. Upstream edits sshd_config from `bootcmd`, which
//! cloud-init runs before its ssh module; ember's ssh module runs in the initramfs, before
//! any runner module, so here the image carries the setting. Logging in (paramiko) is not
//! checked: the files and modes it depends on are.

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO, UBUNTU_CLOUD_CFG};

const USER1: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC5oY7vd2AtPTg6G3osnUFCgqMi8WC6LLB33ThcXyy2g test1";
const USER2: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH5sAW8ukW5vnBF93LCEW3quR2YR7PNw9kNuCbTC6Vr5 test2";
const DEFAULT: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGLh+NZkylmmyN6PmmmBazs3Zvki0nMJQ2TB5jHBUMfM test3";

macro_rules! user_data {
    () => {
        "#cloud-config
ssh_authorized_keys:
 - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGLh+NZkylmmyN6PmmmBazs3Zvki0nMJQ2TB5jHBUMfM test3
users:
- default
- name: test_user1
  ssh_authorized_keys:
    - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC5oY7vd2AtPTg6G3osnUFCgqMi8WC6LLB33ThcXyy2g test1
- name: test_user2
  ssh_authorized_keys:
    - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH5sAW8ukW5vnBF93LCEW3quR2YR7PNw9kNuCbTC6Vr5 test2
"
    };
}

/// The checks of upstream's `common_verify` that lie on the root, for keys files `$f1`,
/// `$f2` (the two users'), `$fu` (ubuntu's) and `$fr` (root's).
macro_rules! verify {
    ($f1:expr, $f2:expr, $fu:expr, $fr:expr) => {
        &[
            Is($f1, concat!("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC5oY7vd2AtPTg6G3osnUFCgqMi8WC6LLB33ThcXyy2g test1", "\n")),
            Is($f2, concat!("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH5sAW8ukW5vnBF93LCEW3quR2YR7PNw9kNuCbTC6Vr5 test2", "\n")),
            Has($fu, DEFAULT),
            Has($fr, DEFAULT),
            Lacks($f1, DEFAULT),
            Lacks($fu, USER1),
            Lacks($f1, USER2),
            Owner($f1, "test_user1", "test_user1"),
            Mode($f1, 0o600),
            Owner($f2, "test_user2", "test_user2"),
            Mode($f2, 0o600),
            Owner($fu, "ubuntu", "ubuntu"),
            Mode($fu, 0o600),
            Owner($fr, "root", "root"),
            Mode($fr, 0o600),
            Mode("/root", 0o700),
            Owner("/home", "root", "root"),
            Mode("/home", 0o755),
        ]
    };
}

const fn sshd(keys_file: &'static str) -> [(&'static str, &'static str); 2] {
    [UBUNTU_CLOUD_CFG, ("/etc/ssh/sshd_config", keys_file)]
}

const DEFAULT_IMAGE: [(&str, &str); 2] =
    sshd("#AuthorizedKeysFile .ssh/authorized_keys .ssh/authorized_keys2\n");
const KEYS2_IMAGE: [(&str, &str); 2] =
    sshd("AuthorizedKeysFile /etc/ssh/authorized_keys %h/.ssh/authorized_keys2\n");
const NESTED_IMAGE: [(&str, &str); 2] =
    sshd("AuthorizedKeysFile /etc/ssh/authorized_keys %h/foo/bar/ssh/keys\n");
const EXTERNAL_IMAGE: [(&str, &str); 2] =
    sshd("AuthorizedKeysFile /etc/ssh/authorized_keys /etc/ssh/authorized_keys/%u/keys\n");

const MOVED: &str = "before every runner module";

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        user_data: user_data!(),
        image: &DEFAULT_IMAGE,
        rows: &[Row {
            upstream: "modules/test_ssh_keysfile.py::test_authorized_keys_default",
            checks: verify!(
                "/home/test_user1/.ssh/authorized_keys",
                "/home/test_user2/.ssh/authorized_keys",
                "/home/ubuntu/.ssh/authorized_keys",
                "/root/.ssh/authorized_keys"
            ),
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: user_data!(),
        image: &KEYS2_IMAGE,
        rows: &[Row {
            upstream: "modules/test_ssh_keysfile.py::test_authorized_keys2",
            checks: verify!(
                "/home/test_user1/.ssh/authorized_keys2",
                "/home/test_user2/.ssh/authorized_keys2",
                "/home/ubuntu/.ssh/authorized_keys2",
                "/root/.ssh/authorized_keys2"
            ),
            differs: Some(MOVED),
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: user_data!(),
        image: &NESTED_IMAGE,
        rows: &[Row {
            upstream: "modules/test_ssh_keysfile.py::test_nested_keys",
            checks: verify!(
                "/home/test_user1/foo/bar/ssh/keys",
                "/home/test_user2/foo/bar/ssh/keys",
                "/home/ubuntu/foo/bar/ssh/keys",
                "/root/foo/bar/ssh/keys"
            ),
            differs: Some(MOVED),
            ..ROW
        }],
        ..SCENARIO
    },
    Scenario {
        user_data: user_data!(),
        image: &EXTERNAL_IMAGE,
        rows: &[Row {
            upstream: "modules/test_ssh_keysfile.py::test_external_keys",
            checks: verify!(
                "/etc/ssh/authorized_keys/test_user1/keys",
                "/etc/ssh/authorized_keys/test_user2/keys",
                "/etc/ssh/authorized_keys/ubuntu/keys",
                "/etc/ssh/authorized_keys/root/keys"
            ),
            differs: Some(MOVED),
            ..ROW
        }],
        ..SCENARIO
    },
];

#[test]
fn keysfile() {
    super::check_all(SCENARIOS);
}
