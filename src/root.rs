//! The only writer into the target root (placeholder, being written).
