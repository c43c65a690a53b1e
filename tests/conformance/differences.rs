//! Rows that keep ember's outcome where it deliberately differs from cloud-init name the
//! manual's entry for it; the entry must be there: on the differences page, or under a module's
//! or datasource's own "Differences from cloud-init" (docs/src/differences.md links to them).

use std::path::Path;
use std::sync::OnceLock;

fn manual_differences() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
        let mut text = std::fs::read_to_string(src.join("differences.md")).expect("differences.md");
        for dir in ["modules", "datasources"] {
            for entry in std::fs::read_dir(src.join(dir)).unwrap() {
                let page = std::fs::read_to_string(entry.unwrap().path()).unwrap();
                if let Some((_, section)) = page.split_once("## Differences from cloud-init") {
                    text.push_str(section.split("\n## ").next().unwrap_or_default());
                }
            }
        }
        text
    })
}

/// Panics unless the manual's differences hold `phrase` (case-insensitive).
pub fn assert_listed(row: &str, phrase: &str) {
    let text = manual_differences().to_lowercase();
    assert!(
        text.contains(&phrase.to_lowercase()),
        "{row}: marked as a deliberate difference (\"{phrase}\"), but neither \
         docs/src/differences.md nor a module's or datasource's differences say so"
    );
}
