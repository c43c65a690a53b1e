//! YAML reader that reads values as cloud-init does (PyYAML `safe_load`, YAML 1.1), into JSON
//! with the line of every key path. It refuses what safe_load refuses (unknown tags, several
//! documents) and stops at the `yaml_nodes`, `yaml_expanded_bytes` and `yaml_depth` budgets.
//! Writing YAML is `emit`'s job, which shares nothing with the reader.

mod build;
pub mod emit;
mod node;
mod resolve;
mod utf8;
pub use resolve::binary_bytes;
pub use utf8::{diag as not_utf8, locate as locate_invalid_utf8, Utf8Place};
#[cfg(test)]
mod tests;

use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use saphyr_parser::Span;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

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

/// Why a document was refused. The message never quotes the document's values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based; 0 when the position is unknown.
    pub line: u32,
    /// 1-based; 0 when the position is unknown.
    pub column: u32,
    pub message: String,
    /// The budget (`yaml_nodes`, `yaml_expanded_bytes`, `yaml_depth`) that stopped the reading,
    /// if one did.
    pub budget: Option<&'static str>,
}

impl YamlError {
    /// From saphyr's 1-based line and 0-based column.
    fn at(line: usize, col: usize, message: String) -> YamlError {
        let col = if line == 0 { 0 } else { col.saturating_add(1) };
        YamlError {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(col).unwrap_or(u32::MAX),
            message,
            budget: None,
        }
    }

    fn syntax(span: Span, message: impl Into<String>) -> YamlError {
        YamlError::at(span.start.line(), span.start.col(), message.into())
    }

    fn budget(mut self, name: &'static str) -> YamlError {
        self.budget = Some(name);
        self
    }

    /// `yaml-syntax`, or `budget-exceeded` naming the budget; the column goes in the message
    /// because `Diag` has a line only.
    pub fn to_diag(&self, file: &str) -> Diag {
        let message = format!("{} (column {})", self.message, self.column);
        let diag = match self.budget {
            Some(name) => Diag::error(Reason::BudgetExceeded, message).budget(name),
            None => Diag::error(Reason::YamlSyntax, message),
        };
        diag.file(file).line((self.line > 0).then_some(self.line))
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for YamlError {}

/// Reads the single YAML document in `text`. Empty or comment-only input is `null`; the top
/// level may be any value (callers check that it is a map).
pub fn parse(text: &str, limits: &Limits) -> Result<Doc, YamlError> {
    // A byte-order mark is not content; saphyr would read it as part of the first scalar.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    build::document(text, limits)
}
