//! A user's authorized_keys as cloud-init's `ssh_util` finds and parses it: the file is the
//! first user-specific `AuthorizedKeysFile` of `/etc/ssh/sshd_config` (`%h`, `%u`, or under the
//! home), else `~/.ssh/authorized_keys`; each line is parsed as OpenSSH's `user_key_allowed2`
//! does (options, key type, base64, comment). cloud-init also creates a missing file there and
//! checks its permissions; this only reads.

/// The key types cloud-init's `ssh_util.VALID_KEY_TYPES` accepts.
const VALID_KEY_TYPES: &[&str] = &[
    "dsa",
    "rsa",
    "ecdsa",
    "ed25519",
    "ecdsa-sha2-nistp256-cert-v01@openssh.com",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384-cert-v01@openssh.com",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521-cert-v01@openssh.com",
    "ecdsa-sha2-nistp521",
    "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "sk-ssh-ed25519-cert-v01@openssh.com",
    "sk-ssh-ed25519@openssh.com",
    "ssh-dss-cert-v01@openssh.com",
    "ssh-dss",
    "ssh-ed25519-cert-v01@openssh.com",
    "ssh-ed25519",
    "ssh-rsa-cert-v01@openssh.com",
    "ssh-rsa",
    "ssh-xmss-cert-v01@openssh.com",
    "ssh-xmss@openssh.com",
];

/// One line of an authorized_keys file; a comment, blank or unparsable line has no key type.
#[derive(Debug, Default, PartialEq)]
pub struct Entry {
    pub key_type: String,
    pub base64: String,
    pub comment: String,
    pub options: String,
}

impl Entry {
    /// cloud-init prints only entries of a known key type.
    pub fn printable(&self) -> bool {
        let t = self.key_type.trim().to_ascii_lowercase();
        VALID_KEY_TYPES.contains(&t.as_str())
    }
}

/// `type base64 [comment]` with a known type.
fn key_fields(ent: &str) -> Option<Entry> {
    let mut it = ent.splitn(2, char::is_whitespace);
    let key_type = it.next()?;
    let rest = it.next()?.trim_start();
    let mut it = rest.splitn(2, char::is_whitespace);
    let base64 = it.next().filter(|b| !b.is_empty())?;
    let comment = it.next().map(str::trim_start).unwrap_or("");
    VALID_KEY_TYPES.contains(&key_type).then(|| Entry {
        key_type: key_type.into(),
        base64: base64.into(),
        comment: comment.into(),
        options: String::new(),
    })
}

/// The options before the key: up to the first blank outside double quotes (`\"` escapes).
fn split_options(ent: &str) -> (&str, &str) {
    let b = ent.as_bytes();
    let (mut quoted, mut i) = (false, 0);
    while i < b.len() && (quoted || (b[i] != b' ' && b[i] != b'\t')) {
        if i + 1 >= b.len() {
            i += 1;
            break;
        }
        if b[i] == b'\\' && b[i + 1] == b'"' {
            i += 1;
        } else if b[i] == b'"' {
            quoted = !quoted;
        }
        i += 1;
    }
    let i = i.min(b.len());
    (&ent[..i], ent[i..].trim_start())
}

/// One line, as cloud-init's `AuthKeyLineParser` reads it.
pub fn parse(line: &str) -> Entry {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.starts_with('#') || line.trim().is_empty() {
        return Entry::default();
    }
    let ent = line.trim();
    if let Some(e) = key_fields(ent) {
        return e;
    }
    let (options, rest) = split_options(ent);
    match key_fields(rest) {
        Some(e) => Entry {
            options: options.to_string(),
            ..e
        },
        None => Entry::default(),
    }
}

/// Where a user's keys live: shared with the users and ssh modules, which write them there.
pub use crate::users::authorized_keys::{keys_file, keys_file_setting};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_as_cloud_init_parses_them() {
        let e = parse("ssh-ed25519 AAAAC3Nz a comment  here\n");
        assert_eq!(
            (
                e.key_type.as_str(),
                e.base64.as_str(),
                e.comment.as_str(),
                e.options.as_str()
            ),
            ("ssh-ed25519", "AAAAC3Nz", "a comment  here", "")
        );
        let e = parse(r#"no-pty,command="echo \"hi there\"" ssh-rsa AAAAB3 me@x"#);
        assert_eq!(e.options, r#"no-pty,command="echo \"hi there\"""#);
        assert_eq!(
            (e.key_type.as_str(), e.comment.as_str()),
            ("ssh-rsa", "me@x")
        );
        assert_eq!(parse("ssh-rsa AAAAB3").comment, "");
        for not_a_key in [
            "# comment",
            "",
            "   ",
            "ssh-foo AAAA",
            "ssh-rsa",
            "x y ssh-nope Z",
        ] {
            assert!(!parse(not_a_key).printable(), "{not_a_key:?}");
        }
    }
}
