//! Every example in the manual (docs/src) is a test. A YAML block names its kind after the
//! language, as mdBook allows (```` ```yaml,cloud-config ````), and is checked the way a user
//! would use it:
//!
//! - `cloud-config`: `ember schema -c` finds nothing, then a scratch machine boots it as a
//!   NoCloud seed's user-data through `ember-initrd all`, and the status holds no error or
//!   warning;
//! - `network-config`: `ember net-convert` renders it for all four stacks without a warning;
//! - `meta-data`: a scratch machine boots it as a NoCloud seed's meta-data, cleanly.
//!
//! `expect=CODE` after the kind names a diagnostic the example gives on purpose (a disk the
//! scratch machine does not have): the boot must give it, and nothing else. A YAML block
//! without a kind fails here, so no example escapes.

use crate::common::target::Accounts;
use crate::common::{self, Machine};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug)]
struct Example {
    page: String,
    line: usize,
    kind: String,
    /// The reason codes the boot must give, and the only ones it may.
    expect: Vec<String>,
    text: String,
}

fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            pages(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The fenced YAML blocks of one page, indented ones (in a list) included.
fn examples(path: &Path, docs: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(path).unwrap();
    let page = path.strip_prefix(docs).unwrap().display().to_string();
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, Vec<String>, Vec<String>)> = None;
    for (n, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let words = info.split([',', ' ']).filter(|w| !w.is_empty());
                    let words: Vec<String> = words.map(str::to_string).collect();
                    open = Some((n + 1, indent, words, Vec::new()));
                }
            }
            Some((start, ind, words, body)) => {
                if trimmed.starts_with("```") {
                    if words.first().is_some_and(|w| w == "yaml") {
                        out.push(Example {
                            page: page.clone(),
                            line: *start,
                            kind: words.get(1).cloned().unwrap_or_default(),
                            expect: words
                                .iter()
                                .filter_map(|w| w.strip_prefix("expect="))
                                .map(str::to_string)
                                .collect(),
                            text: body.join("\n") + "\n",
                        });
                    }
                    open = None;
                } else {
                    body.push(line.get(*ind..).unwrap_or("").to_string());
                }
            }
        }
    }
    out
}

fn all_examples() -> Vec<Example> {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
    let mut files = Vec::new();
    pages(&docs, &mut files);
    files.sort();
    files.iter().flat_map(|p| examples(p, &docs)).collect()
}

/// A Debian-like target with the accounts users_groups edits and an image config naming the
/// default user (as Debian's cloud images do), and `ds=nocloud` with the seed in the target's
/// seed directory.
fn machine(name: &str, meta_data: &str, user_data: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    Accounts::root()
        .group("sudo", 27)
        .group("adm", 4)
        .shadow()
        .gshadow()
        .write(t);
    m.write(t, "etc/hosts", b"127.0.0.1 localhost\n");
    m.write(t, "etc/hostname", b"debian\n");
    std::fs::create_dir_all(t.join("root")).unwrap();
    std::fs::create_dir_all(t.join("home")).unwrap();
    // The running kernel's pool, which seed_random feeds: a file standing for it.
    m.write(&m.host, "dev/urandom", b"");
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: debian\n    groups: [adm, sudo]\n    shell: /bin/bash\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let files = [("meta-data", meta_data), ("user-data", user_data)];
    m.seed_files(t, "var/lib/cloud/seed/nocloud", &files);
    m.cmdline("BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro ds=nocloud");
    m
}

/// Boots the seed and returns the diagnostics the status holds, as `code: message` lines,
/// but for the `expect`ed codes, which must each be there.
fn boot(m: &Machine, expect: &[String]) -> Vec<String> {
    let out = m.initrd("all");
    common::assert_no_panic(&out);
    let diags = m.diags();
    let code = |d: &serde_json::Value| d["code"].as_str().unwrap_or_default().to_string();
    let mut problems: Vec<String> = diags
        .iter()
        .filter(|d| !expect.contains(&code(d)))
        .map(|d| format!("{}: {}", d["code"], d["message"]))
        .collect();
    for want in expect {
        if !diags.iter().any(|d| &code(d) == want) {
            problems.push(format!("expected {want}, which the boot did not give"));
        }
    }
    problems
}

/// The problems `ember schema -c` prints for the file (none for a clean one).
fn schema(file: &Path) -> Vec<String> {
    let out = common::run(
        Command::new(common::EMBER)
            .env("EMBER_INITRD", common::EMBER_INITRD)
            .args(["schema", "-c"])
            .arg(file),
    );
    let text = common::text(&out);
    let mut problems: Vec<String> = text
        .lines()
        .filter(|l| l.contains(": line ") || l.starts_with("Error"))
        .map(str::to_string)
        .collect();
    if !out.status.success() && problems.is_empty() {
        problems.push(format!("exit {:?}: {text}", out.status.code()));
    }
    problems
}

/// The warnings and errors `ember net-convert` gives for each stack.
fn net_convert(file: &Path, dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for stack in ["netplan", "networkd", "eni", "nm"] {
        let out = common::run(
            Command::new(common::EMBER)
                .env("EMBER_INITRD", common::EMBER_INITRD)
                .args(["net-convert", "--kind", "yaml", "--output-kind", stack])
                .arg("--directory")
                .arg(dir.join(stack))
                .arg(file),
        );
        let stderr = common::stderr(&out);
        if !out.status.success() {
            problems.push(format!("{stack}: exit {:?}: {stderr}", out.status.code()));
        }
        problems.extend(stderr.lines().map(|l| format!("{stack}: {l}")));
    }
    problems
}

fn check(i: usize, e: &Example) -> Result<(), String> {
    let name = format!("book-{i}");
    let problems = match e.kind.as_str() {
        "cloud-config" => {
            let m = machine(&name, "instance-id: book-example\n", &e.text);
            let file = m.dir.join("user-data.yaml");
            std::fs::write(&file, &e.text).unwrap();
            let mut problems = schema(&file);
            problems.extend(boot(&m, &e.expect));
            problems
        }
        "network-config" => {
            let dir = std::env::temp_dir().join(format!("ember-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("network-config.yaml");
            std::fs::write(&file, &e.text).unwrap();
            let problems = net_convert(&file, &dir);
            let _ = std::fs::remove_dir_all(&dir);
            problems
        }
        "meta-data" => boot(&machine(&name, &e.text, "#cloud-config\n{}\n"), &e.expect),
        other => {
            return Err(format!(
                "a yaml block of kind {other:?} (want cloud-config, network-config or meta-data)"
            ))
        }
    };
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n    "))
    }
}

#[test]
fn every_example_in_the_manual_is_checked_and_boots_cleanly() {
    let all = all_examples();
    assert!(all.len() >= 10, "only {} examples in the manual", all.len());
    let failures: Vec<String> = all
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            check(i, e)
                .err()
                .map(|why| format!("{}:{} ({}): {why}", e.page, e.line, e.kind))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("book examples: {} checked", all.len());
}
