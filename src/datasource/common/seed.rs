//! A NoCloud-style seed: `meta-data`, `user-data`, `vendor-data`, `network-config`, read from
//! any place that can return a file by name (a directory, a volume, a URL base) within budget.

use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use crate::yaml;
use serde_json::Value;

/// What one read of a file returned: its bytes, absent, or a failure (with its diagnostic).
pub enum FileRead {
    Found(Vec<u8>),
    Absent,
    Failed(Diag),
}

#[derive(Default)]
pub struct RawSeed {
    pub meta_data: Option<Vec<u8>>,
    pub user_data: Option<Vec<u8>>,
    pub vendor_data: Option<Vec<u8>>,
    pub network_config: Option<Vec<u8>>,
}

/// Reads the four files. A seed needs `meta-data` and `user-data` (which may be empty);
/// without them this returns `None`. A `user-data` refused by a rule (too large, a link, not a
/// regular file) is reported and left out, so the rest of the seed is still used; one whose
/// volume cannot be read fails the seed.
/// `where_` names the seed in diagnostics: `/dev/sr0`, `http://10.0.0.1/seed/`.
pub fn read(
    mut read_file: impl FnMut(&str) -> FileRead,
    where_: &str,
    diags: &mut Vec<Diag>,
) -> Option<RawSeed> {
    // Ok(None): absent; Err(()): failed, with the reason pushed to `diags`.
    let mut get = |name: &str, diags: &mut Vec<Diag>| match read_file(name) {
        FileRead::Found(data) => Ok(Some(data)),
        FileRead::Absent => Ok(None),
        FileRead::Failed(diag) => {
            diags.push(diag);
            Err(())
        }
    };
    let absent = |name: &str| {
        Diag::warning(Reason::SeedIncomplete, format!("seed has no {name}")).file(where_)
    };
    let meta_data = match get("meta-data", diags) {
        Ok(Some(md)) => md,
        Ok(None) => {
            diags.push(absent("meta-data"));
            return None;
        }
        Err(()) => return None,
    };
    let user_data = match get("user-data", diags) {
        Ok(None) => {
            diags.push(absent("user-data"));
            return None;
        }
        Ok(Some(data)) => Some(data),
        // The volume could not be read (an I/O error, a medium taken out mid-read): the seed
        // fails whole, as cloud-init's datasource does when its read raises, and None then
        // stands in (issue 37's vanish cell). Refused by a rule of ember's (a budget, a link,
        // not a regular file): left out, the rest of the seed used.
        Err(()) if diags.last().is_some_and(unreadable) => return None,
        Err(()) => None,
    };
    Some(RawSeed {
        meta_data: Some(meta_data),
        user_data,
        vendor_data: get("vendor-data", diags).ok().flatten(),
        network_config: get("network-config", diags).ok().flatten(),
    })
}

/// Whether a file failed to be read from its volume, rather than being refused by a rule.
fn unreadable(d: &Diag) -> bool {
    d.code == Reason::SeedUnreadable.as_str()
}

/// Parses a YAML (or JSON) file that must hold a mapping; empty means `{}`.
/// `file` names it in diagnostics: `/dev/sr0: meta-data`.
pub fn parse_mapping(data: &[u8], file: &str, limits: &Limits) -> Result<Value, Diag> {
    parse_mapping_doc(data, file, limits).map(|doc| doc.value)
}

/// `parse_mapping`, keeping the line of each key path for later diagnostics.
pub fn parse_mapping_doc(data: &[u8], file: &str, limits: &Limits) -> Result<yaml::Doc, Diag> {
    let text = std::str::from_utf8(data)
        .map_err(|e| yaml::not_utf8(data, e.valid_up_to(), "").file(file))?;
    let mut doc = yaml::parse(text, limits).map_err(|e| e.to_diag(file))?;
    if let Some(d) = doc.problem_diags(file).into_iter().next() {
        // Meta-data names the instance: a value that cannot be read is not guessed at.
        return Err(d);
    }
    match doc.value {
        Value::Null => doc.value = Value::Object(Default::default()),
        Value::Object(_) => {}
        _ => return Err(Diag::error(Reason::WrongType, "must be a mapping").file(file)),
    }
    Ok(doc)
}
