//! Typed reads of config fields with key-path errors, and the checks that keep a value from
//! breaking a colon-separated database line.

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

pub fn type_error(key: &str, expected: &str) -> Diag {
    Diag::error(Reason::WrongType, format!("expected {expected}")).key(key)
}

/// A string field; `None` when absent or null (an Error when of another type).
pub fn str_at(m: &Map<String, Value>, f: &str, key: &str, diags: &mut Vec<Diag>) -> Option<String> {
    match m.get(f)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        _ => {
            diags.push(type_error(&format!("{key}.{f}"), "a string"));
            None
        }
    }
}

pub fn bool_at(m: &Map<String, Value>, f: &str, key: &str, diags: &mut Vec<Diag>) -> Option<bool> {
    match m.get(f)? {
        Value::Null => None,
        Value::Bool(b) => Some(*b),
        _ => {
            diags.push(type_error(&format!("{key}.{f}"), "true or false"));
            None
        }
    }
}

/// Names as cloud-init takes them: a list of strings, or one comma-separated string.
pub fn names(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(
            s.split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        Value::Array(a) => a
            .iter()
            .map(|v| Some(v.as_str()?.trim().to_string()))
            .collect(),
        _ => None,
    }
}

pub fn list_at(
    m: &Map<String, Value>,
    f: &str,
    key: &str,
    diags: &mut Vec<Diag>,
) -> Option<Vec<String>> {
    match m.get(f)? {
        Value::Null => None,
        v => names(v).or_else(|| {
            diags.push(type_error(
                &format!("{key}.{f}"),
                "a list of strings or a comma-separated string",
            ));
            None
        }),
    }
}

/// A user or group name shadow-utils accepts by default (`is_valid_name`): letters, digits,
/// `_`, `.`, `-` (not first), an optional final `$`, at most 32 characters, not all digits,
/// and not `.` or `..`, which as a home (`/home/..`) would be the target's root.
pub fn name_ok(n: &str) -> bool {
    let body = n.strip_suffix('$').unwrap_or(n);
    !body.is_empty()
        && !matches!(n, "." | "..")
        && n.len() <= 32
        && !body.starts_with('-')
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
        && !body.bytes().all(|b| b.is_ascii_digit())
}

/// A field value that fits in one database field: no `:` and no line break.
pub fn text_ok(s: &str, key: &str, diags: &mut Vec<Diag>) -> bool {
    let ok = !s.contains([':', '\n', '\r']);
    if !ok {
        diags.push(Diag::error(Reason::BadValue, "contains `:` or a line break").key(key));
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_checked() {
        for (n, ok) in [
            ("alice", true),
            ("svc-web.1", true),
            ("machine$", true),
            ("-x", false),
            ("1000", false),
            ("a:b", false),
            ("a b", false),
            ("", false),
            (".", false),
            ("..", false),
            ("..$", true),
            (".hidden", true),
            ("$", false),
            ("a\u{e9}", false),
            (&"a".repeat(32), true),
            (&"a".repeat(33), false),
        ] {
            assert_eq!(name_ok(n), ok, "{n}");
        }
    }
}
