//! Read-only lookups in the target's own /etc/passwd and /etc/group: names to ids and homes,
//! for modules that set owners (write_files, ssh). Editing those files is `users`' job.

use crate::root::{Owner, Root};

const MAX_DB_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub home: String,
    pub shell: String,
}

#[derive(Clone, Debug, Default)]
pub struct Accounts {
    users: Vec<Account>,
    /// (name, gid)
    groups: Vec<(String, u32)>,
}

fn read_lines(root: &Root, path: &str) -> Vec<String> {
    let data = root
        .read_file(path, MAX_DB_BYTES)
        .ok()
        .flatten()
        .unwrap_or_default();
    String::from_utf8_lossy(&data)
        .lines()
        .map(str::to_string)
        .collect()
}

impl Accounts {
    /// Reads the target's databases as they are now (call again after `users` changed them).
    pub fn load(root: &Root) -> Accounts {
        let users = read_lines(root, "/etc/passwd")
            .iter()
            .filter_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                if f.len() < 7 {
                    return None;
                }
                Some(Account {
                    name: f[0].to_string(),
                    uid: f[2].parse().ok()?,
                    gid: f[3].parse().ok()?,
                    home: f[5].to_string(),
                    shell: f[6].to_string(),
                })
            })
            .collect();
        let groups = read_lines(root, "/etc/group")
            .iter()
            .filter_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                Some((f.first()?.to_string(), f.get(2)?.parse().ok()?))
            })
            .collect();
        Accounts { users, groups }
    }

    pub fn user(&self, name: &str) -> Option<&Account> {
        self.users.iter().find(|u| u.name == name)
    }

    pub fn group_gid(&self, name: &str) -> Option<u32> {
        self.groups
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, gid)| *gid)
    }

    /// `user`, `user:group` or `uid:gid` (cloud-init's `owner` form) to ids. A user alone
    /// takes its primary group. Err names what was not found.
    pub fn resolve_owner(&self, spec: &str) -> Result<Owner, String> {
        let (user, group) = spec
            .split_once(':')
            .map_or((spec, None), |(u, g)| (u, Some(g)));
        let uid_gid = match user.parse::<u32>() {
            Ok(uid) => (uid, uid),
            Err(_) => {
                let acct = self
                    .user(user)
                    .ok_or_else(|| format!("no user {user:?} in the target"))?;
                (acct.uid, acct.gid)
            }
        };
        let gid = match group {
            None | Some("") => uid_gid.1,
            Some(g) => match g.parse::<u32>() {
                Ok(gid) => gid,
                Err(_) => self
                    .group_gid(g)
                    .ok_or_else(|| format!("no group {g:?} in the target"))?,
            },
        };
        Ok(Owner {
            uid: uid_gid.0,
            gid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::FileSpec;

    #[test]
    fn owners_resolve_against_the_target() {
        let dir = std::env::temp_dir().join(format!("ember-accounts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = Root::open(&dir).unwrap();
        let spec = FileSpec::mode(0o644);
        root.write_file(
            "/etc/passwd",
            b"root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1001::/home/alice:/bin/sh\nbroken\n",
            &spec,
        )
        .unwrap();
        root.write_file(
            "/etc/group",
            b"root:x:0:\nalice:x:1001:\nadm:x:4:alice\n",
            &spec,
        )
        .unwrap();
        let acc = Accounts::load(&root);
        assert_eq!(acc.user("alice").unwrap().home, "/home/alice");
        let cases = [
            ("alice", Ok((1000, 1001))),
            ("alice:adm", Ok((1000, 4))),
            ("root:root", Ok((0, 0))),
            ("1000:4", Ok((1000, 4))),
            ("nobody", Err(())),
            ("alice:nogroup", Err(())),
        ];
        for (owner, want) in cases {
            let got = acc
                .resolve_owner(owner)
                .map(|o| (o.uid, o.gid))
                .map_err(|_| ());
            assert_eq!(got, want, "{owner}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
