//! User-data processing (placeholder, being written).
