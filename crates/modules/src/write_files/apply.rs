//! Writing one decoded `write_files` item into a root, shared by the local stage and the
//! runner (which applies the deferred items from [`DEFERRED_PATH`] once users exist).

use crate::common::accounts::Accounts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Owner, Root};
use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// Where the local stage leaves `defer: true` items for the runner, in the target (0600: the
/// content may be secret). A JSON list of [`DecodedFile`].
pub const DEFERRED_PATH: &str = "/var/lib/ember/deferred/write_files.json";

/// cloud-init's default owner (`distro.default_owner`).
pub const DEFAULT_OWNER: &str = "root:root";

/// One item, content already fetched and decoded. Serialized as
/// `{path, content_b64, permissions, owner, append}`; `Debug` leaves the content out.
/// Plain content is borrowed from the config it was given in (a large file is not held twice);
/// content read back from the deferred list is owned.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodedFile<'a> {
    pub path: String,
    #[serde(rename = "content_b64", with = "b64")]
    pub content: Cow<'a, [u8]>,
    /// Mode bits (with setuid/setgid/sticky), not yet masked by any umask.
    pub permissions: u32,
    /// `user`, `user:group` or `uid:gid`, resolved in the target when applied.
    pub owner: String,
    pub append: bool,
}

impl std::fmt::Debug for DecodedFile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecodedFile")
            .field("path", &self.path)
            .field("content", &format_args!("<{} bytes>", self.content.len()))
            .field("permissions", &format_args!("{:o}", self.permissions))
            .field("owner", &self.owner)
            .field("append", &self.append)
            .finish()
    }
}

mod b64 {
    use super::*;
    const ENGINE: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
    pub fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&ENGINE.encode(data))
    }
    pub fn deserialize<'de, 'a, D: Deserializer<'de>>(d: D) -> Result<Cow<'a, [u8]>, D::Error> {
        let text = String::deserialize(d)?;
        let bytes = ENGINE.decode(text).map_err(serde::de::Error::custom)?;
        Ok(Cow::Owned(bytes))
    }
}

/// `owner` to ids in the target. `root` is uid/gid 0 even in an image without /etc/passwd.
/// The Diag names what is missing (user or group), not the name itself (rule 3).
pub fn resolve_owner(accounts: &Accounts, spec: &str) -> Result<Owner, Diag> {
    let root_id =
        |name: &str, known: bool| if name == "root" && !known { "0" } else { name }.to_string();
    let spec = match spec.split_once(':') {
        Some((u, g)) => format!(
            "{}:{}",
            root_id(u, accounts.user(u).is_some()),
            root_id(g, accounts.group_gid(g).is_some())
        ),
        None => root_id(spec, accounts.user(spec).is_some()),
    };
    accounts.resolve_owner(&spec).map_err(|why| {
        let what = if why.starts_with("no group") {
            "group"
        } else {
            "user"
        };
        Diag::error(
            Reason::OwnerUnknown,
            format!("the {what} named in owner does not exist in the target; file not written"),
        )
        .key("owner")
    })
}

/// Writes `file` (or appends to it) with its mode and owner. An existing file is replaced
/// atomically, so applying twice gives the same file; an appended-to file that exists keeps
/// its mode and owner (cloud-init re-applies both; `Root::append_file` does not change them).
/// The Diag's key, when set, is the field of the item (`owner`, `path`): callers prefix it.
pub fn apply(root: &Root, file: &DecodedFile, accounts: &Accounts) -> Result<(), Diag> {
    let owner = resolve_owner(accounts, &file.owner)?;
    let spec = FileSpec::mode(file.permissions).with_owner(owner);
    // Paths may lead through homes and /tmp: no link there is followed (RELIABILITY rule 13).
    let written = root.write_user_file(&file.path, &file.content, &spec, file.append);
    written.map_err(|e| Diag::error(e.code(), e.to_string()).key("path"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accounts(dir: &std::path::Path, with_db: bool) -> (Root, Accounts) {
        std::fs::create_dir_all(dir).unwrap();
        let root = Root::open(dir).unwrap();
        if with_db {
            let spec = FileSpec::mode(0o644);
            let passwd = b"root:x:0:0::/root:/bin/sh\nweb:x:33:33::/var/www:/bin/sh\n";
            root.write_file("/etc/passwd", passwd, &spec).unwrap();
            root.write_file("/etc/group", b"root:x:0:\nweb:x:33:\nadm:x:4:\n", &spec)
                .unwrap();
        }
        let acc = Accounts::load(&root);
        (root, acc)
    }

    #[test]
    fn owner_resolution() {
        let base = std::env::temp_dir().join(format!("ember-wf-owner-{}", std::process::id()));
        let (_, acc) = accounts(&base.join("full"), true);
        let (_, bare) = accounts(&base.join("bare"), false);
        let ids = |a: &Accounts, s: &str| resolve_owner(a, s).map(|o| (o.uid, o.gid));
        assert_eq!(ids(&acc, "root:root").unwrap(), (0, 0));
        assert_eq!(ids(&acc, "web:adm").unwrap(), (33, 4));
        assert_eq!(ids(&acc, "web").unwrap(), (33, 33));
        assert_eq!(ids(&acc, "1000:1000").unwrap(), (1000, 1000));
        // An image without passwd or group still has root.
        assert_eq!(ids(&bare, "root:root").unwrap(), (0, 0));
        assert_eq!(ids(&bare, "root").unwrap(), (0, 0));
        for (spec, what) in [
            ("ghost", "user"),
            ("web:ghosts", "group"),
            ("ghost:root", "user"),
        ] {
            let d = resolve_owner(&acc, spec).unwrap_err();
            assert_eq!(
                (d.code.as_str(), d.key.as_deref()),
                ("owner-unknown", Some("owner"))
            );
            assert!(
                d.message.contains(what) && !d.message.contains("ghost"),
                "{d}"
            );
        }
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn deferred_format_and_debug() {
        let f = DecodedFile {
            path: "/etc/app.conf".into(),
            content: Cow::Borrowed(b"token=SECRET"),
            permissions: 0o600,
            owner: "web:web".into(),
            append: false,
        };
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"path": "/etc/app.conf", "content_b64": "dG9rZW49U0VDUkVU",
                "permissions": 384, "owner": "web:web", "append": false})
        );
        assert_eq!(serde_json::from_value::<DecodedFile>(json).unwrap(), f);
        let shown = format!("{f:?}");
        assert!(
            !shown.contains("SECRET") && shown.contains("<12 bytes>"),
            "{shown}"
        );
    }
}
