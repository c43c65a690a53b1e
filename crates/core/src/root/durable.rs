//! What `Root::sync` makes durable: the root's filesystem and every other filesystem a write
//! reached through it (a separate /var or /home mounted in the target), each once. A sync of
//! the root's filesystem alone would leave the state under a separate /var unsynced while the
//! markers written after it say "done". A sync with nothing written since the last one
//! (markers and log lines aside) costs nothing: a runner stage syncs before each module's
//! marker, and most modules of a boot write nothing.

use super::RootError;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{openat, syncfs, Mode, OFlags};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Filesystems other than the root's that writes reached, each by its device and a directory
/// on it that `syncfs` can take.
#[derive(Debug, Default)]
pub(super) struct Written {
    others: Mutex<Vec<(u64, OwnedFd)>>,
    /// Something was written (or a command ran in the root) since the last sync.
    pending: AtomicBool,
}

impl Written {
    /// Notes that `dir` (on device `dev`) is about to be written into. Only a device not seen
    /// before costs a syscall: its directory is opened again for reading, since the caller's
    /// descriptor may be a path-only one, which `syncfs` refuses.
    pub(super) fn note(
        &self,
        root_dev: u64,
        dev: u64,
        dir: BorrowedFd<'_>,
    ) -> rustix::io::Result<()> {
        self.pending.store(true, Ordering::SeqCst);
        if dev == root_dev {
            return Ok(());
        }
        let mut others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        if others.iter().any(|(d, _)| *d == dev) {
            return Ok(());
        }
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        others.push((dev, openat(dir, ".", flags, Mode::empty())?));
        Ok(())
    }

    /// Whether a sync has something to flush.
    pub(super) fn pending(&self) -> bool {
        self.pending.load(Ordering::SeqCst)
    }

    /// Says whether a sync has something to flush: set by a command that may have written,
    /// put back after writes that need none (`Root::incidental`).
    pub(super) fn set_pending(&self, pending: bool) {
        self.pending.store(pending, Ordering::SeqCst);
    }

    /// One `syncfs` of the root's filesystem, then one of each other filesystem written;
    /// nothing when nothing is pending.
    pub(super) fn sync(&self, root: BorrowedFd<'_>) -> Result<(), RootError> {
        if !self.pending.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        self.flush(root).inspect_err(|_| self.set_pending(true))
    }

    /// The syncs of `sync`, pending or not.
    pub(super) fn flush(&self, root: BorrowedFd<'_>) -> Result<(), RootError> {
        syncfs(root).map_err(|e| RootError::io("/", "sync the filesystem of", e))?;
        let others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        for (_, dir) in others.iter() {
            syncfs(dir.as_fd())
                .map_err(|e| RootError::io("/", "sync a filesystem mounted in", e))?;
        }
        Ok(())
    }
}
