//! fstab(5): a line is six fields split at blanks, a line starting with `#` is a comment, and
//! the readers (getmntent, libmount) decode `\040` (space), `\011` (tab), `\012` (newline) and
//! `\134` (backslash) in a field. So those four are written escaped; an empty field (which
//! would shift the others), a field starting with `#`, and any other control character (`\r`,
//! NUL) are refused.

use super::{control, Refused};

/// One field, escaped.
pub fn field(v: &str) -> Result<String, Refused> {
    if v.is_empty() {
        return Err(Refused("is empty"));
    }
    if v.starts_with('#') {
        return Err(Refused("starts with #, which makes the line a comment"));
    }
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            ' ' => out.push_str("\\040"),
            '\t' => out.push_str("\\011"),
            '\n' => out.push_str("\\012"),
            '\\' => out.push_str("\\134"),
            c if c.is_control() => return Err(control(&c.to_string()).expect("a control")),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A field as fstab's readers decode it: the four escapes `field` writes, backslash last (so
/// `\134040` stays `\040`). Other backslashes are kept as they are.
pub fn unescape(v: &str) -> String {
    [
        ("\\040", " "),
        ("\\011", "\t"),
        ("\\012", "\n"),
        ("\\134", "\\"),
    ]
    .iter()
    .fold(v.to_string(), |text, (escaped, c)| text.replace(escaped, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_line_breaks_and_backslashes_are_escaped_the_rest_refused() {
        let table = [
            ("/mnt/my disk", "/mnt/my\\040disk"),
            ("a\tb", "a\\011b"),
            (
                "defaults\n/dev/sdb1 /root ext4 defaults 0 0",
                "defaults\\012/dev/sdb1\\040/root\\040ext4\\040defaults\\0400\\0400",
            ),
            ("a\\040b", "a\\134040b"),
            ("LABEL=x#y;[z]$`", "LABEL=x#y;[z]$`"),
        ];
        for (v, want) in table {
            assert_eq!(field(v).unwrap(), want, "{v:?}");
        }
        for v in ["", "#x", "a\rb", "a\0b"] {
            assert!(field(v).is_err(), "{v:?}");
        }
        for (v, _) in table {
            assert_eq!(unescape(&field(v).unwrap()), v, "{v:?}");
        }
    }
}
