//! A view of a root that can only read: what a datasource gets, so "returns data, never
//! writes" is a type and not a promise.

use super::{Root, RootError};

/// Reads through a `Root` (paths resolved inside it, only regular files read); no method
/// writes, removes or syncs.
#[derive(Clone, Copy)]
pub struct ReadOnly<'a>(&'a Root);

impl<'a> ReadOnly<'a> {
    pub fn new(root: &'a Root) -> ReadOnly<'a> {
        ReadOnly(root)
    }
    /// As [`Root::read_file`].
    pub fn read_file(&self, rel: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, RootError> {
        self.0.read_file(rel, max_bytes)
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
