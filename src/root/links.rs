//! Whether a path is itself a symbolic link (its last component, not followed). A look only:
//! checking and then acting by path can be raced, so code that acts in a user's directories
//! goes through `Root::user_dir` (user_path.rs), which opens without following instead.

use super::names::{file_name, parse, shown};
use super::{Root, RootError, DIR_FLAGS};
use rustix::fs::{statat, AtFlags, FileType};
use rustix::io::Errno;

impl Root {
    /// True when `rel` exists and is a symlink; its parents are resolved as usual (inside
    /// the root). Nothing there is `Ok(false)`.
    pub fn is_symlink(&self, rel: &str) -> Result<bool, RootError> {
        let shown = shown(rel);
        let comps = parse(rel, &shown)?;
        let (name, parent) = file_name(&comps, &shown)?;
        let dir = match self.open_in(parent, DIR_FLAGS) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(false),
            Err(e) => return Err(RootError::io(&shown, "open the directory of", e)),
        };
        match statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(FileType::from_raw_mode(st.st_mode) == FileType::Symlink),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(RootError::io(&shown, "look at", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Resolver;
    use super::*;

    #[test]
    fn links_are_seen_not_followed_with_both_resolvers() {
        let dir = std::env::temp_dir().join(format!("ember-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("root/.ssh")).unwrap();
        std::fs::create_dir_all(dir.join("home/ann")).unwrap();
        std::os::unix::fs::symlink("/root/.ssh", dir.join("home/ann/.ssh")).unwrap();
        for resolver in [Resolver::Kernel, Resolver::Walker] {
            let Ok(root) = Root::open_with(&dir, resolver) else {
                continue; // no openat2 on this kernel
            };
            assert!(root.is_symlink("/home/ann/.ssh").unwrap());
            assert!(!root.is_symlink("/home/ann").unwrap());
            assert!(!root.is_symlink("/home/ann/.ssh/authorized_keys").unwrap());
            assert!(!root.is_symlink("/home/bob/.ssh").unwrap());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
