//! tmp
use super::Row;
pub const ROWS: &[Row] = &[];
