//! `RootError`: what a write into (or read from) the target root failed on, by path inside it.
//! Messages name the path and the operation, never the data (RELIABILITY rule 3).

use crate::reason::Reason;
use std::fmt;
use std::io;

/// Why an operation on a [`Root`](super::Root) failed. `path` is always the path *inside* the
/// root as the caller gave it (`/etc/hostname`), so messages read the same for any root.
#[derive(Debug)]
pub enum RootError {
    /// The root directory itself could not be opened.
    Open { path: String, source: io::Error },
    /// The path was refused before anything was written: it contains a NUL byte, names no file,
    /// or resolves under the root's /proc, /sys or /dev.
    Refused { path: String, reason: &'static str },
    /// A system call failed; `op` says which step (e.g. "write", "rename into place").
    Io {
        path: String,
        op: &'static str,
        source: io::Error,
    },
    /// Below a user's boundary (`Root::user_dir`, RELIABILITY rule 13), `at` (`path` or a
    /// directory above it) is a link, not of the type needed, or another user's.
    UserRefused {
        path: String,
        at: String,
        reason: &'static str,
    },
    /// A read found more than the caller's budget; `budget` names it when it is one of the
    /// image's limits.
    TooLarge {
        path: String,
        max_bytes: u64,
        budget: Option<&'static str>,
    },
}

/// Operations that only read; their failures are `read-failed`, all others `write-failed`.
pub(super) const READ_OPS: &[&str] = &["read", "open for reading", "list"];

impl RootError {
    /// Stable short reason code for status.json.
    pub fn code(&self) -> Reason {
        match self {
            RootError::Open { .. } => Reason::RootOpen,
            RootError::Refused { .. } | RootError::UserRefused { .. } => Reason::WriteRefused,
            RootError::Io { op, .. } if READ_OPS.contains(op) => Reason::ReadFailed,
            RootError::Io { .. } => Reason::WriteFailed,
            RootError::TooLarge { .. } => Reason::BudgetExceeded,
        }
    }

    /// The image's budget that stopped a read, when one did.
    pub fn budget(&self) -> Option<&'static str> {
        match self {
            RootError::TooLarge { budget, .. } => *budget,
            _ => None,
        }
    }

    /// The path inside the root the error is about (the root's own path for `Open`).
    pub fn path(&self) -> &str {
        match self {
            RootError::Open { path, .. }
            | RootError::Refused { path, .. }
            | RootError::Io { path, .. }
            | RootError::UserRefused { path, .. }
            | RootError::TooLarge { path, .. } => path,
        }
    }

    /// Whether this refuses a symbolic link below a user's boundary (`Root::user_dir`).
    pub fn is_link(&self) -> bool {
        match self {
            RootError::UserRefused { reason, .. } => *reason == super::user_path::LINK,
            _ => false,
        }
    }

    pub(super) fn io(path: &str, op: &'static str, source: impl Into<io::Error>) -> RootError {
        RootError::Io {
            path: path.to_string(),
            op,
            source: source.into(),
        }
    }

    pub(super) fn refused(path: &str, reason: &'static str) -> RootError {
        RootError::Refused {
            path: path.to_string(),
            reason,
        }
    }
}

impl fmt::Display for RootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RootError::Open { path, source } => {
                write!(f, "cannot open target root {path}: {source}")
            }
            RootError::Refused { path, reason } => write!(f, "refused {path}: {reason}"),
            RootError::UserRefused { path, at, reason } if at == path => {
                write!(f, "refused {path}: {reason}")
            }
            RootError::UserRefused { path, at, reason } => {
                write!(f, "refused {path}: {at} {reason}")
            }
            RootError::Io { path, op, source } => write!(f, "cannot {op} {path}: {source}"),
            RootError::TooLarge {
                path,
                max_bytes,
                budget: Some(budget),
            } => write!(f, "{path} passes the budget {budget} of {max_bytes} bytes"),
            RootError::TooLarge {
                path, max_bytes, ..
            } => {
                write!(f, "{path} is larger than the budget of {max_bytes} bytes")
            }
        }
    }
}

impl std::error::Error for RootError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RootError::Open { source, .. } | RootError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A failed operation on the target as an error diagnostic: its reason code and message.
impl From<RootError> for crate::error::Diag {
    fn from(e: RootError) -> Self {
        let d = crate::error::Diag::error(e.code(), e.to_string());
        match e {
            RootError::TooLarge {
                budget: Some(b), ..
            } => d.budget(b),
            _ => d,
        }
    }
}
