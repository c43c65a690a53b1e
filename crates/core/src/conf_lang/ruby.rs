//! Ruby, for chef's client.rb (which chef evaluates as Ruby, as root): a value is a
//! double-quoted string literal, in which `\` escapes, `"` ends the string and `#{…}`, `#@…`
//! and `#$…` run code. So `\`, `"` and `#` are escaped (`\#` is a plain `#`) and every control
//! character is written `\u{HEX}`: the literal holds the value whole, on one line. A setting
//! written bare (`log_level :info`) is code: only a symbol, a constant path or an integer is
//! taken.

use super::Refused;

/// `v` as a Ruby double-quoted string literal, quotes included.
pub fn string(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        match c {
            '\\' | '"' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A bare value: `:symbol`, `Constant::Path` or an integer.
pub fn bare(v: &str) -> Result<&str, Refused> {
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let ok = match v.strip_prefix(':') {
        Some(sym) => ident(sym),
        None => {
            v.split("::").all(ident)
                || (!v.is_empty()
                    && v.trim_start_matches('-')
                        .chars()
                        .all(|c| c.is_ascii_digit()))
        }
    };
    if ok && v != "-" {
        Ok(v)
    } else {
        Err(Refused("not a Ruby symbol, constant or integer"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_interpolation_and_controls_are_escaped_bare_code_refused() {
        let table = [
            ("plain", r#""plain""#),
            ("a\"; system(\"id\"); \"", r#""a\"; system(\"id\"); \"""#),
            ("#{`id`}", r#""\#{`id`}""#),
            ("a\\", r#""a\\""#),
            ("a\nb\r\0", r#""a\u{a}b\u{d}\u{0}""#),
            ("$x [y] {z} ;", r#""$x [y] {z} ;""#),
        ];
        for (v, want) in table {
            assert_eq!(string(v), want, "{v:?}");
        }
        for v in [":info", ":verify_none", "Logger::INFO", "3", "-1"] {
            assert_eq!(bare(v), Ok(v));
        }
        for v in [
            ":info\nsystem('id')",
            "`id`",
            "x; y",
            ":",
            "",
            "-",
            "1.0",
            "::X",
            "%x(id)",
        ] {
            assert!(bare(v).is_err(), "{v:?}");
        }
    }
}
