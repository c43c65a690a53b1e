//! What a module declares about the cloud-config keys it owns, so `ember schema` checks a
//! document with the module's own code: the keys' declarative shapes (types, enum values,
//! fields) and the module's typed reader, the function its boot code calls. A module's stage
//! table row hands its `Reader` out; `schema` keeps shapes only for keys no module owns.

use super::shape::Shape;
use crate::error::Diag;
use serde_json::Value;

pub struct Reader {
    /// The shapes of keys this module owns, checked before `read`. A key without one is
    /// checked by `read` alone; a key several modules read has its shape in one of them.
    pub shapes: &'static [(&'static str, Shape)],
    /// The module's typed reader, as the boot calls it; `schema` keeps its diagnostics.
    pub read: fn(&Value, &mut Vec<Diag>),
}

impl Reader {
    /// The shape this reader declares for `key`.
    pub fn shape(&self, key: &str) -> Option<&'static Shape> {
        self.shapes.iter().find(|(k, _)| *k == key).map(|(_, s)| s)
    }
}
