//! Home directories as `useradd -m` makes them: the directory with HOME_MODE, owned by the
//! user, filled from the target's /etc/skel (modes kept, symlinks recreated, files owned by
//! the user). An existing home is left alone, as useradd leaves it. The home and everything
//! in it are made inside directory descriptors (`Root::user_dir`, RELIABILITY rule 13): a link
//! planted where the home goes, or above it in a directory others can write (`/tmp`), is
//! refused, never followed with /etc/skel's files and the user's ownership behind it.

use super::inspect::{self, Kind};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{trusted_len, FileSpec, Owner, Root, RootError, UserDir};

const SKEL: &str = "/etc/skel";
/// Budgets for what /etc/skel may hold: it is the image's, but a huge one must not stall boot.
const MAX_FILE: u64 = 16 * 1024 * 1024;
const MAX_ENTRIES: usize = 4096;
const MAX_DEPTH: usize = 16;

fn diag(e: RootError) -> Diag {
    Diag::error(e.code(), e.to_string())
}

/// Makes `home` and copies /etc/skel into it. `Ok(false)` when it already existed.
pub fn make(root: &Root, home: &str, owner: Owner, mode: u32) -> Result<bool, Diag> {
    if root.exists(home) || inspect::lstat(root, home).is_some() {
        return Ok(false);
    }
    let trusted = trusted_len(home, home, owner.uid);
    let spec = FileSpec::mode(mode).with_owner(owner);
    let dir = root
        .user_dir(home, trusted, owner.uid, Some(&spec))
        .map_err(diag)?
        .ok_or_else(|| Diag::error(Reason::WriteFailed, format!("{home} could not be made")))?;
    let mut budget = MAX_ENTRIES;
    copy_dir(root, SKEL, &dir, owner, 0, &mut budget)?;
    Ok(true)
}

fn copy_dir(
    root: &Root,
    src: &str,
    dst: &UserDir<'_>,
    owner: Owner,
    depth: usize,
    budget: &mut usize,
) -> Result<(), Diag> {
    if depth > MAX_DEPTH {
        return Err(
            Diag::error(Reason::BudgetExceeded, "/etc/skel is nested too deeply")
                .budget("skel-depth"),
        );
    }
    for name in root.list_dir(src).map_err(diag)? {
        *budget = budget.checked_sub(1).ok_or_else(|| {
            Diag::error(Reason::BudgetExceeded, "/etc/skel holds too many entries")
                .budget("skel-entries")
        })?;
        let from = format!("{src}/{name}");
        // Without lstat (no openat2), a plain file of mode 0644 is assumed.
        let meta = inspect::lstat(root, &from);
        let kind = meta.map_or(Kind::File, |m| m.kind);
        let spec = |default| FileSpec::mode(meta.map_or(default, |m| m.mode)).with_owner(owner);
        match kind {
            Kind::Dir => {
                let sub = dst.create_dir(&name, &spec(0o755)).map_err(diag)?;
                copy_dir(root, &from, &sub, owner, depth + 1, budget)?;
            }
            Kind::Symlink => {
                // Recreated verbatim (owned by root: there is no lchown here; a link's owner
                // matters only in sticky directories, which a fresh home is not).
                if let Some(target) = inspect::read_link(root, &from) {
                    dst.symlink(&target, &name).map_err(diag)?;
                }
            }
            Kind::File => {
                if let Some(data) = root.read_file(&from, MAX_FILE).map_err(diag)? {
                    dst.write_file(&name, &data, &spec(0o644)).map_err(diag)?;
                }
            }
            // FIFOs, sockets, devices: useradd copies them; a home never needs one.
            Kind::Other => {}
        }
    }
    Ok(())
}
