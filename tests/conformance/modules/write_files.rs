//! `modules/test_write_files.py`: files of every encoding, and deferred ones owned by a user
//! made later in the boot, written once per instance across a restart.

use super::Check::*;
use super::{Row, Scenario, ROW, SCENARIO};

const USER_DATA: &str = r#"#cloud-config
users:
-   default
-   name: myuser
write_files:
-   encoding: b64
    content: QVNDSUkgdGV4dA==
    owner: root:root
    path: /root/file_b64
    permissions: '0644'
-   content: |
        # My new /root/file_text

        SMBDOPTIONS="-D"
    path: /root/file_text
-   content: !!binary |
        /Z/xrHR4WINT0UNoKPQKbuovp6+Js+JK
    path: /root/file_binary
    permissions: '0555'
-   encoding: gzip
    content: !!binary |
        H4sIAIDb/U8C/1NW1E/KzNMvzuBKTc7IV8hIzcnJVyjPL8pJ4QIA6N+MVxsAAAA=
    path: /root/file_gzip
    permissions: '0755'
-   path: '/home/testuser/my-file'
    content: |
      echo 'hello world!'
    defer: true
    owner: 'myuser'
    permissions: '0644'
    append: true
-   path: '/home/testuser/subdir1/subdir2/my-file'
    content: |
      echo 'hello world!'
    defer: true
    owner: 'myuser'
    permissions: '0644'
    append: true
"#;

pub const SCENARIOS: &[Scenario] = &[Scenario {
    user_data: USER_DATA,
    // The upstream class restarts its instance in test_write_files_deferred.
    boots: 2,
    rows: &[
        Row {
            upstream: "modules/test_write_files.py::TestWriteFiles::test_write_files[md5sum </root/file_b64]",
            checks: &[Md5("/root/file_b64", "84baab0d01c1374924dcedfb5972697c")],
            ..ROW
        },
        Row {
            upstream: "modules/test_write_files.py::TestWriteFiles::test_write_files[md5sum </root/file_binary]",
            checks: &[Md5("/root/file_binary", "3801184b97bb8c6e63fa0e1eae2920d7")],
            ..ROW
        },
        Row {
            upstream: "modules/test_write_files.py::TestWriteFiles::test_write_files[sha256sum </root/file_binary]",
            // Same bytes as the md5 row; the mode it was given too.
            checks: &[Mode("/root/file_binary", 0o555)],
            ..ROW
        },
        Row {
            upstream: "modules/test_write_files.py::TestWriteFiles::test_write_files[md5sum </root/file_gzip]",
            checks: &[Md5("/root/file_gzip", "ec96d4a61ed762f0ff3725e1140661de"), Mode("/root/file_gzip", 0o755)],
            ..ROW
        },
        Row {
            upstream: "modules/test_write_files.py::TestWriteFiles::test_write_files[md5sum </root/file_text]",
            checks: &[Md5("/root/file_text", "a2b6d22fa3d7aa551e22bb0c8acd9121")],
            ..ROW
        },
        Row {
            upstream: "modules/test_write_files.py::TestWriteFiles::test_write_files_deferred",
            // Appended once: the second boot did not write it again.
            checks: &[
                Is("/home/testuser/my-file", "echo 'hello world!'\n"),
                Owner("/home/testuser/my-file", "myuser", "myuser"),
                Mode("/home/testuser/my-file", 0o644),
            ],
            ..ROW
        },
        Row {
            upstream: "modules/test_write_files.py::TestWriteFiles::test_write_files_deferred_with_newly_created_dir",
            checks: &[
                Is("/home/testuser/subdir1/subdir2/my-file", "echo 'hello world!'\n"),
                Owner("/home/testuser/subdir1/subdir2", "myuser", "myuser"),
                Mode("/home/testuser/subdir1/subdir2", 0o755),
                Owner("/home/testuser/subdir1", "myuser", "myuser"),
                Mode("/home/testuser/subdir1", 0o755),
            ],
            ..ROW
        },
    ],
    ..SCENARIO
}];

#[test]
fn write_files() {
    super::check_all(SCENARIOS);
}
