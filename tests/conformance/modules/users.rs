//! Accounts and passwords: `modules/test_users_groups.py` and `modules/test_set_password.py`
//! (its three classes: chpasswd `list` as a list, as a string, and `users`).

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO, SSHD_CONFIG, UBUNTU_CLOUD_CFG};

const USERS_GROUPS: &str = r#"#cloud-config
# Add groups to the system
groups:
  - secret: [root]
  - cloud-users

# Add users to the system. Users are added after groups are added.
users:
  - default
  - name: foobar
    gecos: Foo B. Bar
    primary_group: foobar
    groups: users
    expiredate: '2038-01-19'
    lock_passwd: false
    passwd: $6$j212wezy$7H/1LT4f9/N3wpgNunhsIqtMj62OKiS3nyNwuizouQc3u7MbYCarYeAHWYPYb2FT.lbioDm2RrkJPb9BZMN1O/
  - name: barfoo
    gecos: Bar B. Foo
    sudo: "ALL=(ALL) NOPASSWD:ALL"
    groups: [cloud-users, secret]
    lock_passwd: true
  - name: nopassworduser
    gecos: I do not like passwords
    lock_passwd: false
  - name: cloudy
    gecos: Magic Cloud App Daemon User
    inactive: '0'
    system: true
  - name: eric
    sudo: null
    uid: 1742
  - name: archivist
    uid: 1743
"#;

const USERS_GROUPS_ROWS: &[Row] = &[
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[group ubuntu]",
        checks: &[FieldDigits("/etc/group", "ubuntu", 2, 4)],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[group cloud-users]",
        checks: &[FieldDigits("/etc/group", "cloud-users", 2, 4), Member("/etc/group", "cloud-users", "barfoo")],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[passwd ubuntu]",
        checks: &[
            FieldDigits("/etc/passwd", "ubuntu", 2, 4),
            FieldDigits("/etc/passwd", "ubuntu", 3, 4),
            Field("/etc/passwd", "ubuntu", 4, "Ubuntu"),
            Field("/etc/passwd", "ubuntu", 5, "/home/ubuntu"),
            Field("/etc/passwd", "ubuntu", 6, "/bin/bash"),
        ],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[passwd foobar]",
        checks: &[
            FieldDigits("/etc/passwd", "foobar", 2, 4),
            FieldDigits("/etc/passwd", "foobar", 3, 4),
            Field("/etc/passwd", "foobar", 4, "Foo B. Bar"),
            Field("/etc/passwd", "foobar", 5, "/home/foobar"),
        ],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[passwd barfoo]",
        checks: &[
            FieldDigits("/etc/passwd", "barfoo", 2, 4),
            Field("/etc/passwd", "barfoo", 4, "Bar B. Foo"),
            Field("/etc/passwd", "barfoo", 5, "/home/barfoo"),
        ],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[passwd cloudy]",
        // `[0-9]{3,4}` upstream; a system account's id is below 1000.
        checks: &[FieldDigits("/etc/passwd", "cloudy", 2, 3)],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[passwd eric]",
        checks: &[Field("/etc/passwd", "eric", 2, "1742")],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[passwd archivist]",
        checks: &[Field("/etc/passwd", "archivist", 2, "1743")],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_users_groups[passwd nopassworduser]",
        checks: &[
            FieldDigits("/etc/passwd", "nopassworduser", 2, 4),
            Field("/etc/passwd", "nopassworduser", 4, "I do not like passwords"),
        ],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_user_root_in_secret",
        checks: &[Member("/etc/group", "secret", "root")],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_initial_warnings",
        checks: &[NoErrors],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::TestUsersGroups::test_nopassword_unlock_warnings",
        checks: &[NotCheckable("`passwd -d` and `cloud-init clean` on the booted machine, then the warnings of its log")],
        ..ROW
    },
    Row {
        upstream: "modules/test_users_groups.py::test_sudoers_includedir",
        checks: &[
            Count("/etc/sudoers", "includedir /etc/sudoers.d", 1),
            Has("/etc/sudoers.d/90-cloud-init-users", "barfoo ALL=(ALL) NOPASSWD:ALL"),
        ],
        ..ROW
    },
];

/// The user-data the three classes share (a macro: `concat!` takes literals only).
macro_rules! common {
    () => {
        r#"#cloud-config
ssh_pwauth: yes
users:
  - default
  - name: tom
    # md5 gotomgo
    passwd: "$1$S7$tT1BEDIYrczeryDQJfdPe0"
    lock_passwd: false
  - name: dick
    # md5 gocubsgo
    passwd: "$1$ssisyfpf$YqvuJLfrrW6Cg/l53Pi1n1"
    lock_passwd: false
  - name: harry
    # sha512 goharrygo
    passwd: "$6$LF$9Z2p6rWK6TNC1DC6393ec0As.18KRAvKDbfsGJEdWN3sRQRwpdfoh37EQ3yUh69tP4GSrGW5XKHxMLiKowJgm/"
    lock_passwd: false
  - name: jane
    # sha256 gojanego
    passwd: "$5$iW$XsxmWCdpwIW8Yhv.Jn/R3uk6A4UaicfW5Xp7C9p9pg."
    lock_passwd: false
  - name: sally
    # sha256 gosallygo
    passwd: "$5$bA$KBMTe8lXf0e8lE4f4hYPU0h6h0HzQX4vHpnq6xHn9Q2"
  - name: "mikey"
    lock_passwd: false
"#
    };
}

const LIST: &str = concat!(
    common!(),
    "
chpasswd:
  list:
    - tom:mypassword123!
    - dick:RANDOM
    - harry:RANDOM
    - mikey:$5$xZ$B2YGGEx2AOf4PeW48KC6.QyT1W2B4rZ9Qbltudtha89
"
);

const STRING: &str = concat!(
    common!(),
    "
chpasswd:
    list: |
      tom:mypassword123!
      dick:RANDOM
      harry:RANDOM
      mikey:$5$xZ$B2YGGEx2AOf4PeW48KC6.QyT1W2B4rZ9Qbltudtha89
"
);

/// mikey's entry has no `type`: cloud-init's default is a hash, set as given.
const USERS: &str = concat!(
    common!(),
    "
chpasswd:
  users:
    - name: tom
      password: mypassword123!
      type: text
    - name: dick
      type: RANDOM
    - name: harry
      type: RANDOM
    - name: mikey
      password: $5$xZ$B2YGGEx2AOf4PeW48KC6.QyT1W2B4rZ9Qbltudtha89
"
);

macro_rules! password_rows {
    ($class:literal) => {
        &[
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_no_duplicate_users_in_shadow"
                ),
                checks: &[NoDuplicates("/etc/shadow")],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_password_in_users_dict_set_correctly"
                ),
                checks: &[Password(
                    "jane",
                    "$5$iW$XsxmWCdpwIW8Yhv.Jn/R3uk6A4UaicfW5Xp7C9p9pg.",
                )],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_hashed_password_without_lock_passwd_override_is_locked"
                ),
                checks: &[Password(
                    "sally",
                    "!$5$bA$KBMTe8lXf0e8lE4f4hYPU0h6h0HzQX4vHpnq6xHn9Q2",
                )],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_password_in_chpasswd_list_set_correctly"
                ),
                checks: &[Password(
                    "mikey",
                    "$5$xZ$B2YGGEx2AOf4PeW48KC6.QyT1W2B4rZ9Qbltudtha89",
                )],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_random_passwords_set_correctly"
                ),
                checks: &[
                    PasswordStarts("harry", "$"),
                    PasswordStarts("dick", "$"),
                    PasswordsDiffer("harry", "dick"),
                    Lacks("/etc/shadow", "harry:$6$LF$9Z2p6rWK6TNC1DC6393ec0As"),
                    Lacks("/etc/shadow", "dick:$1$ssisyfpf$"),
                ],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_random_passwords_not_stored_in_cloud_init_output_log"
                ),
                checks: &[
                    Lacks("/var/log/cloud-init-output.log", "dick:"),
                    Lacks("/var/log/cloud-init-output.log", "harry:"),
                ],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_random_passwords_emitted_to_serial_console"
                ),
                checks: &[NotCheckable("the serial console of a booted machine")],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_explicit_password_set_correctly"
                ),
                // Upstream re-crypts the clear text with the salt found; here: it was hashed
                // (SHA-512 crypt), not kept as text nor the users dict's md5.
                checks: &[
                    PasswordStarts("tom", "$6$"),
                    Lacks("/etc/shadow", "mypassword123!"),
                ],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_shadow_expected_users"
                ),
                checks: &[
                    Has("/etc/shadow", "tom:"),
                    Has("/etc/shadow", "dick:"),
                    Has("/etc/shadow", "harry:"),
                    Has("/etc/shadow", "jane:"),
                    Has("/etc/shadow", "sally:"),
                    Has("/etc/shadow", "mikey:"),
                ],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_sshd_config_file"
                ),
                checks: &[Has(
                    "/etc/ssh/sshd_config.d/50-cloud-init.conf",
                    "PasswordAuthentication yes\n",
                )],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_check_ssh_service"
                ),
                checks: &[NotCheckable(
                    "the `systemctl show` of ssh.service on a booted Ubuntu, in cloud-init.log",
                )],
                ..ROW
            },
            Row {
                upstream: concat!(
                    "modules/test_set_password.py::",
                    $class,
                    "::test_sshd_config"
                ),
                checks: &[NotCheckable(
                    "`sshd -T` of the booted system (its drop-in is test_sshd_config_file's row)",
                )],
                ..ROW
            },
        ]
    };
}

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        user_data: USERS_GROUPS,
        image: &[
            UBUNTU_CLOUD_CFG,
            ("/etc/sudoers", "@includedir /etc/sudoers.d\n"),
        ],
        rows: USERS_GROUPS_ROWS,
        ..SCENARIO
    },
    Scenario {
        user_data: LIST,
        image: &[UBUNTU_CLOUD_CFG, SSHD_CONFIG],
        rows: password_rows!("TestPasswordList"),
        ..SCENARIO
    },
    Scenario {
        user_data: STRING,
        image: &[UBUNTU_CLOUD_CFG, SSHD_CONFIG],
        rows: password_rows!("TestPasswordListString"),
        ..SCENARIO
    },
    Scenario {
        user_data: USERS,
        image: &[UBUNTU_CLOUD_CFG, SSHD_CONFIG],
        rows: password_rows!("TestPasswordUsersList"),
        ..SCENARIO
    },
];

#[test]
fn users() {
    super::check_all(SCENARIOS);
}
