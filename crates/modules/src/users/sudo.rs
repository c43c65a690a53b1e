//! Sudo rules of every user in the one file cloud-init uses, /etc/sudoers.d/90-cloud-init-users
//! (0440), one block per user, a block replaced when the user's rules are given again (so a
//! rerun adds nothing). /etc/sudoers gets an `#includedir` line when it lacks one, as
//! cloud-init ensures.

use crate::error::Diag;
use crate::root::{FileSpec, Root, RootError};

pub const FILE: &str = "/etc/sudoers.d/90-cloud-init-users";
const SUDOERS: &str = "/etc/sudoers";
const MAX: u64 = 4 * 1024 * 1024;
const HEADER: &str =
    "# Sudo rules for the users of the cloud-config, written by ember at first boot.\n";
const BLOCK: &str = "# User rules for ";

fn diag(e: RootError) -> Diag {
    Diag::error(e.code(), e.to_string())
}

/// The file's text with `rules` set for each `(user, rules)`.
pub fn render(existing: &str, users: &[(String, Vec<String>)]) -> String {
    // Blocks: (user or None for the lead-in, lines).
    let mut blocks: Vec<(Option<String>, Vec<String>)> = vec![(None, Vec::new())];
    for line in existing.lines() {
        match line.strip_prefix(BLOCK) {
            Some(u) => blocks.push((Some(u.trim().to_string()), Vec::new())),
            None => blocks.last_mut().expect("lead-in").1.push(line.to_string()),
        }
    }
    if existing.is_empty() {
        blocks[0].1 = HEADER.lines().map(str::to_string).collect();
    }
    for (user, rules) in users {
        let mut lines: Vec<String> = rules.iter().map(|r| format!("{user} {r}")).collect();
        lines.push(String::new());
        match blocks.iter_mut().find(|(u, _)| u.as_deref() == Some(user)) {
            Some(b) => b.1 = lines,
            None => {
                let lead = &mut blocks.last_mut().expect("lead-in").1;
                if lead.last().is_some_and(|l| !l.is_empty()) {
                    lead.push(String::new());
                }
                blocks.push((Some(user.clone()), lines));
            }
        }
    }
    let mut out = String::new();
    for (user, lines) in blocks {
        if let Some(u) = user {
            out.push_str(&format!("{BLOCK}{u}\n"));
        }
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

/// Writes the rules of `users` (those with none are left out).
pub fn write(root: &Root, users: &[(String, Vec<String>)]) -> Result<(), Diag> {
    let users: Vec<_> = users
        .iter()
        .filter(|(_, r)| !r.is_empty())
        .cloned()
        .collect();
    if users.is_empty() {
        return Ok(());
    }
    let existing = root.read_file(FILE, MAX).map_err(diag)?.unwrap_or_default();
    let existing = String::from_utf8_lossy(&existing);
    let text = render(&existing, &users);
    if text != existing {
        root.create_dir_all("/etc/sudoers.d", &FileSpec::mode(0o750))
            .map_err(diag)?;
        root.write_file(FILE, text.as_bytes(), &FileSpec::mode(0o440))
            .map_err(diag)?;
    }
    ensure_include(root)
}

fn ensure_include(root: &Root) -> Result<(), Diag> {
    let base = root.read_file(SUDOERS, MAX).map_err(diag)?;
    let text = String::from_utf8_lossy(base.as_deref().unwrap_or_default()).into_owned();
    let included = text.lines().any(|l| {
        let l = l.trim();
        ["#includedir", "@includedir"].iter().any(|p| {
            l.strip_prefix(p)
                .is_some_and(|d| d.trim().trim_end_matches('/') == "/etc/sudoers.d")
        })
    });
    if included {
        return Ok(());
    }
    let add = "\n# Added by ember: read the rules in /etc/sudoers.d.\n#includedir /etc/sudoers.d\n";
    // Appending keeps the file's own mode and owner; a new one gets sudo's 0440.
    root.append_file(SUDOERS, add.as_bytes(), &FileSpec::mode(0o440))
        .map_err(diag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_set_not_repeated() {
        let u = |n: &str, r: &[&str]| (n.to_string(), r.iter().map(|s| s.to_string()).collect());
        let first = render(
            "",
            &[
                u("alice", &["ALL=(ALL) NOPASSWD:ALL"]),
                u("bob", &["ALL=(ALL) ALL", "ALL=(root) /bin/ls"]),
            ],
        );
        assert_eq!(
            first,
            format!("{HEADER}\n# User rules for alice\nalice ALL=(ALL) NOPASSWD:ALL\n\n# User rules for bob\nbob ALL=(ALL) ALL\nbob ALL=(root) /bin/ls\n\n")
        );
        let again = render(
            &first,
            &[u("bob", &["ALL=(ALL) ALL", "ALL=(root) /bin/ls"])],
        );
        assert_eq!(again, first);
        let changed = render(&first, &[u("alice", &["ALL=(ALL) ALL"])]);
        assert!(changed.contains("alice ALL=(ALL) ALL\n") && !changed.contains("NOPASSWD"));
    }
}
