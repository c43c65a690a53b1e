//! XML text and attribute escaping, for the documents ember writes (Azure's health report, the
//! boot timeline of `ember analyze plot`): markup characters as entities; characters XML 1.0
//! cannot hold at all (most controls) as U+FFFD, so the document stays well-formed whatever
//! the text (a description from the platform, a module name from user data) holds.

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
