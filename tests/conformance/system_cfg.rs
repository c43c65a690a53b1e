//! Filled by issue 34's work.
