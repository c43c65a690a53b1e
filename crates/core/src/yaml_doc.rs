//! What the YAML reader gives: a document's value as JSON with the line of every key path, and
//! the values it could not read. The parser is the initramfs side's (`ember-yaml`); this data
//! lives here so that network and module code can take a read document without linking it.

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;
use std::collections::BTreeMap;

/// A parsed YAML document: its value as JSON, and the line of each key path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc {
    pub value: Value,
    /// Dotted key path (`write_files.2.permissions`) → 1-based line where its value starts.
    /// Paths through keys over 256 bytes, and any past a budget of four times the input's size
    /// in path bytes, are left out: lines are for diagnostics and must not cost more than that.
    pub lines: BTreeMap<String, u32>,
    /// Values that could not be read as their tag says; each is null in `value`. PyYAML refuses
    /// the whole document for one of these; ember fails only the key (`drop_failed_keys`).
    pub problems: Vec<ValueProblem>,
}

/// A scalar that could not be made what its tag says (`!!int abc`, an unknown tag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueProblem {
    /// Dotted key path (`write_files.2.content`); empty for the document itself.
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// Why, without the value.
    pub message: String,
}

impl Doc {
    pub fn line_of(&self, key_path: &str) -> Option<u32> {
        self.lines.get(key_path).copied()
    }

    /// The `problems` as errors of `file` (`yaml-type`), for the status.
    pub fn problem_diags(&self, file: &str) -> Vec<Diag> {
        self.problems.iter().map(|p| p.diag(file, "")).collect()
    }

    /// Takes out each top-level key under which a value failed, so that no module acts on half
    /// of its config (a list of files with one content missing), and says so in an error each.
    pub fn drop_failed_keys(&mut self, file: &str) -> Vec<Diag> {
        let mut diags = Vec::new();
        for p in &self.problems {
            let top = p.path.split('.').next().unwrap_or_default();
            let dropped = match &mut self.value {
                Value::Object(map) if !top.is_empty() => map.remove(top).is_some(),
                _ => false,
            };
            let what = match dropped {
                true => format!("; {top} is left out"),
                false => String::new(),
            };
            diags.push(p.diag(file, &what));
        }
        diags
    }
}

impl ValueProblem {
    fn diag(&self, file: &str, consequence: &str) -> Diag {
        let at = if self.path.is_empty() {
            "the document"
        } else {
            &self.path
        };
        let message = format!(
            "{at}: {} (column {}){consequence}",
            self.message, self.column
        );
        let line = (self.line > 0).then_some(self.line);
        Diag::error(Reason::YamlType, message).file(file).line(line)
    }
}

/// What a non-UTF-8 `!!binary` value starts with in the JSON (cloud-init's instance data
/// writes bytes the same way).
pub const BINARY_PREFIX: &str = "ci-b64:";

/// The bytes of a `!!binary` value that is not UTF-8, as the reader keeps it; `None` for any
/// other string. Only the reader's exact form counts (canonical base64 of bytes that are not
/// UTF-8), so text that merely starts with `ci-b64:` stays text.
pub fn binary_bytes(value: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let encoded = value.strip_prefix(BINARY_PREFIX)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    std::str::from_utf8(&bytes).is_err().then_some(bytes)
}
