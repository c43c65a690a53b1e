//! The man page (dist/man/ember.1) is what `scripts/mkman` makes from the binary's own
//! `--help`: a command, option or exit code added without regenerating it fails here.

use crate::common;
use std::process::Command;

#[test]
fn man_page_matches_the_help() {
    let out = std::env::temp_dir().join(format!("ember-man-{}.1", std::process::id()));
    // mkman runs `ember --help` and `--version` with check=True: a panic fails it.
    let run = common::run(
        Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/mkman"))
            .arg(common::EMBER)
            .args(["-o", out.to_str().unwrap()]),
    );
    assert!(run.status.success(), "{}", common::stderr(&run));
    let made = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/dist/man/ember.1")).unwrap();
    assert_eq!(
        made, committed,
        "dist/man/ember.1 is stale: run scripts/mkman target/debug/ember"
    );
    for section in [
        ".SH COMMANDS",
        ".SH OPTIONS",
        ".SH EXIT STATUS",
        ".B collect\\-logs",
    ] {
        assert!(made.contains(section), "{section}");
    }
}
