//! YAML 1.1 reader with line numbers (parser being written).

use serde_json::Value;
use std::collections::BTreeMap;

/// A parsed YAML document: its value as JSON, and the line of each key path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc {
    pub value: Value,
    /// Dotted key path (`write_files.2.permissions`) → 1-based line where its value starts.
    pub lines: BTreeMap<String, u32>,
}

impl Doc {
    pub fn line_of(&self, key_path: &str) -> Option<u32> {
        self.lines.get(key_path).copied()
    }
}
