//! JSON as Python's `json.dumps(obj)` writes it (cloud-init writes chef's firstboot.json so):
//! one line, `", "` between items and `": "` after keys, non-ASCII escaped as `\uXXXX`.
//! Keys come in the order the value holds them.

pub use crate::yaml_emit::python_exponent;
use serde_json::Value;
use std::fmt::Write;

pub fn dumps(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v);
    out
}

/// A JSON object of `pairs` in their order (a Python dict keeps insertion order; the
/// handoff's mappings are sorted).
pub fn dumps_pairs(pairs: &[(String, Value)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        string(&mut out, k);
        out.push_str(": ");
        write(&mut out, v);
    }
    out.push('}');
    out
}

fn write(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                string(out, k);
                out.push_str(": ");
                write(out, item);
            }
            out.push('}');
        }
    }
}

/// Python's float repr keeps `.0` on whole numbers (`1.0`, as serde_json writes them too);
/// integers are as written. JSON has no NaN or infinity.
fn number(n: &serde_json::Number) -> String {
    let s = n.to_string();
    if n.is_f64() {
        return python_exponent(&s, false);
    }
    s
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each expected text is what Python 3's `json.dumps` prints for the same value.
    #[test]
    fn writes_what_python_writes() {
        let cases = [
            (json!({}), "{}"),
            (
                json!({"run_list": ["recipe[apache2]", "role[db]"]}),
                r#"{"run_list": ["recipe[apache2]", "role[db]"]}"#,
            ),
            (
                json!({"a": {"b": [1, 2.5, 3.0, true, null, 1e17, 1e-7]}, "c": "d"}),
                r#"{"a": {"b": [1, 2.5, 3.0, true, null, 1e+17, 1e-07]}, "c": "d"}"#,
            ),
            (
                json!("caf\u{e9} \u{1F600} \"q\"\\/\n\u{1}"),
                r#""caf\u00e9 \ud83d\ude00 \"q\"\\/\n\u0001""#,
            ),
        ];
        for (v, want) in cases {
            assert_eq!(dumps(&v), want);
        }
        let pairs = [
            ("run_list".to_string(), json!(["a"])),
            ("b".into(), json!(1)),
        ];
        assert_eq!(dumps_pairs(&pairs), r#"{"run_list": ["a"], "b": 1}"#);
    }
}
