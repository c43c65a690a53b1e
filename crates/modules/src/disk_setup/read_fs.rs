//! `fs_setup` for `read`: each entry's disk, partition and the way its filesystem is made.

use super::read::is_true;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// One `fs_setup` entry.
#[derive(Debug, PartialEq)]
pub struct Filesystem {
    /// Its place in `fs_setup`: diagnostics name `fs_setup.<index>`.
    pub index: usize,
    /// The disk as named (a path, an alias, `sdb`), without the `.N` of `disk.N`.
    pub disk: String,
    pub partition: Partition,
    /// The filesystem wanted: what one already there is compared with.
    pub filesystem: Option<String>,
    pub label: Option<String>,
    pub overwrite: bool,
    /// A filesystem that may be replaced even with `overwrite: false`.
    pub replace_fs: Option<String>,
    pub make: Make,
}

/// Where on the disk the filesystem goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// The first partition with the filesystem (any label), else the first without one.
    Any,
    /// The same, but a partition is reused only when its label matches too.
    Auto,
    /// `none`: the whole disk.
    WholeDisk,
    Number(u32),
}

/// How the filesystem is made. `cmd` keeps cloud-init's `%(label)s`, `%(filesystem)s` and
/// `%(device)s` to fill in.
#[derive(Debug, PartialEq)]
pub enum Make {
    /// `mkfs.<filesystem>` (`mkswap` for swap) with `extra_opts`.
    Mkfs {
        filesystem: String,
        extra_opts: Vec<String>,
    },
    /// `cmd` as a string: run under `sh -c`; `extra_opts` are not used.
    Shell(String),
    /// `cmd` as a list of words; `extra_opts` are not used.
    Argv(Vec<String>),
}

pub(super) fn filesystems(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<Filesystem> {
    match cfg.get("fs_setup") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .filter_map(|(index, def)| filesystem(index, def, diags))
            .collect(),
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "expected a list").key("fs_setup"));
            Vec::new()
        }
    }
}

fn filesystem(index: usize, def: &Value, diags: &mut Vec<Diag>) -> Option<Filesystem> {
    let key = format!("fs_setup.{index}");
    let Some(def) = def.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key(key));
        return None;
    };
    let Some(device) = text(def, "device") else {
        diags.push(problem(&key, "device", Reason::MissingKey, "no device"));
        return None;
    };
    let (disk, dotted) = split_partition(&device);
    let Some(partition) = partition(dotted, def.get("partition")) else {
        let msg = "expected auto, any, none or a number";
        diags.push(problem(&key, "partition", Reason::BadValue, msg));
        return None;
    };
    let filesystem = text(def, "filesystem");
    let make = make(def, filesystem.as_deref(), &key, diags)?;
    Some(Filesystem {
        index,
        disk: disk.to_string(),
        partition,
        filesystem,
        label: text(def, "label"),
        overwrite: is_true(def, "overwrite"),
        replace_fs: text(def, "replace_fs"),
        make,
    })
}

/// `cmd`, else mkfs for `filesystem` with `extra_opts`.
fn make(
    def: &Map<String, Value>,
    filesystem: Option<&str>,
    key: &str,
    diags: &mut Vec<Diag>,
) -> Option<Make> {
    match def.get("cmd") {
        Some(Value::String(s)) => return Some(Make::Shell(s.clone())),
        Some(Value::Array(words)) => return Some(Make::Argv(words.iter().map(word).collect())),
        Some(_) => {
            let msg = "expected a string or a list";
            diags.push(problem(key, "cmd", Reason::WrongType, msg));
            return None;
        }
        None => {}
    }
    let Some(filesystem) = filesystem else {
        let msg = "no filesystem and no cmd";
        diags.push(problem(key, "filesystem", Reason::MissingKey, msg));
        return None;
    };
    let Some(extra_opts) = options(def.get("extra_opts")) else {
        let msg = "expected a list";
        diags.push(problem(key, "extra_opts", Reason::WrongType, msg));
        return None;
    };
    Some(Make::Mkfs {
        filesystem: filesystem.to_string(),
        extra_opts,
    })
}

/// An error about one field of an `fs_setup` entry.
fn problem(entry: &str, field: &str, code: Reason, msg: &str) -> Diag {
    Diag::error(code, msg).key(format!("{entry}.{field}"))
}

/// `disk.N`: the disk and partition N, which overrides `partition`.
fn split_partition(device: &str) -> (&str, Option<&str>) {
    match device.rsplit_once('.') {
        Some((disk, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            (disk, Some(n))
        }
        _ => (device, None),
    }
}

/// `partition` (a word or a number, `any` when not given); `None` when it is neither.
fn partition(dotted: Option<&str>, value: Option<&Value>) -> Option<Partition> {
    let written = match (dotted, value) {
        (Some(n), _) => n.to_string(),
        (None, None) => return Some(Partition::Any),
        (None, Some(Value::String(s))) => s.to_ascii_lowercase(),
        (None, Some(other)) => other.to_string(),
    };
    match written.as_str() {
        "any" => Some(Partition::Any),
        "auto" => Some(Partition::Auto),
        "none" => Some(Partition::WholeDisk),
        n => n.parse().ok().map(Partition::Number),
    }
}

/// `extra_opts`: a list of words or one string split at spaces; `None` when neither.
fn options(value: Option<&Value>) -> Option<Vec<String>> {
    match value {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Array(words)) => Some(words.iter().map(word).collect()),
        Some(Value::String(s)) => Some(s.split_whitespace().map(str::to_string).collect()),
        Some(_) => None,
    }
}

/// A command word: strings as they are, numbers and the rest as JSON writes them.
fn word(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

fn text(def: &Map<String, Value>, field: &str) -> Option<String> {
    def.get(field).and_then(Value::as_str).map(str::to_string)
}
