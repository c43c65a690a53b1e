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
    let runner = crate::modules::READERS
        .iter()
        .filter_map(|(name, reader)| Some((*name, (*reader)?)));
    local.chain(runner)
}

/// The shape of `key`: the one its module declares, else the table's for keys no module owns.
pub fn shape_of(key: &str) -> Option<&'static Shape> {
    readers()
        .find_map(|(_, r)| r.shape(key))
        .or_else(|| rules::shape_of(key))
}

/// Runs the reader of every module whose keys (or keys it declares a shape for) `cfg` has,
/// once each, and keeps its diagnostics,
/// less those under a key whose shape already failed (reported once) and those that depend on
/// the machine (the image's default user), which a check of one file cannot know.
pub fn check(cfg: &Value, shape_failed: &[&str], out: &mut Vec<Diag>) {
    let mut ran: Vec<*const Reader> = Vec::new();
    for (name, reader) in readers() {
        let keys = module_specs::find(name).map_or(&[][..], |s| s.keys);
        let shaped = reader.shapes.iter().map(|(k, _)| k);
        let reads = keys.iter().chain(shaped).any(|k| cfg.get(k).is_some());
        if !reads || ran.contains(&(reader as *const _)) {
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
    // The module lists, read as the boot reads them (unknown names, unknown frequencies).
    if crate::plan::LISTS.iter().any(|(k, _)| cfg.get(k).is_some()) {
        let mut diags = Vec::new();
        crate::plan::modules(cfg, &mut diags);
        out.extend(
            diags
                .into_iter()
                .filter(|d| !shape_failed.contains(&top_key(d))),
        );
    }
}

/// The top-level key a diagnostic's key path starts with.
fn top_key(d: &Diag) -> &str {
    let path = d.key.as_deref().unwrap_or_default();
    path.split('.').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module_specs::MODULES;

    fn has_reader(module: &str) -> bool {
        readers().any(|(name, _)| name == module)
    }

    /// Every key of a module ember has is checked with that module's code: its module (or
    /// another module reading the same key) hands out a reader.
    #[test]
    fn every_module_key_has_a_reader() {
        for spec in MODULES.iter().filter(|s| s.ember) {
            for key in spec.keys {
                let read_by = |s: &&crate::module_specs::Spec| s.keys.contains(key);
                let readers: Vec<_> = MODULES.iter().filter(read_by).map(|s| s.name).collect();
                assert!(
                    readers.iter().any(|m| has_reader(m)),
                    "{}: no reader for {key}",
                    spec.name
                );
            }
        }
    }

    /// `rules` holds shapes only for keys no module of ember owns, and a key's shape is
    /// declared once.
    #[test]
    fn shapes_live_with_their_module() {
        for (key, _) in rules::TOP {
            let owner = MODULES.iter().find(|s| s.ember && s.keys.contains(key));
            assert!(owner.is_none(), "{key}: its shape belongs in {owner:?}");
        }
        for (_, reader) in readers() {
            for (key, _) in reader.shapes {
                let declared = readers().filter(|(_, r)| r.shape(key).is_some());
                let mut distinct: Vec<*const Reader> =
                    declared.map(|(_, r)| r as *const _).collect();
                distinct.dedup();
                assert_eq!(distinct.len(), 1, "{key} has its shape in several modules");
            }
        }
    }
}
