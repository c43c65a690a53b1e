//! POSIX shell, for the words of a command (`runcmd`'s lists) and the values of files a shell
//! sources (`/etc/default/keyboard`, sysconfig files, profile scripts). Inside `'…'` nothing is
//! special but `'`, written `'"'"'`; inside `"…"` a `"`, `\`, `$` and backquote are, so a
//! double-quoted value refuses them. No shell reads a NUL, and the readers of sourced files
//! that are not shells (systemd's environment files, console-setup's parsers) take one
//! assignment per line: values of sourced files refuse control characters.

use super::{control, Refused};

/// A command's word: plain words stay as they are, others go in single quotes.
pub fn quote(w: &str) -> String {
    let plain = !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"@%+=:,./-_".contains(&b));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\"'\"'"))
    }
}

/// The right side of `NAME=…` in a sourced file: `quote`d, one line.
pub fn value(v: &str) -> Result<String, Refused> {
    match control(v) {
        Some(r) => Err(r),
        None => Ok(quote(v)),
    }
}

/// `"v"`, for files whose readers expect double quotes (`XKBLAYOUT="de"`): at most 1024
/// bytes, none of `"`, `\`, `$`, backquote, no control character.
pub fn double_quoted(v: &str) -> Result<String, Refused> {
    if let Some(r) = control(v) {
        return Err(r);
    }
    if v.contains(['"', '\\', '$', '`']) {
        return Err(Refused("holds a quote, $, backquote or backslash"));
    }
    if v.len() > 1024 {
        return Err(Refused("longer than 1024 bytes"));
    }
    Ok(format!("\"{v}\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Each written value, assigned in `sh` and printed back, is the value (sh reads it whole).
    fn read_back_by_sh(values: &[&str], write: fn(&str) -> String) {
        let script: String = values
            .iter()
            .map(|v| format!("v={}\nprintf '%s\\037' \"$v\"\n", write(v)))
            .collect();
        let out = match Command::new("sh").arg("-c").arg(&script).output() {
            Ok(o) => o,
            Err(e) => panic!("sh: {e}"),
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = String::from_utf8(out.stdout).unwrap();
        let got: Vec<&str> = got.split('\x1f').collect();
        assert_eq!(&got[..values.len()], values);
    }

    const HOSTILE: &[&str] = &[
        "a b", "it's", "a;id", "$(id)", "`id`", "a\\b", "#x", "a\"b", "[x]", "{x}", "~", "*", "",
        "a|b&c>d", "x=y", "ü",
    ];

    #[test]
    fn quoted_words_and_values_read_back_whole_in_sh() {
        read_back_by_sh(HOSTILE, quote);
        read_back_by_sh(HOSTILE, |v| value(v).unwrap());
        assert_eq!(quote("a-b.c"), "a-b.c");
        assert_eq!(quote(""), "''");
        for v in ["a\nb", "a\rb", "a\0b", "a\x0bb"] {
            assert!(value(v).is_err(), "{v:?}");
        }
    }

    #[test]
    fn double_quoted_refuses_what_ends_or_escapes_the_quotes() {
        let kept: Vec<&str> = HOSTILE
            .iter()
            .copied()
            .filter(|v| double_quoted(v).is_ok())
            .collect();
        assert_eq!(
            kept,
            ["a b", "it's", "a;id", "#x", "[x]", "{x}", "~", "*", "", "a|b&c>d", "x=y", "ü"]
        );
        read_back_by_sh(&kept, |v| double_quoted(v).unwrap());
        for bad in ["a\"b", "a\nb", "a\rb", "a\0b", "$(id)", "a`b`", "a\\b"] {
            assert!(double_quoted(bad).is_err(), "{bad:?}");
        }
        assert!(double_quoted(&"x".repeat(1025)).is_err());
    }
}
