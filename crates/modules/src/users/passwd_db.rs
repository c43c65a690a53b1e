//! The colon-separated account databases (passwd, shadow, group, gshadow, subuid, subgid) as
//! tables that keep every line they do not touch byte for byte: order, comments, NIS `+`/`-`
//! lines, trailing fields. Loading and saving go through `Root`; no locking (see `save`).

use super::inspect;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, Owner, Root};
use std::collections::{BTreeSet, HashMap};

const MAX_DB_BYTES: u64 = 16 * 1024 * 1024;

/// One line: an entry split into fields, or anything else kept verbatim.
#[derive(Clone, PartialEq, Eq)]
enum Line {
    Entry(Vec<String>),
    Other(String),
}

/// One database file. No `Debug`: shadow tables hold password hashes.
#[derive(Clone, PartialEq, Eq)]
pub struct Table {
    lines: Vec<Line>,
    /// Fields a new entry gets (7 for passwd, 9 for shadow, 4 for group and gshadow, 3 for sub ids).
    width: usize,
    /// Whether the file existed (absent gshadow/subuid/subgid are not created, as useradd).
    pub present: bool,
    missing_final_newline: bool,
    /// Each name's line (the first, as a lookup by scanning would find): lookups stay O(1)
    /// with thousands of users. Names (field 0) are never changed in place.
    index: HashMap<String, usize>,
    /// Field 2 of every entry, the id of passwd and group, for allocating free ids.
    ids: BTreeSet<u32>,
}

impl Table {
    pub fn parse(text: &str, width: usize) -> Table {
        let mut table = Table {
            lines: Vec::new(),
            width,
            present: true,
            missing_final_newline: !text.is_empty() && !text.ends_with('\n'),
            index: HashMap::new(),
            ids: BTreeSet::new(),
        };
        for l in text.lines() {
            let name_ok = !l.is_empty() && !l.starts_with(['#', '+', '-']);
            if name_ok && l.contains(':') {
                table.add(l.split(':').map(str::to_string).collect());
            } else {
                table.lines.push(Line::Other(l.to_string()));
            }
        }
        table
    }

    fn add(&mut self, fields: Vec<String>) {
        self.index
            .entry(fields[0].clone())
            .or_insert(self.lines.len());
        if let Some(id) = fields.get(2).and_then(|f| f.parse().ok()) {
            self.ids.insert(id);
        }
        self.lines.push(Line::Entry(fields));
    }

    pub fn empty(width: usize) -> Table {
        Table {
            present: false,
            ..Table::parse("", width)
        }
    }

    pub fn serialize(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            match line {
                Line::Entry(f) => out.push_str(&f.join(":")),
                Line::Other(s) => out.push_str(s),
            }
            out.push('\n');
        }
        if self.missing_final_newline {
            out.pop();
        }
        out
    }

    pub fn entries(&self) -> impl Iterator<Item = &Vec<String>> {
        self.lines.iter().filter_map(|l| match l {
            Line::Entry(f) => Some(f),
            Line::Other(_) => None,
        })
    }

    pub fn get(&self, name: &str) -> Option<&Vec<String>> {
        match self.lines.get(*self.index.get(name)?)? {
            Line::Entry(f) => Some(f),
            Line::Other(_) => None,
        }
    }

    /// The entry `name`, padded to the table's width so every field index is valid. Its name
    /// and id (fields 0 and 2) must not be changed through it: they are indexed.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Vec<String>> {
        let width = self.width;
        let f = match self.lines.get_mut(*self.index.get(name)?)? {
            Line::Entry(f) => f,
            Line::Other(_) => return None,
        };
        if f.len() < width {
            f.resize(width, String::new());
        }
        Some(f)
    }

    pub fn push(&mut self, mut fields: Vec<String>) {
        fields.resize(fields.len().max(self.width), String::new());
        // A file without its final newline gets one before a new line is added.
        self.missing_final_newline = false;
        self.add(fields);
    }

    /// The ids (field 2) of every entry of passwd or group.
    pub fn ids(&self) -> &BTreeSet<u32> {
        &self.ids
    }
}

/// Adds `member` to the comma list in field `i` of `fields`; true if it changed.
pub fn add_member(fields: &mut [String], i: usize, member: &str) -> bool {
    let list = &mut fields[i];
    if list.split(',').any(|m| m == member) {
        return false;
    }
    if !list.is_empty() {
        list.push(',');
    }
    list.push_str(member);
    true
}

/// The six databases, as loaded, and their current contents.
pub struct Db {
    pub passwd: Table,
    pub shadow: Table,
    pub group: Table,
    pub gshadow: Table,
    pub subuid: Table,
    pub subgid: Table,
    loaded: Vec<(&'static str, Table)>,
}

pub const FILES: [(&str, usize); 6] = [
    ("/etc/passwd", 7),
    ("/etc/shadow", 9),
    ("/etc/group", 4),
    ("/etc/gshadow", 4),
    ("/etc/subuid", 3),
    ("/etc/subgid", 3),
];

pub fn load_table(root: &Root, path: &str, width: usize) -> Result<Table, Diag> {
    match root.read_file(path, MAX_DB_BYTES) {
        Ok(Some(data)) => match String::from_utf8(data) {
            Ok(text) => Ok(Table::parse(&text, width)),
            Err(_) => Err(Diag::error(Reason::DbInvalid, "the file is not UTF-8 text").file(path)),
        },
        Ok(None) => Ok(Table::empty(width)),
        Err(e) => Err(Diag::error(e.code(), e.to_string())),
    }
}

impl Db {
    pub fn load(root: &Root) -> Result<Db, Diag> {
        let mut t = Vec::new();
        for (path, width) in FILES {
            t.push(load_table(root, path, width)?);
        }
        let loaded: Vec<_> = FILES.iter().map(|f| f.0).zip(t.iter().cloned()).collect();
        let mut it = t.into_iter();
        let mut next = || it.next().expect("six tables");
        Ok(Db {
            passwd: next(),
            shadow: next(),
            group: next(),
            gshadow: next(),
            subuid: next(),
            subgid: next(),
            loaded,
        })
    }

    /// Writes the tables that changed, groups before users (a crash in between leaves a group
    /// that a replay adopts, never a user without its group). Each write is an atomic rename,
    /// so a reader never sees half a file; shadow-utils' `/etc/.pwd.lock` is not taken because
    /// in the initramfs nothing else edits the target's databases (the target is not running
    /// and ember's modules run one after another), and `lckpwdf` needs an fcntl lock on a file
    /// descriptor that `Root` does not hand out. The previous version is kept as `<file>-`,
    /// as shadow-utils does.
    pub fn save(&self, root: &Root) -> Result<(), Diag> {
        let order = [
            (&self.group, 2),
            (&self.gshadow, 3),
            (&self.passwd, 0),
            (&self.shadow, 1),
            (&self.subuid, 4),
            (&self.subgid, 5),
        ];
        for (table, i) in order {
            let (path, old) = (&self.loaded[i].0, &self.loaded[i].1);
            // Absent optional files stay absent; passwd, shadow and group are always kept.
            if table == old || (!table.present && i > 2) {
                continue;
            }
            let spec = file_spec(root, path, &self.group);
            let err = |e: crate::root::RootError| Diag::error(e.code(), e.to_string());
            if old.present {
                root.write_file(&format!("{path}-"), old.serialize().as_bytes(), &spec)
                    .map_err(err)?;
            }
            root.write_file(path, table.serialize().as_bytes(), &spec)
                .map_err(err)?;
        }
        Ok(())
    }
}

/// Mode and owner for a database file: an existing file keeps its own (Debian's shadow is
/// 0640 root:shadow, Fedora's 0000 root:root), except that a shadow file never becomes readable
/// by others. A new file: passwd/group/subuid/subgid 0644 root; shadow/gshadow 0640
/// root:shadow where the group `shadow` exists, else 0600 root.
pub fn file_spec(root: &Root, path: &str, group: &Table) -> FileSpec {
    let secret = path.ends_with("shadow");
    if let Some(meta) = inspect::lstat(root, path) {
        if meta.kind == inspect::Kind::File {
            let mode = if secret {
                meta.mode & 0o7770
            } else {
                meta.mode
            };
            return FileSpec::mode(mode).with_owner(Owner {
                uid: meta.uid,
                gid: meta.gid,
            });
        }
    }
    if !secret {
        return FileSpec::mode(0o644).with_owner(Owner { uid: 0, gid: 0 });
    }
    match group.get("shadow").and_then(|f| f.get(2)?.parse().ok()) {
        Some(gid) => FileSpec::mode(0o640).with_owner(Owner { uid: 0, gid }),
        None => FileSpec::mode(0o600).with_owner(Owner { uid: 0, gid: 0 }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_everything() {
        let cases = [
            "root:x:0:0:root:/root:/bin/bash\n# comment\n\n+@netgroup::::::\nbin:x:1:1::/bin:/x:extra:fields\n",
            "a:x:1:1::/:/bin/sh",
            "",
            "weird line without colon\n",
        ];
        for text in cases {
            assert_eq!(Table::parse(text, 7).serialize(), text);
        }
    }

    #[test]
    fn push_and_edit_keep_other_lines() {
        let mut t = Table::parse("# head\nroot:x:0:\nadm:x:4:syslog", 4);
        t.push(vec!["alice".into(), "x".into(), "1000".into()]);
        assert!(add_member(t.get_mut("adm").unwrap(), 3, "alice"));
        assert!(!add_member(t.get_mut("adm").unwrap(), 3, "alice"));
        assert!(add_member(t.get_mut("root").unwrap(), 3, "alice"));
        assert_eq!(
            t.serialize(),
            "# head\nroot:x:0:alice\nadm:x:4:syslog,alice\nalice:x:1000:\n"
        );
        assert_eq!(t.ids().iter().copied().collect::<Vec<_>>(), [0, 4, 1000]);
        assert_eq!(t.get("alice").unwrap()[2], "1000");
        assert!(t.get("# head").is_none() && t.get("nobody").is_none());
    }

    #[test]
    fn short_entries_are_padded_only_when_edited() {
        let mut t = Table::parse("g:x:5\n", 4);
        assert_eq!(t.serialize(), "g:x:5\n");
        add_member(t.get_mut("g").unwrap(), 3, "u");
        assert_eq!(t.serialize(), "g:x:5:u\n");
    }
}
