//! Rows that keep ember's outcome where it deliberately differs from cloud-init name the
//! README's entry for it; the entry must be there (in "Deliberate differences from cloud-init").

use std::sync::OnceLock;

fn readme_differences() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .expect("README.md");
        let start = readme
            .find("## Deliberate differences from cloud-init")
            .expect("README has a \"Deliberate differences from cloud-init\" section");
        let rest = &readme[start + 3..];
        let end = rest.find("\n## ").map_or(rest.len(), |i| i);
        rest[..end].to_string()
    })
}

/// Panics unless the README's differences section holds `phrase` (case-insensitive).
pub fn assert_listed(row: &str, phrase: &str) {
    let text = readme_differences().to_lowercase();
    assert!(
        text.contains(&phrase.to_lowercase()),
        "{row}: marked as a deliberate difference (\"{phrase}\"), \
         but README's \"Deliberate differences from cloud-init\" does not say so"
    );
}
