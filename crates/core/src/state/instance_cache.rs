//! ember's per-instance cache (`/var/lib/ember/instances/<id>/instance.json`, read when the
//! datasource has no news) and the run directory's `fetched.json` (from the fetch stage to the
//! local stage): the instance data as its datasource returned it, serialised by `InstanceData`
//! itself under a format version kept here.
//!
//! Migration: format 0 is what ember wrote before the version field. It has the same fields
//! except the public keys (then derived from meta-data when used) and has platform files as
//! `[path, mode, base64]` lists, which `PlatformFile` still reads; the local stage fills its
//! keys from the datasource's rule (`Datasource::public_keys`), and the next write is format 1.
//! A format newer than this ember knows is refused, so an older ember after a downgrade reports
//! the cache unreadable instead of reading it wrong.

use super::{encode_instance_id, EMBER_LIB};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The format this ember writes.
pub const CURRENT: u32 = 1;

/// The format of a serialised instance: what was read, and `CURRENT` for data made in this
/// process. Written always as `CURRENT`: data read in an older format is migrated when read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatVersion(u32);

impl FormatVersion {
    /// Written by an ember before the version field.
    pub fn is_legacy(self) -> bool {
        self.0 == 0
    }
}

impl Default for FormatVersion {
    /// Data made now. A cache without the field is format 0: the field's serde default.
    fn default() -> FormatVersion {
        FormatVersion(CURRENT)
    }
}

/// The serde default of the field: format 0, the caches written before it existed.
pub fn legacy() -> FormatVersion {
    FormatVersion(0)
}

impl Serialize for FormatVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(CURRENT)
    }
}

impl<'de> Deserialize<'de> for FormatVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FormatVersion, D::Error> {
        let version = u32::deserialize(d)?;
        if version > CURRENT {
            let msg = format!("format {version} is newer than this ember reads ({CURRENT})");
            return Err(serde::de::Error::custom(msg));
        }
        Ok(FormatVersion(version))
    }
}

/// Where the instance's cache lives in the target.
pub fn path(instance_id: &str) -> String {
    format!(
        "{EMBER_LIB}/instances/{}/instance.json",
        encode_instance_id(instance_id)
    )
}

/// The instance data in `raw`, or why it cannot be read.
pub fn decode<T: DeserializeOwned>(raw: &[u8]) -> Result<T, String> {
    serde_json::from_slice(raw).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Doc {
        #[serde(default = "legacy")]
        version: FormatVersion,
    }

    #[test]
    fn absent_is_legacy_newer_is_refused_and_current_is_written() {
        let old: Doc = decode(b"{}").unwrap();
        assert!(old.version.is_legacy());
        let now: Doc = decode(b"{\"version\": 1}").unwrap();
        assert!(!now.version.is_legacy());
        let err = decode::<Doc>(b"{\"version\": 2}").err().unwrap();
        assert!(
            err.contains("format 2 is newer than this ember reads (1)"),
            "{err}"
        );
        let written = serde_json::to_string(&old).unwrap();
        assert_eq!(written, "{\"version\":1}");
    }
}
