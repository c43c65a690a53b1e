//! apk's /etc/apk/repositories: one repository a line, a URL or path (optionally `@tag `
//! before it), `#` starting a comment line. A repository ember writes is built from a base
//! URL and a version: each holds no blank (which would end it), no line break or other control
//! character (a repository of its own), and does not start with `#` or `@`.

use super::{control, Refused};

/// A base URL or version, part of one repository line.
pub fn part(v: &str) -> Result<&str, Refused> {
    if let Some(r) = control(v) {
        return Err(r);
    }
    if v.contains(' ') || v.starts_with(['#', '@']) {
        return Err(Refused("holds a blank or starts with # or @"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_line_breaks_and_line_starts_are_refused() {
        for v in [
            "http://m\nhttp://evil/v3.18/main",
            "a\rb",
            "a b",
            "#x",
            "@t x",
            "a\0",
        ] {
            assert!(part(v).is_err(), "{v:?}");
        }
        for v in [
            "https://dl-cdn.alpinelinux.org/alpine",
            "v3.18",
            "edge",
            "/srv/a#b",
        ] {
            assert_eq!(part(v), Ok(v));
        }
    }
}
