//! The one reading of `mounts`, `mount_default_fields` and `swap`, for the boot and for
//! `ember schema`. Pure: which devices exist, and the memory and space a `size: auto` swap
//! file is sized by, are the module's to find out.

use super::DEFAULT_OPTIONS;
use crate::conf_lang::{fstab, Refused};
use crate::disk::swap::human_bytes;
use crate::disk_setup::{self, Aliases};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// The three keys as the module uses them.
#[derive(Debug, Default, PartialEq)]
pub struct Settings {
    /// `mounts`, with `mount_default_fields` filled in; an entry without a device is left out.
    pub mounts: Vec<Mount>,
    pub swap: Option<Swap>,
    /// `device_aliases`, names `mounts` may use: disk_setup's key, whose reader reports it.
    pub aliases: Aliases,
}

/// One `mounts` entry: an fstab line's six fields, those not given from the defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// Its place in `mounts`: diagnostics name `mounts.<index>`.
    pub index: usize,
    /// The device as written: `sdb`, `ephemeral0.1`, an alias, `LABEL=x`, `server:/path`.
    pub spec: String,
    /// The mount point; `None` means no line for the device, and its earlier lines go.
    pub file: Option<String>,
    pub fstype: Option<String>,
    pub options: Option<String>,
    pub freq: Option<String>,
    pub passno: Option<String>,
}

impl Mount {
    pub fn is_swap(&self) -> bool {
        self.fstype.as_deref() == Some("swap")
    }
}

/// `swap`: a swap file in the target.
#[derive(Debug, PartialEq, Eq)]
pub struct Swap {
    /// An absolute path; `/swap.img` when not given.
    pub filename: String,
    /// `None` when not given or unusable: a file made on an earlier run is still kept.
    pub size: Option<SwapSize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapSize {
    /// `auto`: sized by the memory and the free space, never over `maxsize` (bytes).
    Auto {
        maxsize: Option<u64>,
    },
    Bytes(u64),
}

/// An fstab line's fields: `[spec, file, type, options, freq, passno]`.
type Fields = [Option<String>; 6];

const DEFAULT_SWAP_FILE: &str = "/swap.img";

/// Reads `mounts`, `mount_default_fields` and `swap`; every problem goes to `diags` with its
/// key path.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Settings {
    let defaults = default_fields(cfg, diags);
    Settings {
        mounts: mounts(cfg, &defaults, diags),
        swap: swap(cfg, diags),
        aliases: disk_setup::aliases(cfg),
    }
}

/// `mount_default_fields`, else cloud-init's defaults (with ember's mount options).
fn default_fields(cfg: &Value, diags: &mut Vec<Diag>) -> Fields {
    let builtin: Fields = [
        None,
        None,
        Some("auto".into()),
        Some(DEFAULT_OPTIONS.into()),
        Some("0".into()),
        Some("2".into()),
    ];
    let Some(v) = cfg.get("mount_default_fields") else {
        return builtin;
    };
    match v.as_array() {
        Some(list) if list.len() == 6 => {
            let fields: Fields = std::array::from_fn(|i| field(&list[i]));
            match refused(&fields) {
                None => fields,
                Some((i, why)) => {
                    let msg = format!("{why}: the built-in defaults are used");
                    let key = format!("mount_default_fields.{i}");
                    diags.push(Diag::error(Reason::BadValue, msg).key(key));
                    builtin
                }
            }
        }
        // cloud-init pads the entries with whatever list it is given and goes on.
        _ => {
            let msg = "expected a list of 6 fields: the built-in defaults are used";
            diags.push(Diag::warning(Reason::WrongType, msg).key("mount_default_fields"));
            builtin
        }
    }
}

/// The first field fstab's writer refuses (`conf_lang::fstab`), with why.
fn refused(fields: &Fields) -> Option<(usize, Refused)> {
    fields
        .iter()
        .enumerate()
        .find_map(|(i, f)| Some((i, fstab::field(f.as_deref()?).err()?)))
}

/// A token as cloud-init writes it: strings as they are, numbers unquoted, null as absent.
fn field(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn mounts(cfg: &Value, defaults: &Fields, diags: &mut Vec<Diag>) -> Vec<Mount> {
    match cfg.get("mounts") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .filter_map(|(index, line)| mount(index, line, defaults, diags))
            .collect(),
        // cloud-init walks a string's characters, warning that each is not a list; another
        // value makes its module raise.
        Some(Value::String(_)) => {
            let msg = "expected a list: no mounts added";
            diags.push(Diag::warning(Reason::WrongType, msg).key("mounts"));
            Vec::new()
        }
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "expected a list").key("mounts"));
            Vec::new()
        }
    }
}

/// One `mounts` line, missing and null fields from the defaults; but a null mount point is a
/// removal, whatever the defaults say.
fn mount(index: usize, line: &Value, defaults: &Fields, diags: &mut Vec<Diag>) -> Option<Mount> {
    let Some(tokens) = line.as_array().filter(|t| !t.is_empty() && t.len() <= 6) else {
        // cloud-init warns about an entry that is not a list and goes on with the next.
        let msg = "expected a list of 1 to 6 fields: entry skipped";
        diags.push(Diag::warning(Reason::WrongType, msg).key(format!("mounts.{index}")));
        return None;
    };
    let mut fields = defaults.clone();
    for (i, token) in tokens.iter().enumerate() {
        fields[i] = field(token).or_else(|| defaults[i].clone());
    }
    if tokens.get(1).is_some_and(Value::is_null) {
        fields[1] = None;
    }
    // Given fields only: a default's problem was told once, with its own key.
    if let Some((i, why)) = refused(&fields).filter(|(i, _)| tokens.get(*i).is_some()) {
        let msg = format!("{why}: entry skipped");
        diags.push(Diag::error(Reason::BadValue, msg).key(format!("mounts.{index}.{i}")));
        return None;
    }
    let [spec, file, fstype, options, freq, passno] = fields;
    Some(Mount {
        index,
        spec: spec?,
        file,
        fstype,
        options,
        freq,
        passno,
    })
}

/// `swap: {filename, size, maxsize}`; `None` when absent or unusable. Every problem is a
/// warning: cloud-init makes its swap file inside one `try` that warns ("failed to setup
/// swap") and goes on, and warns about a `swap` that is not a mapping.
fn swap(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Swap> {
    let Some(map) = cfg.get("swap")?.as_object() else {
        let msg = "expected a mapping: no swap made";
        diags.push(Diag::warning(Reason::WrongType, msg).key("swap"));
        return None;
    };
    let filename = map
        .get("filename")
        .and_then(Value::as_str)
        .unwrap_or(DEFAULT_SWAP_FILE);
    if !filename.starts_with('/') {
        let msg = "expected an absolute path: no swap made";
        diags.push(Diag::warning(Reason::BadValue, msg).key("swap.filename"));
        return None;
    }
    let auto = map
        .get("size")
        .and_then(Value::as_str)
        .is_some_and(|s| s.eq_ignore_ascii_case("auto"));
    // `maxsize` bounds an automatic size only, so only then is it read.
    let size = if auto {
        let maxsize = bytes(map, "maxsize", diags);
        Some(SwapSize::Auto { maxsize })
    } else {
        bytes(map, "size", diags).map(SwapSize::Bytes)
    };
    Some(Swap {
        filename: filename.to_string(),
        size,
    })
}

/// A size in bytes, as a number or as cloud-init's `human2bytes` reads text (`512M`, `2G`).
fn bytes(swap: &Map<String, Value>, key: &str, diags: &mut Vec<Diag>) -> Option<u64> {
    let n = match swap.get(key)? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => human_bytes(s),
        _ => None,
    };
    if n.is_none() {
        let msg = "expected a number of bytes, or a number with B, K, M, G or T: no swap made";
        diags.push(Diag::warning(Reason::BadValue, msg).key(format!("swap.{key}")));
    }
    n
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
