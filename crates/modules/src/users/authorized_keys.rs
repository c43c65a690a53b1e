//! authorized_keys files: lines parsed into options and key, merged without duplicates, and
//! written into a user's home with the right modes and owner. Shared by `users` (per-user
//! keys from user-data) and `ssh` (the default user's and root's keys from meta-data).

use crate::common::accounts::Account;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{trusted_len, FileSpec, Owner, Root, RootError};

const MAX_BYTES: u64 = 1024 * 1024;

/// The options field of an authorized_keys line and the rest (`type base64 comment`).
/// None for blanks and comments.
fn split_options(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return None;
    }
    let first = t.split_whitespace().next()?;
    let is_type = first.starts_with("ssh-")
        || first.starts_with("ecdsa-sha2-")
        || first.starts_with("sk-")
        || ["rsa", "dsa", "ecdsa", "ed25519"].contains(&first);
    if is_type {
        return Some(("", t));
    }
    // Options end at the first blank outside double quotes (`\"` does not close one).
    let (mut quoted, mut escaped) = (false, false);
    for (i, c) in t.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => return Some((&t[..i], t[i..].trim_start())),
            _ => {}
        }
    }
    None
}

/// The base64 field, which identifies a key whatever its options and comment.
fn key_id(line: &str) -> Option<&str> {
    split_options(line)?.1.split_whitespace().nth(1)
}

/// `key` with its options replaced by `options` (cloud-init's behaviour); unchanged when
/// `options` is empty.
pub fn with_options(key: &str, options: &str) -> String {
    match split_options(key) {
        Some((_, rest)) if !options.is_empty() => format!("{options} {rest}"),
        _ => key.trim().to_string(),
    }
}

/// `existing` with `lines` in: a line whose key is already there replaces that line (so its
/// options follow the config), the others are appended. None when nothing changes.
pub fn merge(existing: &str, lines: &[String]) -> Option<String> {
    let mut out: Vec<String> = existing.lines().map(str::to_string).collect();
    for new in lines {
        let id = key_id(new);
        let mut found = false;
        for old in out.iter_mut() {
            if id.is_some() && key_id(old) == id {
                old.clone_from(new);
                found = true;
            }
        }
        if !found && !out.contains(new) {
            out.push(new.clone());
        }
    }
    let mut text = out.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    (text != existing).then_some(text)
}

/// Adds `lines` to the user's keys file (`~/.ssh/authorized_keys`, or where the target's
/// sshd_config `AuthorizedKeysFile` puts it, as cloud-init reads it), without duplicates. The
/// file is 0600 and the user's; directories made under the home are 0700 and the user's,
/// those made elsewhere (`/etc/ssh/keys/%u`) 0755 and root's, as cloud-init makes them. The
/// home and everything below it are the user's (`Root::user_dir`, RELIABILITY rule 13): a
/// link at the home, a directory on the way or the file, a home or directory owned by
/// another user, or a link in a directory others can write above the home is refused, and
/// the file is read, replaced and given away only through descriptors. Links above the home
/// in root's own directories (`/home -> /var/home`) are the image's layout and stay allowed,
/// as does all of root's own home (`/root -> var/roothome` on ostree images).
pub fn add_keys(root: &Root, account: &Account, lines: &[String]) -> Result<(), Diag> {
    if lines.is_empty() {
        return Ok(());
    }
    let home = account.home.trim_end_matches('/');
    // A home that does not exist is made on the way, as cloud-init's ensure_dir does; only
    // what lies below it is given to the user.
    if !home.starts_with('/') {
        return Err(Diag::error(
            Reason::SshHomeInvalid,
            format!("home directory of {} is not an absolute path", account.name),
        ));
    }
    let fail = |e: RootError| {
        if e.is_link() {
            let msg = format!("{e}: the keys of {} are not written", account.name);
            Diag::error(Reason::SshAuthkeysLink, msg)
        } else {
            Diag::error(Reason::SshAuthkeys, e.to_string())
        }
    };
    let owner = Owner {
        uid: account.uid,
        gid: account.gid,
    };
    let sshd = root.read_file(SSHD_CONFIG, MAX_BYTES).ok().flatten();
    let setting = sshd.and_then(|d| keys_file_setting(&String::from_utf8_lossy(&d)));
    let path = keys_file(setting.as_deref(), home, &account.name);
    let Some((dir_path, name)) = path.rsplit_once('/').filter(|(_, n)| !n.is_empty()) else {
        let msg = format!("AuthorizedKeysFile gives {} no file name", account.name);
        return Err(Diag::error(Reason::SshAuthkeys, msg));
    };
    let in_home = path.starts_with(&format!("{home}/"));
    let made = match in_home {
        true => FileSpec::mode(0o700).with_owner(owner),
        false => FileSpec::DIR,
    };
    let trusted = trusted_len(dir_path, home, account.uid);
    // What lies above the home is made root's 0755 (it may serve many users), the home and
    // below it the user's 0700, as cloud-init's check_create_path makes them.
    let above_home = home.rsplit_once('/').map_or("", |(parent, _)| parent);
    if in_home && !above_home.is_empty() {
        root.user_dir(above_home, trusted, account.uid, Some(&FileSpec::DIR))
            .map_err(fail)?;
    }
    let dir = root
        .user_dir_made(dir_path, trusted, account.uid, &made)
        .map_err(fail)?
        .ok_or_else(|| Diag::error(Reason::SshAuthkeys, format!("{dir_path} could not be made")))?;
    let existing = dir.read_file(name, MAX_BYTES).map_err(fail)?;
    let existing = String::from_utf8_lossy(existing.as_deref().unwrap_or_default());
    match merge(&existing, lines) {
        Some(text) => dir
            .write_file(
                name,
                text.as_bytes(),
                &FileSpec::mode(0o600).with_owner(owner),
            )
            .map_err(fail),
        None => Ok(()),
    }
}

/// Where `AuthorizedKeysFile` is read from.
const SSHD_CONFIG: &str = "/etc/ssh/sshd_config";

/// `AuthorizedKeysFile` of an sshd_config: the last one, as cloud-init's map keeps it.
pub fn keys_file_setting(sshd_config: &str) -> Option<String> {
    let mut found = None;
    for line in sshd_config.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = match line.split_once(char::is_whitespace) {
            Some((k, v)) => (k, v.trim()),
            None => match line.split_once('=') {
                Some((k, v)) => (k, v),
                None => continue,
            },
        };
        if key.eq_ignore_ascii_case("authorizedkeysfile") {
            found = Some(value.to_string());
        }
    }
    found
}

/// The file cloud-init reads for `user` with home `home`, given `AuthorizedKeysFile`.
pub fn keys_file(setting: Option<&str>, home: &str, user: &str) -> String {
    let default = format!("{}/.ssh/authorized_keys", home.trim_end_matches('/'));
    let value = setting
        .filter(|s| !s.is_empty())
        .unwrap_or("%h/.ssh/authorized_keys");
    for raw in value.split_whitespace() {
        let mut path = raw
            .replace("%h", home)
            .replace("%u", user)
            .replace("%%", "%");
        if !path.starts_with('/') {
            path = format!("{}/{path}", home.trim_end_matches('/'));
        }
        let own = raw.contains("%u") || raw.contains("%h");
        if own || path.starts_with(&format!("{}/", home.trim_end_matches('/'))) {
            return path;
        }
    }
    default
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_split_and_replaced() {
        let cases = [
            ("ssh-ed25519 AAAA c", "P ssh-ed25519 AAAA c"),
            ("no-pty ssh-rsa BBBB x y", "P ssh-rsa BBBB x y"),
            (
                r#"command="echo \"a b\"",no-pty ssh-rsa CCCC"#,
                "P ssh-rsa CCCC",
            ),
        ];
        for (key, want) in cases {
            assert_eq!(with_options(key, "P"), want);
            assert_eq!(with_options(key, ""), key);
        }
        assert_eq!(key_id(r#"command="x y" ssh-rsa CCCC c"#), Some("CCCC"));
        assert_eq!(key_id("# ssh-rsa CCCC"), None);
    }

    #[test]
    fn merge_replaces_by_key_and_appends_once() {
        let new = vec![
            "opt ssh-ed25519 AAAA new".to_string(),
            "ssh-rsa BBBB b".to_string(),
        ];
        let got = merge("# mine\nssh-ed25519 AAAA old\nssh-rsa ZZZZ z\n", &new).unwrap();
        assert_eq!(
            got,
            "# mine\nopt ssh-ed25519 AAAA new\nssh-rsa ZZZZ z\nssh-rsa BBBB b\n"
        );
        assert_eq!(merge(&got, &new), None);
        assert_eq!(
            merge("", &new).unwrap(),
            "opt ssh-ed25519 AAAA new\nssh-rsa BBBB b\n"
        );
    }

    #[test]
    fn the_file_cloud_init_reads() {
        let cfg = "Port 22\nAuthorizedKeysFile .ssh/authorized_keys .ssh/authorized_keys2\n";
        assert_eq!(
            keys_file_setting(cfg).as_deref(),
            Some(".ssh/authorized_keys .ssh/authorized_keys2")
        );
        assert_eq!(
            keys_file(keys_file_setting(cfg).as_deref(), "/home/a", "a"),
            "/home/a/.ssh/authorized_keys"
        );
        let shared = Some("/etc/ssh/keys/%u /etc/ssh/all_keys");
        assert_eq!(keys_file(shared, "/home/a", "a"), "/etc/ssh/keys/a");
        let global = Some("/etc/ssh/all_keys");
        assert_eq!(
            keys_file(global, "/home/a", "a"),
            "/home/a/.ssh/authorized_keys"
        );
        assert_eq!(
            keys_file(None, "/root", "root"),
            "/root/.ssh/authorized_keys"
        );
        assert_eq!(
            keys_file_setting("AuthorizedKeysFile=x\nauthorizedkeysfile y\n").as_deref(),
            Some("y")
        );
    }
}
