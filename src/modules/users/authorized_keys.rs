//! Appending public keys to a user's ~/.ssh/authorized_keys without duplicates: the one
//! function `users` (per-user keys from user-data) and `ssh` (the default user's keys from
//! meta-data) share. The directory is 0700 and the file 0600, both owned by the user.

use crate::error::Diag;
use crate::modules::accounts::Account;
use crate::root::{FileSpec, Owner, Root, RootError};

const MAX: u64 = 4 * 1024 * 1024;

fn diag(e: RootError) -> Diag {
    Diag::error(e.code(), e.to_string())
}

/// The file's text with each key of `keys` not already in it appended, one per line.
/// Keys compare by their trimmed line; blank and comment lines are not keys.
pub fn merge(existing: &str, keys: &[String]) -> String {
    let mut out = existing.to_string();
    let mut have: Vec<String> = existing.lines().map(|l| l.trim().to_string()).collect();
    for key in keys.iter().flat_map(|k| k.lines()).map(str::trim) {
        if key.is_empty() || key.starts_with('#') || have.iter().any(|h| h == key) {
            continue;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(key);
        out.push('\n');
        have.push(key.to_string());
    }
    out
}

/// Adds `keys` to `account`'s `~/.ssh/authorized_keys`; writes nothing when all are there.
pub fn add_keys(root: &Root, account: &Account, keys: &[String]) -> Result<(), Diag> {
    if keys.is_empty() {
        return Ok(());
    }
    if !account.home.starts_with('/') || account.home == "/" {
        return Err(Diag::error(
            "no-home",
            "the user's home is not a directory keys can go in",
        ));
    }
    let owner = Owner {
        uid: account.uid,
        gid: account.gid,
    };
    let dir = format!("{}/.ssh", account.home.trim_end_matches('/'));
    let path = format!("{dir}/authorized_keys");
    let existing = root
        .read_file(&path, MAX)
        .map_err(diag)?
        .unwrap_or_default();
    let existing = String::from_utf8_lossy(&existing);
    let text = merge(&existing, keys);
    root.create_dir_all(&dir, &FileSpec::mode(0o700).with_owner(owner))
        .map_err(diag)?;
    if text != existing {
        root.write_file(
            &path,
            text.as_bytes(),
            &FileSpec::mode(0o600).with_owner(owner),
        )
        .map_err(diag)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_duplicates_and_order_kept() {
        let k = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            merge("", &k(&["ssh-ed25519 A a", "ssh-ed25519 A a"])),
            "ssh-ed25519 A a\n"
        );
        assert_eq!(
            merge(
                "# mine\nssh-rsa B b",
                &k(&["ssh-rsa B b", " ssh-ed25519 C c "])
            ),
            "# mine\nssh-rsa B b\nssh-ed25519 C c\n"
        );
        assert_eq!(merge("x\n", &k(&["", "# c"])), "x\n");
    }
}
