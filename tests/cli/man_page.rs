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

/// The manual's command-line reference (docs/src/cli.md) shows each binary's `--help` and
/// every command's, between its markers, as the binaries print them: the man page and the
/// manual come from the same text. `EMBER_BLESS=1` rewrites the block.
#[test]
fn the_manuals_cli_reference_is_the_help() {
    let help = |bin: &str, args: &[&str]| {
        let out = common::run(Command::new(bin).args(args));
        assert!(
            out.status.success(),
            "{bin} {args:?}: {}",
            common::stderr(&out)
        );
        common::stdout(&out).trim_end().to_string()
    };
    let top = help(common::EMBER, &["--help"]);
    let mut block = format!("```text\n$ ember --help\n{top}\n");
    let commands = top
        .split("commands:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help");
    for command in commands {
        let text = help(common::EMBER, &[command, "--help"]);
        block.push_str(&format!("\n$ ember {command} --help\n{text}\n"));
    }
    let initrd = help(common::EMBER_INITRD, &["--help"]);
    block.push_str(&format!("\n$ ember-initrd --help\n{initrd}\n```\n"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/cli.md");
    let page = std::fs::read_to_string(path).unwrap();
    let (begin, end) = ("<!-- help:begin -->\n", "<!-- help:end -->");
    let (head, rest) = page
        .split_once(begin)
        .expect("docs/src/cli.md has the help markers");
    let (old, tail) = rest
        .split_once(end)
        .expect("docs/src/cli.md has the end marker");
    if old != block {
        if std::env::var_os("EMBER_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(path, format!("{head}{begin}{block}{end}{tail}")).unwrap();
        } else {
            panic!("docs/src/cli.md's help is stale: EMBER_BLESS=1 cargo test --test cli man_page");
        }
    }
}
