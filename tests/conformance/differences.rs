//! Rows that keep ember's outcome where it deliberately differs from cloud-init name the
//! manual's entry for it; the entry must be there (docs/src/differences.md).

use std::sync::OnceLock;

fn readme_differences() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let page = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/differences.md");
        std::fs::read_to_string(page).expect("docs/src/differences.md")
    })
}

/// Panics unless the manual's differences page holds `phrase` (case-insensitive).
pub fn assert_listed(row: &str, phrase: &str) {
    let text = readme_differences().to_lowercase();
    assert!(
        text.contains(&phrase.to_lowercase()),
        "{row}: marked as a deliberate difference (\"{phrase}\"), \
         but docs/src/differences.md does not say so"
    );
}
