//! SELinux labels for what ember writes from the initramfs, where no policy is loaded: the
//! paths go to a list that the runner's early unit relabels (`restorecon -F`) before sshd.
//! A full `/.autorelabel` would be correct too, but relabels the whole disk and reboots.
//! Only the list is written here; running restorecon is the unit's job.

use crate::root::{FileSpec, Root, RootError};

/// One absolute path per line.
pub const RESTORECON_LIST: &str = "/var/lib/ember/restorecon.list";

const MAX_CONFIG_BYTES: u64 = 64 * 1024;
const MAX_LIST_BYTES: u64 = 16 * 1024 * 1024;

/// Whether the target boots with SELinux on: `SELINUX=enforcing|permissive` in
/// /etc/selinux/config and the `SELINUXTYPE` policy (default `targeted`) installed.
pub fn enabled(root: &Root) -> bool {
    let Ok(Some(config)) = root.read_file("/etc/selinux/config", MAX_CONFIG_BYTES) else {
        return false;
    };
    let config = String::from_utf8_lossy(&config);
    let value = |key: &str| {
        config.lines().rev().find_map(|l| {
            let (k, v) = l.trim().split_once('=')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
        })
    };
    let mode = value("SELINUX").unwrap_or_default().to_ascii_lowercase();
    let policy = value("SELINUXTYPE").unwrap_or_else(|| "targeted".into());
    let sane = !policy.is_empty() && !policy.contains('/') && policy != "..";
    (mode == "enforcing" || mode == "permissive")
        && sane
        && root.exists(&format!("/etc/selinux/{policy}/policy"))
}

/// Adds `paths` to the list, each once (a rerun adds nothing). Born 0600. Paths with a line
/// break cannot be listed and are left out; the caller was told by [`listable`].
pub fn record(root: &Root, paths: &[String]) -> Result<(), RootError> {
    let old = root
        .read_file(RESTORECON_LIST, MAX_LIST_BYTES)?
        .unwrap_or_default();
    let mut text = String::from_utf8_lossy(&old).into_owned();
    let before = text.len();
    for path in paths.iter().filter(|p| listable(p)) {
        if !text.lines().any(|l| l == path) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(path);
            text.push('\n');
        }
    }
    if text.len() == before {
        return Ok(());
    }
    root.write_file(RESTORECON_LIST, text.as_bytes(), &FileSpec::mode(0o600))
}

pub fn listable(path: &str) -> bool {
    !path.contains(['\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_and_list() {
        let dir = std::env::temp_dir().join(format!("ember-wf-selinux-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = Root::open(&dir).unwrap();
        let spec = FileSpec::mode(0o644);
        assert!(!enabled(&root));
        root.write_file(
            "/etc/selinux/config",
            b"SELINUX=enforcing\nSELINUXTYPE=targeted\n",
            &spec,
        )
        .unwrap();
        assert!(!enabled(&root), "no policy installed");
        root.write_file("/etc/selinux/targeted/policy/policy.33", b"", &spec)
            .unwrap();
        assert!(enabled(&root));
        root.write_file("/etc/selinux/config", b"SELINUX=disabled\n", &spec)
            .unwrap();
        assert!(!enabled(&root));

        let paths = [
            "/etc/a".to_string(),
            "/etc/b".into(),
            "/etc/bad\nname".into(),
        ];
        record(&root, &paths).unwrap();
        record(&root, &paths[..1]).unwrap();
        let list = std::fs::read_to_string(dir.join("var/lib/ember/restorecon.list")).unwrap();
        assert_eq!(list, "/etc/a\n/etc/b\n");
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(dir.join("var/lib/ember/restorecon.list")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o7777, 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
