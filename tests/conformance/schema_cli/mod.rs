//! `schema` and the command line against cloud-init's tests: every module doc example
//! (`examples.rs`), every `test_schema_validation` case of the module tests (`cases.rs`), and
//! the schema command's and other commands' own cases (`command.rs`). Each config is written
//! to a file and checked with `ember schema --config-file`, as cloud-init's users do.

mod cases;
mod command;
mod examples;

use crate::common;
use crate::differences;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What cloud-init's schema says of a config.
#[derive(Clone, Copy, Debug)]
pub enum Want {
    /// Exit 0, `Valid schema FILE` (warnings and deprecations allowed).
    Valid,
    /// Exit 1, `Error: Invalid schema: FILE`, and ember names this key path in an error line
    /// (`key: line N: message`); empty when the row claims no key.
    Invalid(&'static str),
}

/// A fresh directory for one table.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ember-conformance-schema-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `ember ARGS` through the runner (which hands `schema` to ember-initrd): exit code, stdout
/// and stderr.
pub fn ember(args: &[&str]) -> (i32, String, String) {
    let out = common::run(
        Command::new(common::EMBER)
            .env("EMBER_INITRD", common::EMBER_INITRD)
            .args(args),
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Checks `ember schema [extra] -c FILE` on `text` against `want`; the failure, if any.
pub fn check(file: &Path, text: &str, extra: &[&str], want: Want) -> Result<(), String> {
    std::fs::write(file, text).unwrap();
    let path = file.to_str().unwrap();
    let mut args = vec!["schema"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--config-file", path]);
    let (code, out, err) = ember(&args);
    let said = || format!("exit {code}\nstdout: {out}\nstderr: {err}");
    match want {
        Want::Valid if code == 0 && out.contains(&format!("Valid schema {path}")) => Ok(()),
        Want::Valid => Err(format!("expected valid, got {}", said())),
        Want::Invalid(key) => {
            let named = key.is_empty()
                || err
                    .lines()
                    .any(|l| l.starts_with(&format!("{key}: line ")) && !l.contains(": warning:"));
            if code == 1 && err.contains("Error: Invalid schema: ") && named {
                Ok(())
            } else {
                Err(format!("expected invalid naming `{key}`, got {}", said()))
            }
        }
    }
}

/// Runs a table: every row checked, every failure reported at once.
pub fn run_table<'a>(
    name: &str,
    rows: impl Iterator<Item = (String, String, Vec<&'a str>, Want, Option<&'a str>)>,
) {
    let dir = scratch(name);
    let mut failures = Vec::new();
    let mut count = 0;
    for (i, (upstream, text, extra, want, differs)) in rows.enumerate() {
        count += 1;
        if let Some(phrase) = differs {
            differences::assert_listed(&upstream, phrase);
        }
        let file = dir.join(format!("{i}.yaml"));
        if let Err(e) = check(&file, &text, &extra, want) {
            failures.push(format!("{upstream}: {e}"));
        }
    }
    assert!(count > 0, "{name}: no rows");
    assert!(
        failures.is_empty(),
        "{name}: {} of {count} rows disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Instance data for the doc examples that are Jinja templates (they use `v1.instance_id`).
const INSTANCE_DATA: &str = r#"{"v1": {"instance_id": "i-0123456789"}}"#;

#[test]
fn module_doc_examples_are_valid() {
    let dir = scratch("examples-data");
    let data = dir.join("instance-data.json");
    std::fs::write(&data, INSTANCE_DATA).unwrap();
    let data = data.to_str().unwrap().to_string();
    let data: &'static str = Box::leak(data.into_boxed_str());
    assert!(examples::EXAMPLES.len() >= 127);
    let rows = examples::EXAMPLES.iter().map(|(name, jinja, config)| {
        let upstream = format!("doc/module-docs/{name}.yaml (TestCloudConfigExamples)");
        let (head, extra) = if *jinja {
            (
                "## template: jinja\n#cloud-config\n",
                vec!["--instance-data", data],
            )
        } else {
            ("#cloud-config\n", vec![])
        };
        (
            upstream,
            format!("{head}{config}\n"),
            extra,
            Want::Valid,
            None,
        )
    });
    run_table("examples", rows);
}

#[test]
fn module_schema_cases() {
    assert!(cases::CASES.len() >= 300);
    let rows = cases::CASES.iter().map(|(name, config, want, differs)| {
        let text = format!("#cloud-config\n{config}\n");
        (name.to_string(), text, vec![], *want, *differs)
    });
    run_table("cases", rows);
}

#[test]
fn hand_written_cases() {
    let rows = command::CONFIGS.iter().map(|row| {
        (
            row.upstream.to_string(),
            row.text.to_string(),
            row.args.to_vec(),
            row.want,
            row.differs,
        )
    });
    run_table("configs", rows);
}
