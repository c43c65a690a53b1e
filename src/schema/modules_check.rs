//! What the boot's modules would refuse, found with the modules' own code: each module's row in
//! its stage table hands out a `Reader` (the shapes of the keys it owns and the typed reader its
//! boot code calls), so `schema` reports what the boot would report. `rules` keeps shapes only
//! for keys no module owns.

use super::rules;
use crate::config::reader::Reader;
use crate::config::shape::Shape;
use crate::error::{Diag, Reason};
use crate::module_specs;
use serde_json::Value;

/// Every module reader in the stage tables (initramfs, then runner), with the module's name.
pub fn readers() -> impl Iterator<Item = (&'static str, &'static Reader)> {
    let local = crate::modules::LOCAL
        .iter()
        .filter_map(|m| Some((m.name(), m.reader()?)));
    let runner = crate::runner::modules::TABLE
        .iter()
        .filter_map(|m| Some((m.name(), m.reader()?)));
    local.chain(runner)
}

/// The shape of `key`: the one its module declares, else the table's for keys no module owns.
pub fn shape_of(key: &str) -> Option<&'static Shape> {
    readers()
        .find_map(|(_, r)| r.shape(key))
        .or_else(|| rules::shape_of(key))
}

/// Runs the reader of every module whose keys `cfg` has, once each, and keeps its diagnostics,
/// less those under a key whose shape already failed (reported once) and those that depend on
/// the machine (the image's default user), which a check of one file cannot know.
pub fn check(cfg: &Value, shape_failed: &[&str], out: &mut Vec<Diag>) {
    let mut ran: Vec<*const Reader> = Vec::new();
    for (name, reader) in readers() {
        let keys = module_specs::find(name).map_or(&[][..], |s| s.keys);
        if !keys.iter().any(|k| cfg.get(k).is_some()) || ran.contains(&(reader as *const _)) {
            continue;
        }
        ran.push(reader);
        let mut diags = Vec::new();
        (reader.read)(cfg, &mut diags);
        out.extend(
            diags
                .into_iter()
                .filter(|d| d.code != Reason::NoDefaultUser)
                .filter(|d| !shape_failed.contains(&top_key(d))),
        );
    }
}

/// The top-level key a diagnostic's key path starts with.
fn top_key(d: &Diag) -> &str {
    let path = d.key.as_deref().unwrap_or_default();
    path.split('.').next().unwrap_or(path)
}
