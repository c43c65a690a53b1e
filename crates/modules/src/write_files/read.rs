//! `write_files`' typed reader: every item checked (every problem reported, not only the first)
//! into what the module writes. Pure: decoding and fetching `source` happen when applied. The
//! boot and `ember schema` both call it.

use super::apply::DEFAULT_OWNER;
use super::decode::Encoding;
use super::{perms, source};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// One item as given: content still encoded, borrowed from the config. `Debug` leaves the
/// content out (it may be a secret).
pub struct Item<'v> {
    /// Its key path, `write_files.3`.
    pub key: String,
    pub path: &'v str,
    pub content: &'v str,
    pub encoding: Encoding,
    /// Mode bits, not yet masked by any umask.
    pub permissions: u32,
    pub owner: &'v str,
    pub append: bool,
    pub defer: bool,
    pub source: Option<source::Source>,
}

/// The items of `write_files`, less those with an error (not written); empty when absent.
/// `None` when `write_files` is not a list.
pub fn read<'v>(cfg: &'v Value, diags: &mut Vec<Diag>) -> Option<Vec<Item<'v>>> {
    let items = list(cfg, diags)?;
    let read_one = |(i, value)| item(i, value, diags);
    Some(items.iter().enumerate().filter_map(read_one).collect())
}

/// The list `read` reads, for a caller that reads and applies item by item (so each item's
/// problems are reported together). Empty when absent; `None` when not a list.
pub fn list<'v>(cfg: &'v Value, diags: &mut Vec<Diag>) -> Option<&'v [Value]> {
    match cfg.get("write_files") {
        None | Some(Value::Null) => Some(&[]),
        Some(Value::Array(items)) => Some(items),
        Some(_) => {
            let d = Diag::error(Reason::WrongType, "must be a list of files");
            diags.push(d.key("write_files"));
            None
        }
    }
}

/// Item `index` of the list, or `None` when it has an error (reported).
pub fn item<'v>(index: usize, value: &'v Value, diags: &mut Vec<Diag>) -> Option<Item<'v>> {
    let key = format!("write_files.{index}");
    let Value::Object(map) = value else {
        diags.push(Diag::error(Reason::WrongType, "must be a mapping with path").key(key));
        return None;
    };
    let mut errors = Vec::new();
    // cloud-init warns about an entry without a path and goes on to the next one.
    let no_path = match map.get("path") {
        None | Some(Value::Null) => true,
        Some(Value::String(p)) => p.is_empty(),
        Some(_) => false,
    };
    if no_path {
        let msg = "is required: entry skipped";
        diags.push(Diag::warning(Reason::PathMissing, msg).key(format!("{key}.path")));
        return None;
    }
    let path = path(map, &key, &mut errors);
    let content = text(map, "content", &key, &mut errors).unwrap_or("");
    let owner = text(map, "owner", &key, &mut errors).unwrap_or(DEFAULT_OWNER);
    let encoding = match text(map, "encoding", &key, &mut errors).map(Encoding::parse) {
        None => Encoding::Plain,
        Some(Ok(e)) => e,
        Some(Err(())) => {
            // cloud-init warns and takes the content as it is.
            let msg = "unknown encoding, content written as text/plain";
            diags.push(Diag::warning(Reason::EncodingUnknown, msg).key(format!("{key}.encoding")));
            Encoding::Plain
        }
    };
    let permissions = match perms::parse(map.get("permissions")) {
        Ok((mode, suspicious)) => {
            if suspicious {
                let msg = "is a decimal number whose digits look octal; it is used as decimal, as cloud-init does (quote it, '0644', for an octal mode)";
                let d = Diag::warning(Reason::PermissionsDecimal, msg);
                diags.push(d.key(format!("{key}.permissions")));
            }
            mode
        }
        Err(e) => {
            errors.push(Diag::error(e.code(), e.message()).key(format!("{key}.permissions")));
            0
        }
    };
    let append = flag(map, "append", &key, diags);
    let defer = flag(map, "defer", &key, diags);
    let source = source::parse(map.get("source"), &key).unwrap_or_else(|e| {
        errors.extend(e);
        None
    });
    if !errors.is_empty() {
        diags.extend(errors);
        return None;
    }
    Some(Item {
        path: path?,
        content,
        encoding,
        permissions,
        owner,
        append,
        defer,
        source,
        key,
    })
}

impl std::fmt::Debug for Item<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Item")
            .field("key", &self.key)
            .field("path", &self.path)
            .field("content", &format_args!("<{} bytes>", self.content.len()))
            .field("encoding", &self.encoding)
            .field("permissions", &format_args!("{:o}", self.permissions))
            .field("owner", &self.owner)
            .field("append", &self.append)
            .field("defer", &self.defer)
            .field("source", &self.source)
            .finish()
    }
}

fn path<'v>(map: &'v Map<String, Value>, key: &str, errors: &mut Vec<Diag>) -> Option<&'v str> {
    let path_key = format!("{key}.path");
    let (code, msg) = match map.get("path") {
        Some(Value::String(p)) if p.starts_with('/') => return Some(p),
        // cloud-init takes a relative path from its working directory (`/`); here that
        // would be a guess, so it is refused.
        Some(Value::String(_)) => (Reason::PathInvalid, "must be an absolute path"),
        Some(_) => (Reason::WrongType, "must be a string"),
        None => (Reason::PathMissing, "is required"), // `item` warned and skipped it
    };
    errors.push(Diag::error(code, msg).key(path_key));
    None
}

/// `true`/`false`, or the strings cloud-init's `get_cfg_option_bool` takes (`"yes"`, `"on"`, …:
/// only quoted ones reach here, the YAML reader turns bare ones into booleans). Anything else
/// is false there, which its schema only warns about: a warning here too, and false.
fn flag(map: &Map<String, Value>, name: &str, key: &str, diags: &mut Vec<Diag>) -> bool {
    let word = match map.get(name) {
        None | Some(Value::Null) => return false,
        Some(Value::Bool(b)) => return *b,
        Some(Value::String(s)) => s.trim().to_ascii_lowercase(),
        Some(_) => String::from("?"),
    };
    match word.as_str() {
        "true" | "1" | "on" | "yes" | "y" => true,
        "false" | "0" | "off" | "no" | "n" | "" => false,
        _ => {
            let d = Diag::warning(Reason::WrongType, "must be true or false: taken as false");
            diags.push(d.key(format!("{key}.{name}")));
            false
        }
    }
}

/// A string field, `None` when absent; a wrong type is an error.
fn text<'v>(
    map: &'v Map<String, Value>,
    name: &str,
    key: &str,
    errors: &mut Vec<Diag>,
) -> Option<&'v str> {
    match map.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            let d = Diag::error(Reason::WrongType, "must be a string");
            errors.push(d.key(format!("{key}.{name}")));
            None
        }
    }
}
