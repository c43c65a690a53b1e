//! The instance's `#include-once` cache: each URL's content in a file named by the MD5 of the
//! URL under the instance's `data/urlcache`, where cloud-init keeps it, so a later boot of
//! the same instance reads it from there instead of fetching again. A new instance has a new
//! directory, so it fetches again. The content is user-data: the files are 0600.

use super::{encode_instance_id, md5};
use crate::root::{FileSpec, ReadOnly, Root, RootError};

/// Where `url`'s content is cached for `instance_id`.
pub fn path(instance_id: &str, url: &str) -> String {
    let enc = encode_instance_id(instance_id);
    format!(
        "{}/instances/{enc}/data/urlcache/{}",
        crate::paths::system().cloud_dir,
        md5::hex(url.as_bytes())
    )
}

/// The cached content of `url`; `Ok(None)` when nothing is cached, `Err` (naming the file)
/// when an entry is there but cannot be read or is larger than `max_bytes`.
pub fn read(
    root: ReadOnly,
    instance_id: &str,
    url: &str,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, RootError> {
    root.read_file(&path(instance_id, url), max_bytes)
}

pub fn write(root: &Root, instance_id: &str, url: &str, content: &[u8]) -> Result<(), RootError> {
    root.write_file(&path(instance_id, url), content, &FileSpec::mode(0o600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_per_instance_under_cloud_inits_name() {
        let url = "http://127.0.0.1:8080/once?token=SECRET";
        // cloud-init's name for it: hashlib.md5(url).hexdigest().
        assert_eq!(
            path("i-1", url),
            "/var/lib/cloud/instances/i-1/data/urlcache/361fc0d597f12ffd620a0cae008d1569"
        );
        let dir = std::env::temp_dir().join(format!("ember-urlcache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = Root::open_deferred(&dir).unwrap();
        assert_eq!(read(ReadOnly::new(&root), "i-1", url, 100).unwrap(), None);
        write(&root, "i-1", url, b"#cloud-config\n").unwrap();
        let got = read(ReadOnly::new(&root), "i-1", url, 100).unwrap();
        assert_eq!(got.as_deref(), Some(&b"#cloud-config\n"[..]));
        assert_eq!(read(ReadOnly::new(&root), "i-2", url, 100).unwrap(), None);
        assert!(read(ReadOnly::new(&root), "i-1", url, 3).is_err());
        use std::os::unix::fs::PermissionsExt;
        let file = dir.join(path("i-1", url).trim_start_matches('/'));
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
