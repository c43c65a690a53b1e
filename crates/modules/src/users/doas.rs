//! A user's `doas` rules, appended to /etc/doas.conf (0440 when new) as cloud-init's distro
//! writes them: only when every rule names the user itself (`permit|deny [options] USER [as
//! TARGET] [cmd COMMAND [args ...]]`), a block per user added once (a rerun adds nothing).

use crate::error::Diag;
use crate::root::{FileSpec, Root};

pub const FILE: &str = "/etc/doas.conf";
const MAX: u64 = 4 * 1024 * 1024;
const HEADER: &str = "# doas rules for the users of the cloud-config, written by ember.\n";

/// Whether `rule` is a doas rule whose identity is `user`.
pub fn names_user(rule: &str, user: &str) -> bool {
    // One rule is one line: a line break would smuggle in a rule for someone else.
    if rule.chars().any(char::is_control) {
        return false;
    }
    let mut words = rule.split_whitespace().peekable();
    if !matches!(words.next(), Some("permit" | "deny")) {
        return false;
    }
    // Options, `setenv { ... }` spanning words.
    while let Some(&w) = words.peek() {
        match w {
            "nolog" | "nopass" | "persist" | "keepenv" => {
                words.next();
            }
            w if w.starts_with("setenv") => {
                for w in words.by_ref() {
                    if w.ends_with('}') {
                        break;
                    }
                }
            }
            _ => break,
        }
    }
    let word_ok =
        |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if words.next() != Some(user) || !word_ok(user) {
        return false;
    }
    let rest: Vec<&str> = words.collect();
    match rest.as_slice() {
        [] => true,
        ["as", target, tail @ ..] => word_ok(target) && command_ok(tail),
        tail => command_ok(tail),
    }
}

/// Nothing, or `cmd COMMAND [args ...]`.
fn command_ok(words: &[&str]) -> bool {
    matches!(words, [] | ["cmd", _] | ["cmd", _, "args", ..])
}

/// The block of `user`'s rules.
fn block(user: &str, rules: &[String]) -> String {
    format!("\n# User rules for {user}\n{}\n", rules.join("\n"))
}

/// Adds each user's block that the file lacks.
pub fn write(root: &Root, users: &[(String, Vec<String>)]) -> Result<(), Diag> {
    let diag = |e: crate::root::RootError| Diag::error(e.code(), e.to_string());
    let blocks: Vec<String> = (users.iter())
        .filter(|(_, rules)| !rules.is_empty())
        .map(|(user, rules)| block(user, rules))
        .collect();
    if blocks.is_empty() {
        return Ok(());
    }
    let existing = root.read_file(FILE, MAX).map_err(diag)?;
    let text = String::from_utf8_lossy(existing.as_deref().unwrap_or_default()).into_owned();
    let mut add: String = blocks.into_iter().filter(|b| !text.contains(b)).collect();
    if add.is_empty() {
        return Ok(());
    }
    if existing.is_none() {
        add.insert_str(0, HEADER);
    }
    // Appending keeps an existing file's mode and owner; a new one gets doas's 0440.
    root.append_file(FILE, add.as_bytes(), &FileSpec::mode(0o440))
        .map_err(diag)
}

#[cfg(test)]
mod tests {
    use super::names_user;

    /// The rule forms cloud-init's distro accepts, and the ones it refuses.
    #[test]
    fn rules_must_name_the_user() {
        for rule in [
            "permit nopass bob",
            "deny bob",
            "permit persist keepenv bob as root",
            "permit setenv { PATH=/bin } bob as root cmd /bin/ls",
            "permit bob cmd /usr/bin/apt args update",
        ] {
            assert!(names_user(rule, "bob"), "{rule}");
        }
        for rule in [
            "permit alice",
            "allow bob",
            "permit bob as",
            "permit bob run x",
            "permit bob cmd /bin/ls args x\npermit nopass alice as root",
            "",
        ] {
            assert!(!names_user(rule, "bob"), "{rule}");
        }
    }
}
