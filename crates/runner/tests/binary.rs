//! The `ember` binary as built: it answers as `ember` or as `cloud-init`, and refuses a bad
//! command line with argparse's exit code. (The behaviour suites are the workspace's `tests/`,
//! which boot ember-initrd first; this target also makes `cargo test` build the binary they run.)

use std::process::Command;

const EMBER: &str = env!("CARGO_BIN_EXE_ember");

#[test]
fn help_names_the_commands_and_a_bad_command_exits_2() {
    let out = Command::new(EMBER).arg("--help").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    for command in ["status", "query", "net-convert"] {
        assert!(text.contains(command), "--help lacks {command}: {text}");
    }
    let out = Command::new(EMBER).arg("no-such-command").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
