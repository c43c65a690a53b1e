//! Directories already resolved inside the root, by the path they were resolved from: a
//! first boot writes some 60 files into a dozen directories, and each write would otherwise
//! walk its parent's path again (`openat2` from the root). Only paths that resolved without a
//! link are kept, the same ones `guard`'s cache clears. What could move them is dropped with
//! them: a command run in the root (`Root::commands_ran`) and a removal by `Root`. At most
//! `KEPT` are held: each is an open descriptor, and a user-data writing into thousands of
//! directories must not run the process out of them (1024 under systemd).

use rustix::fd::OwnedFd;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const KEPT: usize = 64;

#[derive(Debug, Default)]
pub(super) struct Dirs(Mutex<HashMap<String, Arc<OwnedFd>>>);

impl Dirs {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<OwnedFd>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn get(&self, comps: &[&str]) -> Option<Arc<OwnedFd>> {
        self.map().get(&comps.join("/")).cloned()
    }

    pub(super) fn keep(&self, comps: &[&str], fd: OwnedFd) -> Arc<OwnedFd> {
        let fd = Arc::new(fd);
        let mut map = self.map();
        if map.len() >= KEPT {
            map.clear();
        }
        map.insert(comps.join("/"), Arc::clone(&fd));
        fd
    }

    pub(super) fn forget(&self) {
        self.map().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_at_most_kept_descriptors() {
        let dirs = Dirs::default();
        for n in 0..KEPT * 3 {
            let fd = rustix::fs::openat(
                rustix::fs::CWD,
                ".",
                rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
            .unwrap();
            let name = n.to_string();
            dirs.keep(&["d", &name], fd);
            assert!(dirs.map().len() <= KEPT);
            assert!(dirs.get(&["d", &name]).is_some());
        }
    }
}
