//! Seed filesystem readers (placeholder, being written).
