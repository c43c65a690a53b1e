//! A view of a root that can only read: what a datasource gets, so "returns data, never
//! writes" is a type and not a promise.

use super::{Root, RootError};
use crate::limits::{Tally, TALLY_BUDGET};

/// Reads through a `Root` (paths resolved inside it, only regular files read); no method
/// writes, removes or syncs. A datasource's view charges what it reads to the datasource's
/// tally.
#[derive(Clone, Copy)]
pub struct ReadOnly<'a>(&'a Root, Option<&'a Tally>);

impl<'a> ReadOnly<'a> {
    pub fn new(root: &'a Root) -> ReadOnly<'a> {
        ReadOnly(root, None)
    }
    /// A view whose every read is charged to `tally` (a datasource's seed directories).
    pub fn metered(root: &'a Root, tally: &'a Tally) -> ReadOnly<'a> {
        ReadOnly(root, Some(tally))
    }
    /// As [`Root::read_file`], within what is left of the tally.
    pub fn read_file(&self, rel: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, RootError> {
        let Some(tally) = self.1 else {
            return self.0.read_file(rel, max_bytes);
        };
        let (cap, capped) = tally.cap(max_bytes);
        match self.0.read_file(rel, cap) {
            Ok(got) => {
                tally.charge(got.as_ref().map_or(0, Vec::len));
                Ok(got)
            }
            Err(RootError::TooLarge { path, .. }) if capped => Err(RootError::TooLarge {
                path,
                max_bytes: tally.limit(),
                budget: Some(TALLY_BUDGET),
            }),
            Err(e) => Err(e),
        }
    }
    /// As [`Root::exists`].
    pub fn exists(&self, rel: &str) -> bool {
        self.0.exists(rel)
    }
    /// As [`Root::list_dir`].
    pub fn list_dir(&self, rel: &str) -> Result<Vec<String>, RootError> {
        self.0.list_dir(rel)
    }
}
