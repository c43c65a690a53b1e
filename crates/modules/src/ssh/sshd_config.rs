//! sshd settings written as cloud-init's `update_ssh_config` does: into
//! /etc/ssh/sshd_config.d/50-cloud-init.conf when sshd_config includes that directory, else
//! into sshd_config itself, every other line kept byte for byte. Only global settings are
//! edited; `Match` blocks are left alone.

use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Root};

pub const SSHD_CONFIG: &str = "/etc/ssh/sshd_config";
pub const DROP_IN: &str = "/etc/ssh/sshd_config.d/50-cloud-init.conf";
/// The Include argument that pulls the drop-ins in, absolute or relative to /etc/ssh.
const INCLUDE_ARGS: [&str; 2] = ["/etc/ssh/sshd_config.d/*.conf", "sshd_config.d/*.conf"];
const MAX_BYTES: u64 = 1024 * 1024;

/// Keyword and arguments of a config line; None for blanks and comments. sshd accepts
/// `Key value` and `Key=value`, keywords in any case.
fn keyword(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return None;
    }
    let end = t
        .find(|c: char| c.is_whitespace() || c == '=')
        .unwrap_or(t.len());
    let rest = t[end..].trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest).trim_start();
    Some((&t[..end], rest))
}

fn is(k: &str, name: &str) -> bool {
    k.eq_ignore_ascii_case(name)
}

/// Whether `main` includes the drop-in directory globally before any line setting one of
/// `keys`. sshd keeps the first value it reads, so a drop-in read after such a line would be
/// ignored. (The issue asks for this check; cloud-init looks for the Include line only.)
pub fn drop_in_first(main: &str, keys: &[&str]) -> bool {
    for (k, rest) in main.lines().filter_map(keyword) {
        if is(k, "Match") {
            return false;
        }
        if is(k, "Include") && rest.split_whitespace().any(|a| INCLUDE_ARGS.contains(&a)) {
            return true;
        }
        if keys.iter().any(|key| is(k, key)) {
            return false;
        }
    }
    false
}

/// `text` with each `(key, value)` set globally: every global line of the key rewritten to
/// `Key value` (as cloud-init does, so none contradicts another), a missing key inserted
/// before the first `Match` (appended after one it would only apply inside that block) or
/// at the end. None when nothing changes.
pub fn set_options(text: &str, updates: &[(&str, &str)]) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut seen = vec![false; updates.len()];
    let mut in_match = false;
    let insert = |out: &mut String, seen: &[bool]| {
        if seen.iter().all(|s| *s) {
            return;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        for ((key, value), _) in updates.iter().zip(seen).filter(|(_, s)| !**s) {
            out.push_str(&format!("{key} {value}\n"));
        }
    };
    for line in text.split_inclusive('\n') {
        let kw = keyword(line);
        if !in_match && kw.is_some_and(|(k, _)| is(k, "Match")) {
            insert(&mut out, &seen);
            seen.fill(true);
            in_match = true;
        }
        let hit = (!in_match)
            .then_some(kw)
            .flatten()
            .and_then(|(k, rest)| Some((updates.iter().position(|(key, _)| is(k, key))?, rest)));
        match hit {
            Some((i, rest)) => {
                seen[i] = true;
                let (key, value) = updates[i];
                if rest == value && line.trim_start().starts_with(key) {
                    out.push_str(line);
                } else {
                    out.push_str(&format!("{key} {value}"));
                    out.push_str(if line.ends_with('\n') { "\n" } else { "" });
                }
            }
            None => out.push_str(line),
        }
    }
    if !in_match {
        insert(&mut out, &seen);
    }
    (out != text).then_some(out)
}

/// `text` with each `(key, value)` line present globally, for a keyword sshd takes many times
/// (`HostCertificate`): a line already there (any case, `=` or blank) is kept, every other
/// line of the key too, and a missing one inserted before the first `Match` or at the end, as
/// cloud-init appends them. None when nothing changes.
pub fn add_lines(text: &str, lines: &[(&str, &str)]) -> Option<String> {
    let mut global = text.split_inclusive('\n').map(keyword);
    let global: Vec<(&str, &str)> = global
        .by_ref()
        .take_while(|kw| !kw.is_some_and(|(k, _)| is(k, "Match")))
        .flatten()
        .collect();
    let present =
        |(key, value): &&(&str, &str)| global.iter().any(|(k, rest)| is(k, key) && rest == value);
    let missing: Vec<&(&str, &str)> = lines.iter().filter(|l| !present(l)).collect();
    if missing.is_empty() {
        return None;
    }
    let new: String = missing.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
    let at = match_start(text).unwrap_or(text.len());
    let (before, after) = text.split_at(at);
    let gap = if before.is_empty() || before.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    Some(format!("{before}{gap}{new}{after}"))
}

/// Byte offset of the first global `Match` line.
fn match_start(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if keyword(line).is_some_and(|(k, _)| is(k, "Match")) {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// The mode a rewritten sshd_config keeps. `Root` offers no stat yet, so this is the
/// distribution's packaged mode (0600 on the Red Hat family, 0644 elsewhere).
/// TODO(integrator): keep the file's actual mode once `Root` can report it.
fn main_mode(distro: &str) -> u32 {
    match distro {
        "fedora" | "rhel" | "centos" | "rocky" | "almalinux" | "ol" | "amzn" => 0o600,
        _ => 0o644,
    }
}

/// Applies `updates` (one value per keyword, `set_options`) and `lines` (`add_lines`) to the
/// target's sshd configuration (see the module doc).
pub fn apply(
    root: &Root,
    distro: &str,
    updates: &[(&str, &str)],
    lines: &[(&str, &str)],
) -> Result<(), Diag> {
    if updates.is_empty() && lines.is_empty() {
        return Ok(());
    }
    let read = |path: &str| {
        root.read_file(path, MAX_BYTES)
            .map(|d| d.map(|d| String::from_utf8_lossy(&d).into_owned()))
            .map_err(|e| Diag::error(Reason::SshdConfig, e.to_string()).file(path.to_string()))
    };
    let keys: Vec<&str> = updates.iter().chain(lines).map(|(k, _)| *k).collect();
    let main = read(SSHD_CONFIG)?;
    let (path, current, mode) = match main {
        Some(main) if drop_in_first(&main, &keys) => (DROP_IN, read(DROP_IN)?, 0o600),
        // Like cloud-init, a missing sshd_config is created (harmless without sshd).
        main => (SSHD_CONFIG, main, main_mode(distro)),
    };
    let current = current.unwrap_or_default();
    let set = set_options(&current, updates);
    let text = set.as_deref().unwrap_or(&current);
    let Some(new) = add_lines(text, lines).or(set) else {
        return Ok(());
    };
    root.write_file(path, new.as_bytes(), &FileSpec::mode(mode))
        .map_err(|e| Diag::error(Reason::SshdConfig, e.to_string()).file(path.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PW: &[(&str, &str)] = &[("PasswordAuthentication", "no")];

    #[test]
    fn include_decides_the_file() {
        let cases = [
            ("Include /etc/ssh/sshd_config.d/*.conf\nPort 22\n", true),
            ("Include sshd_config.d/*.conf\n", true),
            ("#Include /etc/ssh/sshd_config.d/*.conf\n", false),
            (
                "PasswordAuthentication yes\nInclude /etc/ssh/sshd_config.d/*.conf\n",
                false,
            ),
            (
                "passwordauthentication=yes\nInclude /etc/ssh/sshd_config.d/*.conf\n",
                false,
            ),
            (
                "Match User x\nInclude /etc/ssh/sshd_config.d/*.conf\n",
                false,
            ),
            ("Port 22\n", false),
            ("", false),
        ];
        for (text, want) in cases {
            assert_eq!(
                drop_in_first(text, &["PasswordAuthentication"]),
                want,
                "{text}"
            );
        }
    }

    #[test]
    fn settings_are_replaced_inserted_or_left() {
        let cases: [(&str, Option<&str>); 9] = [
            // Replaced in place; comments and other lines untouched.
            (
                "# c\nPort 22\nPasswordAuthentication yes\nUsePAM yes\n",
                Some("# c\nPort 22\nPasswordAuthentication no\nUsePAM yes\n"),
            ),
            ("passwordauthentication=yes", Some("PasswordAuthentication no")),
            // Absent: appended; a file without a final newline gets one first.
            ("Port 22", Some("Port 22\nPasswordAuthentication no\n")),
            ("", Some("PasswordAuthentication no\n")),
            // Commented out is absent.
            (
                "#PasswordAuthentication yes\n",
                Some("#PasswordAuthentication yes\nPasswordAuthentication no\n"),
            ),
            // Before the first Match, whose own setting stays.
            (
                "Port 22\nMatch User a\n  PasswordAuthentication yes\n",
                Some("Port 22\nPasswordAuthentication no\nMatch User a\n  PasswordAuthentication yes\n"),
            ),
            // Already so: unchanged.
            ("PasswordAuthentication no\n", None),
            ("PasswordAuthentication no", None),
            ("Port 22\nPasswordAuthentication no\nMatch all\n", None),
        ];
        for (text, want) in cases {
            let got = set_options(text, PW);
            assert_eq!(got.as_deref(), want, "{text:?}");
            if let Some(got) = got {
                assert_eq!(set_options(&got, PW), None, "idempotent: {text:?}");
            }
        }
    }

    #[test]
    fn several_keys_at_once() {
        let updates = [("PasswordAuthentication", "yes"), ("Port", "2222")];
        let got = set_options("PasswordAuthentication no\n", &updates).unwrap();
        assert_eq!(got, "PasswordAuthentication yes\nPort 2222\n");
    }

    /// Every certificate gets its own `HostCertificate` line, as cloud-init appends one per
    /// `<type>_certificate`; lines already there (of other certificates too) stay.
    #[test]
    fn host_certificates_are_lines_added_once() {
        let rsa = ("HostCertificate", "/etc/ssh/ssh_host_rsa_key-cert.pub");
        let ed = ("HostCertificate", "/etc/ssh/ssh_host_ed25519_key-cert.pub");
        let cases: [(&str, Option<&str>); 5] = [
            (
                "",
                Some("HostCertificate /etc/ssh/ssh_host_rsa_key-cert.pub\nHostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\n"),
            ),
            (
                "Port 22\nhostcertificate=/etc/ssh/ssh_host_rsa_key-cert.pub",
                Some("Port 22\nhostcertificate=/etc/ssh/ssh_host_rsa_key-cert.pub\nHostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\n"),
            ),
            (
                "HostCertificate /other\nMatch User a\n  X y\n",
                Some("HostCertificate /other\nHostCertificate /etc/ssh/ssh_host_rsa_key-cert.pub\nHostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\nMatch User a\n  X y\n"),
            ),
            (
                "HostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\nHostCertificate /etc/ssh/ssh_host_rsa_key-cert.pub\n",
                None,
            ),
            // Inside a Match block it applies to that block only: added globally.
            (
                "Match all\nHostCertificate /etc/ssh/ssh_host_rsa_key-cert.pub\nHostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\n",
                Some("HostCertificate /etc/ssh/ssh_host_rsa_key-cert.pub\nHostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\nMatch all\nHostCertificate /etc/ssh/ssh_host_rsa_key-cert.pub\nHostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\n"),
            ),
        ];
        for (text, want) in cases {
            let got = add_lines(text, &[rsa, ed]);
            assert_eq!(got.as_deref(), want, "{text:?}");
            if let Some(got) = got {
                assert_eq!(add_lines(&got, &[rsa, ed]), None, "idempotent: {text:?}");
            }
        }
    }
}
