//! Tests of the YAML reader: scalar tables, whole documents, budgets and line numbers.

mod docs;
mod emit_roundtrip;
mod scalars;
