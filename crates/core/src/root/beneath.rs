//! Reading below a directory of the target without following any link: for state another
//! process or user could have planted links in (the runner's semaphores, what `ember
//! collect-logs` gathers). The directory itself is resolved as every read is (inside the
//! root, links followed: it is the image's layout); below it, `regular::open_beneath`.

use super::{names, Root, RootError, DIR_FLAGS};
use rustix::fd::{AsFd, OwnedFd};
use rustix::io::Errno;
use std::io;

impl Root {
    /// Reads `rel` below the directory `base` (both paths inside the root): no link is
    /// followed below `base`, and only a regular file with one name is read (see
    /// [`crate::regular::open_beneath`]). `Ok(None)` when `base` or `rel` is absent. An error
    /// names the path and what stands in the way ("a symbolic link", "a directory").
    pub fn read_file_beneath(
        &self,
        base: &str,
        rel: &str,
        max_bytes: u64,
    ) -> Result<Option<Vec<u8>>, RootError> {
        let shown = shown(base, rel);
        let Some(dir) = self.base(base, &shown)? else {
            return Ok(None);
        };
        match crate::regular::read_beneath(dir.as_fd(), rel, &shown, max_bytes) {
            Ok(data) => Ok(data),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => Err(RootError::TooLarge {
                path: shown,
                max_bytes,
                budget: None,
            }),
            Err(e) => Err(RootError::io(&shown, "open for reading", e)),
        }
    }

    /// The text of the symbolic link `rel` below `base`, reached as `read_file_beneath`
    /// reaches a file; `Ok(None)` when absent. For the links ember makes itself
    /// (`/var/lib/cloud/instance`), which the caller checks as a name rather than follows.
    pub fn read_link_beneath(&self, base: &str, rel: &str) -> Result<Option<String>, RootError> {
        let shown = shown(base, rel);
        let Some(dir) = self.base(base, &shown)? else {
            return Ok(None);
        };
        crate::regular::read_link_beneath(dir.as_fd(), rel, &shown)
            .map_err(|e| RootError::io(&shown, "read", e))
    }

    /// The directory `base`, resolved as any read resolves; `None` when absent.
    fn base(&self, base: &str, shown: &str) -> Result<Option<OwnedFd>, RootError> {
        let comps = names::parse(base, shown)?;
        match self.open_in(&comps, DIR_FLAGS) {
            Ok(fd) => Ok(Some(fd)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(RootError::io(shown, "open for reading", e)),
        }
    }
}

/// `base` and `rel` as one path for messages.
fn shown(base: &str, rel: &str) -> String {
    match names::shown(base).as_str() {
        "/" => names::shown(rel),
        b => format!("{b}{}", names::shown(rel)),
    }
}
