//! The console blocks of cloud-init's `write-ssh-key-fingerprints` helper: the host keys'
//! fingerprints (as `ssh-keygen -l` prints them) and the public keys themselves, between the
//! `-----BEGIN SSH HOST KEY …-----` markers that tools read from serial logs. The helper pipes
//! them through `logger -t ec2 --stderr`, so each line carries that header
//! (`<14>Feb  7 10:42:15 ec2: `) on the console; so do ember's.

use super::settings::Console;
use crate::ssh::openssh_format::{fingerprint_line, parse_public_line};

const BAR: &str = "#############################################################";

/// The lines for the public host key files `(file name, content)` given (in glob order), each
/// behind `header`. A type in a blacklist (the file's first word) is left out of that block; a
/// block left with no key at all is not printed, markers included, as the helper does.
pub fn render(pubs: &[(String, String)], console: &Console, header: &str) -> Vec<String> {
    let key_type = |text: &str| text.split_whitespace().next().unwrap_or("").to_string();
    let listed = |text: &str, list: &[String]| list.iter().any(|t| *t == key_type(text));
    let fingerprinted: Vec<&String> = pubs
        .iter()
        .map(|(_, t)| t)
        .filter(|t| !listed(t, &console.fp_blacklist))
        .collect();
    let shown: Vec<&String> = pubs
        .iter()
        .map(|(_, t)| t)
        .filter(|t| !listed(t, &console.key_blacklist))
        .collect();
    let mut out = Vec::new();
    if !fingerprinted.is_empty() {
        out.extend([
            BAR.to_string(),
            "-----BEGIN SSH HOST KEY FINGERPRINTS-----".into(),
        ]);
        for text in fingerprinted {
            let line = text.lines().next().unwrap_or("").trim();
            let comment = line.splitn(3, char::is_whitespace).nth(2).unwrap_or("");
            let fp = parse_public_line(line).and_then(|b| fingerprint_line(&b, comment.trim()));
            out.extend(fp);
        }
        out.extend([
            "-----END SSH HOST KEY FINGERPRINTS-----".into(),
            BAR.to_string(),
        ]);
    }
    if !shown.is_empty() {
        out.push("-----BEGIN SSH HOST KEY KEYS-----".into());
        out.extend(shown.iter().flat_map(|t| t.lines().map(str::to_string)));
        out.push("-----END SSH HOST KEY KEYS-----".into());
    }
    if !out.is_empty() {
        // A blank line first, so the blocks start on a line of their own on the console.
        out.insert(0, String::new());
    }
    out.into_iter().map(|l| format!("{header}{l}")).collect()
}

/// logger's RFC 3164 header for user.info and tag `ec2` at `now` (cloud-init's
/// `last_update` form, `Wed, 21 Feb 2024 21:27:24 +0000`): `<14>Feb 21 21:27:24 ec2: `.
pub fn header(now: &str) -> String {
    let words: Vec<&str> = now.split_whitespace().collect();
    match words[..] {
        [_, day, month, _, time, _] => {
            let day = day.trim_start_matches('0');
            format!("<14>{month} {day:>2} {time} ec2: ")
        }
        _ => "ec2: ".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ED: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm a@b";

    #[test]
    fn blocks_with_blacklists() {
        let pubs = vec![
            ("ssh_host_ed25519_key.pub".to_string(), format!("{ED}\n")),
            ("ssh_host_x_key.pub".to_string(), "not a key\n".to_string()),
        ];
        let console = Console {
            emit: true,
            fp_blacklist: Vec::new(),
            key_blacklist: vec!["ssh-ed25519".to_string()],
        };
        assert_eq!(
            render(&pubs, &console, "ec2: "),
            [
                "ec2: ",
                &format!("ec2: {BAR}"),
                "ec2: -----BEGIN SSH HOST KEY FINGERPRINTS-----",
                "ec2: 256 SHA256:CPbIAhCDnzgQJJNup6YpVUvpwEPhk43z5Ob2aITTatY a@b (ED25519)",
                "ec2: -----END SSH HOST KEY FINGERPRINTS-----",
                &format!("ec2: {BAR}"),
                "ec2: -----BEGIN SSH HOST KEY KEYS-----",
                "ec2: not a key",
                "ec2: -----END SSH HOST KEY KEYS-----",
            ]
        );
        let fp_off = Console {
            emit: true,
            fp_blacklist: vec!["ssh-ed25519".to_string()],
            key_blacklist: Vec::new(),
        };
        let lines = render(&pubs[..1], &fp_off, "");
        assert!(!lines.iter().any(|l| l.contains("SHA256")));
        // Every key's fingerprint left out: no fingerprint block, not even its markers.
        assert!(!lines.iter().any(|l| l.contains("FINGERPRINTS") || l == BAR));
        assert!(lines.contains(&ED.to_string()));
        let all_off = Console {
            emit: true,
            fp_blacklist: vec!["ssh-ed25519".to_string()],
            key_blacklist: vec!["ssh-ed25519".to_string()],
        };
        assert!(render(&pubs[..1], &all_off, "").is_empty());
    }

    #[test]
    fn logger_header() {
        assert_eq!(
            header("Wed, 21 Feb 2024 21:27:24 +0000"),
            "<14>Feb 21 21:27:24 ec2: "
        );
        assert_eq!(
            header("Thu, 01 Jan 1970 00:00:00 +0000"),
            "<14>Jan  1 00:00:00 ec2: "
        );
    }
}
