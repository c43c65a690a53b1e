//! Diagnostics: what went wrong, where (file, key path, line), and a stable reason code.
//! A `Diag` never carries an input's value, only its location (RELIABILITY rule 3).

pub use crate::reason::Reason;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How bad a diagnostic is; maps onto cloud-init's `errors` / `recoverable_errors` levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A failure: the item was not done. `ember status` exits 1.
    Error,
    /// Done, but something was ignored or guessed (unknown key, unsupported part). Exit 2.
    Warning,
    /// A deprecated form was accepted. Exit 2.
    Deprecated,
}

/// One problem found while reading input or applying it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diag {
    pub severity: Severity,
    /// The reason's stable name (`Reason::as_str`): `yaml-syntax`, `budget-exceeded`. Kept as
    /// the string so a status.json of another ember version reads back unchanged.
    pub code: String,
    /// Human sentence, free of secret values.
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Key path in the input, dotted with list indexes: `write_files.2.permissions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Name of the budget (see `limits.rs`) that stopped this input, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
}

impl Diag {
    pub fn new(severity: Severity, code: Reason, message: impl Into<String>) -> Diag {
        Diag {
            severity,
            code: code.as_str().to_string(),
            message: crate::redact::printable_up_to(&message.into(), MESSAGE_MAX),
            file: None,
            key: None,
            line: None,
            budget: None,
        }
    }
    pub fn error(code: Reason, message: impl Into<String>) -> Diag {
        Diag::new(Severity::Error, code, message)
    }
    pub fn warning(code: Reason, message: impl Into<String>) -> Diag {
        Diag::new(Severity::Warning, code, message)
    }
    pub fn deprecated(code: Reason, message: impl Into<String>) -> Diag {
        Diag::new(Severity::Deprecated, code, message)
    }
    /// File names and key paths are user input (a key may hold terminal escapes or 64 KiB):
    /// both are kept printable and bounded, like any value quoted in a message.
    pub fn file(mut self, file: impl Into<String>) -> Diag {
        self.file = Some(crate::redact::printable(&file.into()));
        self
    }
    pub fn key(mut self, key: impl Into<String>) -> Diag {
        self.key = Some(crate::redact::printable(&key.into()));
        self
    }
    pub fn line(mut self, line: Option<u32>) -> Diag {
        self.line = line;
        self
    }
    pub fn budget(mut self, budget: impl Into<String>) -> Diag {
        self.budget = Some(budget.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// The same problem as a warning, for a module that goes on where cloud-init's module
    /// logs it and goes on, though its schema (and `ember schema`) calls the value an error.
    /// A deprecation stays one.
    pub fn recoverable(mut self) -> Diag {
        if self.severity == Severity::Error {
            self.severity = Severity::Warning;
        }
        self
    }
}

/// Longest message shown, in characters: a server's words or a parser's may be quoted in it.
const MESSAGE_MAX: usize = 1000;

/// `file: line 3: key: message`, each part only when known. All shown printable again here: a
/// diagnostic read back from a state file was not necessarily made by `Diag::new`.
impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", crate::redact::printable(file))?;
        }
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(key) = &self.key {
            write!(f, "{}: ", crate::redact::printable(key))?;
        }
        f.write_str(&crate::redact::printable_up_to(&self.message, MESSAGE_MAX))?;
        if let Some(budget) = &self.budget {
            write!(f, " (budget {budget})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_line_and_key() {
        let d = Diag::error(Reason::YamlType, "expected a string")
            .file("user-data")
            .line(Some(14))
            .key("write_files.2.permissions");
        assert_eq!(
            d.to_string(),
            "user-data: line 14: write_files.2.permissions: expected a string"
        );
    }

    #[test]
    fn recoverable_turns_an_error_into_a_warning_only() {
        let e = Diag::error(Reason::WrongType, "m").key("k");
        let w = e.clone().recoverable();
        assert_eq!(w.severity, Severity::Warning);
        assert_eq!((w.code, w.key, w.message), (e.code, e.key, e.message));
        let d = Diag::deprecated(Reason::Deprecated, "old").recoverable();
        assert_eq!(d.severity, Severity::Deprecated);
    }

    #[test]
    fn keys_files_and_messages_are_kept_printable_and_bounded() {
        let d = Diag::warning(Reason::UnknownKey, "quoted \u{1b}[2J")
            .file("user\u{202e}data")
            .key(format!("\u{1b}]0;x\u{7}{}", "k".repeat(70_000)));
        let shown = d.to_string();
        assert!(shown.starts_with("user_data: _]0;x_kkk"), "{shown}");
        assert!(shown.ends_with("...: quoted _[2J"), "{shown}");
        assert!(shown.len() < 300);
    }
}
