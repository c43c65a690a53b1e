//! ConfigObj (what cloud-init writes mcollective's server.cfg and zypper's .repo files with):
//! a value is plain, in `"…"` or `'…'`, or, when it spans lines, in `"""…"""` or `'''…'''`.
//! No escape exists inside quotes, so the quote chosen is one the value does not hold; a value
//! holding both kinds where it needs quotes, or both triple quotes, is refused. The reader
//! splits lines as Python's `str.splitlines` does (`\r`, `\x0b`, `\x0c`, `\x1c`–`\x1e`,
//! `\x85`, U+2028, U+2029 too): those, a NUL and other control characters are refused, and a
//! `\n` only spans lines in a triple-quoted value (`multiline`). A plain value with `#`
//! (comment) or `,` (list) or a blank or quote at either end is quoted. `unlisted` writes for
//! a reader with list values off (landscape's).

use super::Refused;

/// Line ends of Python's `str.splitlines`, besides `\n`.
fn other_line_end(c: char) -> bool {
    matches!(
        c,
        '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `v` when ConfigObj reads it as one line: no line end of `splitlines`, no NUL or other
/// control character.
pub fn one_line(v: &str) -> Result<&str, Refused> {
    if v.chars().any(|c| c == '\n' || other_line_end(c)) {
        return Err(Refused("holds a line break"));
    }
    match super::control(v) {
        Some(r) => Err(r),
        None => Ok(v),
    }
}

/// `v` as landscape's ConfigObj (`list_values=False`, so quotes stay part of a value except
/// triple ones) reads it back whole: bare when it has no quote, `#` or leading comma and no
/// surrounding blanks, else in the triple quote it does not hold (the single-line
/// triple-quote pattern reads a value ending in that quote back whole).
pub fn unlisted(v: &str) -> Result<String, Refused> {
    one_line(v)?;
    let bare = !v.contains(['\'', '"', '#']) && !v.starts_with(',') && v.trim() == v;
    if bare {
        return Ok(v.to_string());
    }
    for q in ["\"\"\"", "'''"] {
        if !v.contains(q) {
            return Ok(format!("{q}{v}{q}"));
        }
    }
    Err(Refused("holds both kinds of triple quote"))
}

/// `v` as ConfigObj writes it (list values on); `multiline` where a triple-quoted value may
/// be written (values, not names).
pub fn quote(v: &str, multiline: bool) -> Result<String, Refused> {
    if v.chars().any(other_line_end) {
        return Err(Refused("holds a line break"));
    }
    if v.chars().any(|c| c.is_control() && c != '\n') {
        return Err(Refused("holds a NUL byte or a control character"));
    }
    if v.is_empty() {
        return Ok("\"\"".into());
    }
    let both = v.contains('\'') && v.contains('"');
    if multiline && (both || v.contains('\n')) {
        // As ConfigObj, `'''` first; a triple-quoted value cannot end in its own quote.
        let single = v.contains("'''") || v.ends_with('\'');
        let double = v.contains("\"\"\"") || v.ends_with('"');
        return match (single, double) {
            (false, _) => Ok(format!("'''{v}'''")),
            (true, false) => Ok(format!("\"\"\"{v}\"\"\"")),
            (true, true) => Err(Refused("holds both kinds of triple quote")),
        };
    }
    if v.contains('\n') {
        return Err(Refused("holds a line break"));
    }
    let edge = |c: Option<char>| c.is_some_and(|c| " \t'\"".contains(c));
    let plain = !edge(v.chars().next()) && !edge(v.chars().last()) && !v.contains([',', '#']);
    if plain {
        Ok(v.to_string())
    } else if both {
        Err(Refused("holds both kinds of quote"))
    } else if v.contains('"') {
        Ok(format!("'{v}'"))
    } else {
        Ok(format!("\"{v}\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_that_fit_and_line_breaks_refused() {
        let q = |v: &str| quote(v, true);
        assert_eq!(q("plain").unwrap(), "plain");
        assert_eq!(q("").unwrap(), "\"\"");
        assert_eq!(q("a#b").unwrap(), "\"a#b\"");
        assert_eq!(q("a,b").unwrap(), "\"a,b\"");
        assert_eq!(q(" a").unwrap(), "\" a\"");
        assert_eq!(q("say \"x\"").unwrap(), "'say \"x\"'");
        assert_eq!(q("a\nb").unwrap(), "'''a\nb'''");
        assert_eq!(q("it's \"x\"").unwrap(), "'''it's \"x\"'''");
        assert_eq!(q("'''\n[x]").unwrap(), "\"\"\"'''\n[x]\"\"\"");
        assert_eq!(q("x\n'").unwrap(), "\"\"\"x\n'\"\"\"");
        assert!(q("\"\"\"'''\n").is_err());
        for bad in [
            "a\rb",
            "a\x0bb",
            "a\x0cb",
            "a\u{2028}b",
            "a\u{85}b",
            "a\0b",
            "a\x1cb",
        ] {
            assert!(q(bad).is_err(), "{bad:?}");
            assert!(quote(bad, false).is_err(), "{bad:?}");
        }
        assert!(quote("a\nb", false).is_err());
        assert!(quote("it's \"x\"", false).is_err());
        for v in ["[x]", "{x}", "a\\b", "$x", "`id`", "a;b"] {
            assert_eq!(quote(v, false).unwrap(), v);
        }
    }
}
