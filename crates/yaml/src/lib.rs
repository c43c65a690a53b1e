//! YAML reader that reads values as cloud-init does (PyYAML `safe_load`, YAML 1.1), into JSON
//! with the line of every key path. It refuses what safe_load refuses (unknown tags, several
//! documents) and stops at the `yaml_nodes`, `yaml_expanded_bytes` and `yaml_depth` budgets.
//! Writing YAML is `ember_core::yaml_emit`'s job, which shares nothing with the reader.
//!
//! Architecture invariant: only the initramfs side (`ember-initrd`) and tests depend on this
//! crate; the runner cannot reach it, so a cloud-config is parsed once, before the pivot, and
//! handed over as JSON. Its output type, `Doc`, lives in `ember_core::yaml_doc` so that the
//! network and module crates can take a read document without linking the parser.

mod build;
mod node;
mod resolve;
mod utf8;
pub use ember_core::yaml_doc::{binary_bytes, Doc, ValueProblem, BINARY_PREFIX};
pub use utf8::{diag as not_utf8, locate as locate_invalid_utf8, Utf8Place};
#[cfg(test)]
mod tests;

use ember_core::{error, limits, reason};
use error::Diag;
use limits::Limits;
use reason::Reason;
use saphyr_parser::Span;
use std::fmt;

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
