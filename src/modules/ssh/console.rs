//! Host key fingerprints and keys on the console, in the blocks cloud-init's keys_to_console
//! prints (`-----BEGIN SSH HOST KEY FINGERPRINTS-----`), which tools read from serial logs.
//! Honours `ssh.emit_keys_to_console`, `ssh_fp_console_blacklist` and
//! `ssh_key_console_blacklist` (key type names such as `ssh-dss`).

use super::openssh_format::{fingerprint_line, key_type_of, parse_public_line};
use super::Console;
use crate::modules::ModuleCtx;

const BAR: &str = "#############################################################";

/// The console lines for the public host keys `(file content)` given, in file name order.
pub fn render(pubs: &[String], console: &Console) -> Vec<String> {
    let (fp_skip, key_skip) = (&console.fp_blacklist, &console.key_blacklist);
    let keys: Vec<(Vec<u8>, String, &str)> = pubs
        .iter()
        .filter_map(|text| {
            let line = text.lines().next()?.trim();
            let blob = parse_public_line(line)?;
            let comment = line
                .splitn(3, char::is_whitespace)
                .nth(2)
                .unwrap_or("")
                .trim();
            Some((blob, comment.to_string(), line))
        })
        .collect();
    let skipped =
        |blob: &[u8], skip: &[String]| skip.iter().any(|s| Some(s.as_str()) == key_type_of(blob));
    let mut out = vec![
        BAR.to_string(),
        "-----BEGIN SSH HOST KEY FINGERPRINTS-----".into(),
    ];
    out.extend(
        keys.iter()
            .filter(|(b, _, _)| !skipped(b, fp_skip))
            .filter_map(|(b, c, _)| fingerprint_line(b, c)),
    );
    out.extend([
        "-----END SSH HOST KEY FINGERPRINTS-----".into(),
        BAR.to_string(),
        "-----BEGIN SSH HOST KEY KEYS-----".into(),
    ]);
    out.extend(
        keys.iter()
            .filter(|(b, _, _)| !skipped(b, key_skip))
            .map(|(_, _, l)| l.to_string()),
    );
    out.push("-----END SSH HOST KEY KEYS-----".into());
    out
}

/// Prints the blocks for `/etc/ssh/ssh_host_*key.pub`.
pub fn print(ctx: &ModuleCtx, console: &Console) {
    if !console.emit {
        return;
    }
    let names = ctx.root.list_dir("/etc/ssh").unwrap_or_default();
    let pubs: Vec<String> = names
        .iter()
        .filter(|n| n.starts_with("ssh_host_") && n.ends_with("key.pub"))
        .filter_map(|n| {
            ctx.root
                .read_file(&format!("/etc/ssh/{n}"), 64 * 1024)
                .ok()?
        })
        .map(|d| String::from_utf8_lossy(&d).into_owned())
        .collect();
    if pubs.is_empty() {
        return;
    }
    for line in render(&pubs, console) {
        (ctx.console)(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_with_blacklists() {
        let pubs = vec![
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGGz8hJq8Kg/9nDo9VhbCwpCIe/jNL9J3uuhMhUSSzGm a@b\n".to_string(),
            "not a key\n".to_string(),
        ];
        let console = Console {
            emit: true,
            fp_blacklist: Vec::new(),
            key_blacklist: vec!["ssh-ed25519".to_string()],
        };
        assert_eq!(
            render(&pubs, &console),
            [
                BAR,
                "-----BEGIN SSH HOST KEY FINGERPRINTS-----",
                "256 SHA256:CPbIAhCDnzgQJJNup6YpVUvpwEPhk43z5Ob2aITTatY a@b (ED25519)",
                "-----END SSH HOST KEY FINGERPRINTS-----",
                BAR,
                "-----BEGIN SSH HOST KEY KEYS-----",
                "-----END SSH HOST KEY KEYS-----",
            ]
        );
    }
}
