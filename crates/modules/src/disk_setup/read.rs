//! The one reading of `disk_setup`, `fs_setup` and `device_aliases`, for the boot and for
//! `ember schema`. Pure: what depends on the disks (their size, what they hold) is the
//! module's to find out.

use super::read_fs::{filesystems, Filesystem};
use crate::disk::table::TableKind;
use crate::error::Diag;
use crate::reason::Reason;
use ember_core::sort::IntoMap;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `device_aliases`: a name the config may use for a disk, and the device it stands for.
pub type Aliases = BTreeMap<String, String>;

/// The three keys as the module uses them.
#[derive(Debug, Default, PartialEq)]
pub struct Settings {
    /// `disk_setup`, in the mapping's order; a disk whose layout asks for nothing is left out.
    pub disks: Vec<Disk>,
    /// `fs_setup`, in the list's order; an entry that cannot be used is left out.
    pub filesystems: Vec<Filesystem>,
    pub aliases: Aliases,
}

/// One `disk_setup` entry that asks for a partition table.
#[derive(Debug, PartialEq)]
pub struct Disk {
    /// The name as written (a path, an alias, `sdb`): diagnostics name `disk_setup.<name>`.
    pub name: String,
    /// `table_type`, `mbr` when not given.
    pub table_type: TableKind,
    pub layout: Layout,
    pub overwrite: bool,
}

#[derive(Debug, PartialEq)]
pub enum Layout {
    /// `remove`: the disk's table wiped.
    Remove,
    /// `true`: one partition over the whole disk, unless the disk has partitions already.
    Whole,
    /// Percentages and `[percent, type]` pairs, as written: `disk::layout::plan` turns them
    /// into partitions once the disk's size is known.
    Partitions(Vec<Value>),
}

/// Reads `disk_setup`, `fs_setup` and `device_aliases`; every problem goes to `diags` with its
/// key path, and the entry it is in is left out.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Settings {
    Settings {
        disks: disks(cfg, diags),
        filesystems: filesystems(cfg, diags),
        aliases: aliases(cfg),
    }
}

/// `device_aliases`, for `mounts` too. Entries that are not strings are not aliases: the
/// name is then used as it is written.
pub fn aliases(cfg: &Value) -> Aliases {
    let Some(map) = cfg.get("device_aliases").and_then(Value::as_object) else {
        return Aliases::new();
    };
    map.iter()
        .filter_map(|(name, dev)| Some((name.clone(), dev.as_str()?.to_string())))
        .into_map()
}

fn disks(cfg: &Value, diags: &mut Vec<Diag>) -> Vec<Disk> {
    match cfg.get("disk_setup") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .filter_map(|(name, def)| disk(name, def, diags))
            .collect(),
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("disk_setup"));
            Vec::new()
        }
    }
}

fn disk(name: &str, def: &Value, diags: &mut Vec<Diag>) -> Option<Disk> {
    let key = format!("disk_setup.{name}");
    let Some(def) = def.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key(key));
        return None;
    };
    let written = match def.get("layout") {
        // Not to be partitioned: nothing else of the entry matters.
        None | Some(Value::Null) | Some(Value::Bool(false)) => return None,
        Some(layout) => layout,
    };
    let Some(table_type) = table_type(def.get("table_type")) else {
        let msg = "expected mbr or gpt";
        diags.push(Diag::error(Reason::BadValue, msg).key(format!("{key}.table_type")));
        return None;
    };
    let Some(layout) = layout(written) else {
        let msg = "layout: not true, false or a list of partitions";
        diags.push(Diag::error(Reason::BadValue, msg).key(format!("{key}.layout")));
        return None;
    };
    Some(Disk {
        name: name.to_string(),
        table_type,
        layout,
        overwrite: is_true(def, "overwrite"),
    })
}

/// `table_type`: `mbr` unless it says `gpt` (anything but a string reads as not given).
fn table_type(value: Option<&Value>) -> Option<TableKind> {
    match value.and_then(Value::as_str).unwrap_or("mbr") {
        "mbr" => Some(TableKind::Mbr),
        "gpt" => Some(TableKind::Gpt),
        _ => None,
    }
}

fn layout(value: &Value) -> Option<Layout> {
    match value {
        Value::Bool(true) => Some(Layout::Whole),
        Value::String(s) if s.eq_ignore_ascii_case("remove") => Some(Layout::Remove),
        Value::Array(items) => Some(Layout::Partitions(items.clone())),
        _ => None,
    }
}

/// Anything but `true` is false, as the module has always read `overwrite`.
pub(super) fn is_true(def: &Map<String, Value>, field: &str) -> bool {
    def.get(field) == Some(&Value::Bool(true))
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
