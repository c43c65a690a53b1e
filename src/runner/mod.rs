//! Runner CLI (placeholder, being written).
