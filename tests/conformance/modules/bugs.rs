//! (filled below)

use super::Scenario;

pub const SCENARIOS: &[Scenario] = &[];
