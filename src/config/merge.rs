//! cloud-init merge rules (placeholder, being written).
