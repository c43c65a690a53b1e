//! A tiny YAML emitter for `serde_json::Value`, enough for `status --format yaml`: block style,
//! laid out as cloud-init's PyYAML dump (4-space indent, indentless lists under keys, `---` and
//! `...` markers). Strings are quoted whenever a YAML 1.1 reader could take them for anything
//! else. It only writes; ember's runner never parses YAML.

use serde_json::Value;

const INDENT: usize = 4;

/// A whole document: `---`, the value, `...`.
pub fn document(v: &Value) -> String {
    let mut out = String::from("---\n");
    match v {
        Value::Object(m) if !m.is_empty() => emit_map(v, 0, &mut out),
        Value::Array(a) if !a.is_empty() => emit_seq(v, 0, &mut out),
        _ => {
            out.push_str(&scalar(v));
            out.push('\n');
        }
    }
    out.push_str("...\n");
    out
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn emit_map(v: &Value, indent: usize, out: &mut String) {
    let Value::Object(map) = v else { return };
    for (k, val) in map {
        out.push_str(&" ".repeat(indent));
        out.push_str(&string(k));
        out.push(':');
        match val {
            Value::Object(_) if is_block(val) => {
                out.push('\n');
                emit_map(val, indent + INDENT, out);
            }
            // PyYAML's default: a list under a key starts at the key's column.
            Value::Array(_) if is_block(val) => {
                out.push('\n');
                emit_seq(val, indent, out);
            }
            _ => {
                out.push(' ');
                out.push_str(&scalar(val));
                out.push('\n');
            }
        }
    }
}

fn emit_seq(v: &Value, indent: usize, out: &mut String) {
    let Value::Array(items) = v else { return };
    for item in items {
        if is_block(item) {
            // Lay the item out one level in, then put the dash into its first line's indent.
            let mut inner = String::new();
            if item.is_object() {
                emit_map(item, indent + INDENT, &mut inner);
            } else {
                emit_seq(item, indent + INDENT, &mut inner);
            }
            out.push_str(&" ".repeat(indent));
            out.push('-');
            out.push_str(&" ".repeat(INDENT - 1));
            out.push_str(&inner[indent + INDENT..]);
        } else {
            out.push_str(&" ".repeat(indent));
            out.push_str("- ");
            out.push_str(&scalar(item));
            out.push('\n');
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// A string as a plain, single-quoted or (with control characters) double-quoted scalar.
fn string(s: &str) -> String {
    if s.chars().any(|c| c.is_control()) {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() && (c as u32) < 0x100 => {
                    out.push_str(&format!("\\x{:02X}", c as u32))
                }
                c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    } else if needs_quotes(s) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        s.to_string()
    }
}

fn needs_quotes(s: &str) -> bool {
    const SPECIAL: [&str; 14] = [
        "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "-.inf", "+.inf",
        ".nan",
    ];
    let Some(first) = s.chars().next() else {
        return true;
    };
    let lower = s.to_ascii_lowercase();
    // Numbers, dates and times in any YAML 1.1 spelling: `1_000`, `0x1f`, `1:30`, `2024-01-01`.
    let numberish = (first.is_ascii_digit() || "+-.".contains(first))
        && s.chars()
            .all(|c| c.is_ascii_hexdigit() || "xXoO_.:+- ".contains(c));
    SPECIAL.contains(&lower.as_str())
        || numberish
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || s.starts_with(' ')
        || s.ends_with(' ')
        || s.ends_with(':')
        || s.contains(": ")
        || s.contains(" #")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_are_quoted_when_ambiguous() {
        let cases = [
            ("done", "done"),
            ("degraded done", "degraded done"),
            ("", "''"),
            ("yes", "'yes'"),
            ("Null", "'Null'"),
            ("1.5", "'1.5'"),
            ("2024-02-21", "'2024-02-21'"),
            ("0x1F", "'0x1F'"),
            ("- item", "'- item'"),
            ("key: value", "'key: value'"),
            ("it's", "it's"),
            ("'quoted'", "'''quoted'''"),
            ("a #comment", "'a #comment'"),
            ("line\nnext", "\"line\\nnext\""),
            ("tab\there", "\"tab\\there\""),
            (
                "Wed, 21 Feb 2024 21:27:24 +0000",
                "Wed, 21 Feb 2024 21:27:24 +0000",
            ),
            (
                "DataSourceNoCloud [seed=/dev/sr0]",
                "DataSourceNoCloud [seed=/dev/sr0]",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(string(input), want, "input {input:?}");
        }
    }

    #[test]
    fn block_layout_matches_pyyaml() {
        let v = json!({
            "errors": [],
            "recoverable_errors": {"WARNING": ["a", "b"]},
            "stage": null,
            "start": 1.5,
            "init": {"errors": [], "finished": null, "recoverable_errors": {}},
            "list": [{"a": 1, "b": [true]}, ["x"], "s"],
        });
        let want = "---
errors: []
init:
    errors: []
    finished: null
    recoverable_errors: {}
list:
-   a: 1
    b:
    - true
-   - x
- s
recoverable_errors:
    WARNING:
    - a
    - b
stage: null
start: 1.5
...
";
        assert_eq!(document(&v), want);
    }

    #[test]
    fn scalar_documents() {
        assert_eq!(document(&json!("x")), "---\nx\n...\n");
        assert_eq!(document(&json!({})), "---\n{}\n...\n");
    }
}
