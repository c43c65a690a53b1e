//! INI as Python's configparser and libdnf read a `.repo` file: a line starting `[` is a
//! section, one starting `#` or `;` a comment, one starting with a blank continues the value
//! above; `name = value` splits at the first `=` or `:`. A value therefore holds no line break
//! (a list is written one item per continuation line) and no other control character; its
//! `#`, `;`, `[`, `]`, `{`, `}`, `\`, `$`, backquote are plain text mid-line. The reader drops
//! a value's surrounding blanks. A name holds no `=`, `:` or control character and does not
//! start with `[`, `#` or `;`; a section's name holds no `]`. (puppet.conf is read the same way
//! but with no continuation lines.)

use super::{control, Refused};

/// An option's name.
pub fn name(n: &str) -> Result<&str, Refused> {
    if let Some(r) = control(n) {
        return Err(r);
    }
    if n.trim().is_empty() || n.contains(['=', ':']) || n.trim_start().starts_with(['[', '#', ';'])
    {
        return Err(Refused("not usable as an option name"));
    }
    Ok(n)
}

/// A section's name, written `[name]`: no `]` (readers take the header up to one) and no
/// control character.
pub fn section(n: &str) -> Result<&str, Refused> {
    if let Some(r) = control(n) {
        return Err(r);
    }
    if n.trim().is_empty() || n.contains(']') {
        return Err(Refused("not usable as a section name"));
    }
    Ok(n)
}

/// A one-line value.
pub fn value(v: &str) -> Result<&str, Refused> {
    match control(v) {
        Some(r) => Err(r),
        None => Ok(v),
    }
}

/// A list's items, the first on the option's line, each other on a continuation line.
pub fn lines<S: AsRef<str>>(items: &[S]) -> Result<String, Refused> {
    let items: Result<Vec<&str>, Refused> = items.iter().map(|i| value(i.as_ref())).collect();
    Ok(items?.join("\n\t"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_and_controls_are_refused_the_rest_kept() {
        for v in [
            "a\n[evil]\nbaseurl=x",
            "a\r[evil]",
            "a\0b",
            "a\u{1b}b",
            "a\x0cb",
        ] {
            assert!(value(v).is_err(), "{v:?}");
            assert!(lines(&["ok", v]).is_err(), "{v:?}");
        }
        for v in [
            "a#b;c",
            "[x]",
            "{x}",
            "a\\b",
            "$basearch",
            "`id`",
            "a\"b'c",
            "%%",
        ] {
            assert_eq!(value(v), Ok(v));
        }
        assert_eq!(
            lines(&["http://a/", "http://b/"]).unwrap(),
            "http://a/\n\thttp://b/"
        );
        for n in ["[main]", "#x", ";x", "a=b", "a:b", "a\nb", " ", " [x"] {
            assert!(name(n).is_err(), "{n:?}");
        }
        assert_eq!(name("gpg_check"), Ok("gpg_check"));
        for n in ["a]\n[b", "a]", "", "a\rb"] {
            assert!(section(n).is_err(), "{n:?}");
        }
        assert_eq!(section("my repo[1"), Ok("my repo[1"));
    }
}
