//! YAML 1.1 reader with line numbers (placeholder, being written).
