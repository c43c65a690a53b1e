//! A small YAML emitter for `serde_json::Value`, for `status --format yaml` and netplan files:
//! block style laid out as PyYAML's dump does it for cloud-init (4-space indent, lists under a
//! key at the key's column, keys in map order). A string is left plain only when every YAML 1.1
//! reader takes it back as that string (PyYAML, libyaml-based readers such as netplan's); else
//! it is single-quoted, or double-quoted with escapes when it holds a line break or a
//! non-printable character. It only writes: it shares nothing with the reader.

use serde_json::Value;

const INDENT: usize = 4;

/// A whole document: `---`, the value, `...`.
pub fn document(v: &Value) -> String {
    let mut out = String::from("---\n");
    out.push_str(&block(v, 0));
    out.push_str("...\n");
    out
}

/// The value as block YAML, each line indented by `indent` spaces; a scalar or an empty
/// collection is one line.
pub fn block(v: &Value, indent: usize) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => emit_map(v, indent, &mut out),
        Value::Array(a) if !a.is_empty() => emit_seq(v, indent, &mut out),
        _ => {
            out.push_str(&" ".repeat(indent));
            out.push_str(&scalar(v));
            out.push('\n');
        }
    }
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

/// Characters a YAML stream may hold as they are (YAML 1.1 `c-printable`, less the line
/// breaks: NEL, LS and PS are line breaks to a YAML 1.1 reader).
fn printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// A string as a plain, single-quoted or double-quoted scalar.
pub fn string(s: &str) -> String {
    if !s.chars().all(printable) {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if printable(c) => out.push(c),
                c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02X}", c as u32)),
                c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04X}", c as u32)),
                c => out.push_str(&format!("\\U{:08X}", c as u32)),
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

/// Whether a plain `s` could be read back as something else, or not as one scalar.
fn needs_quotes(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return true;
    };
    resolves(s)
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || s.starts_with(' ')
        || s.ends_with(' ')
        || s.ends_with(':')
        || s.contains(": ")
        || s.contains(" #")
}

/// Whether a YAML 1.1 reader's implicit resolvers (null, bool, int, float, timestamp, merge,
/// value) would take plain `s` for anything but a string. Errs on the side of quoting: `y`,
/// `n`, `0o17` and `1e5` are quoted though PyYAML reads them as strings, since other readers
/// (YAML 1.2, libyaml users) do not.
fn resolves(s: &str) -> bool {
    const WORDS: [&str; 12] = [
        "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", "<<", "=",
    ];
    let lower = s.to_ascii_lowercase();
    if WORDS.contains(&lower.as_str()) {
        return true;
    }
    let body = lower.strip_prefix(['-', '+']).unwrap_or(&lower);
    if matches!(body, ".inf" | ".nan") {
        return true;
    }
    let digits =
        |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c == '_' || c.is_digit(radix));
    let prefixed = [("0b", 2), ("0o", 8), ("0x", 16)]
        .iter()
        .any(|(p, radix)| body.strip_prefix(p).is_some_and(|t| digits(t, *radix)));
    if prefixed || digits(body, 10) {
        return true;
    }
    // A float (`1.5`, `.5`, `1.`, `1e5`, `1.5e-3`) or a sexagesimal number (`1:30`, `1:30.5`).
    let (mantissa, exponent) = match body.split_once('e') {
        Some((m, e)) => (m, Some(e.strip_prefix(['-', '+']).unwrap_or(e))),
        None => (body, None),
    };
    if exponent.is_none_or(|e| digits(e, 10)) {
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let has_digit = mantissa.chars().any(|c| c.is_ascii_digit());
        let int_ok = int.is_empty() || int.split(':').all(|g| digits(g, 10));
        let frac_ok = frac.is_empty() || digits(frac, 10);
        let dotted = mantissa.contains('.');
        let sexagesimal = exponent.is_none() && int.contains(':');
        if has_digit && int_ok && frac_ok && (dotted || sexagesimal || exponent.is_some()) {
            return true;
        }
    }
    // A timestamp: `2024-02-21`, `2024-2-1t10:00:00z`, …
    let b = s.as_bytes();
    b.len() >= 8 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5].is_ascii_digit()
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
            ("OFF", "'OFF'"),
            ("y", "'y'"),
            ("1.5", "'1.5'"),
            ("-1", "'-1'"),
            ("1_000", "'1_000'"),
            (".5", "'.5'"),
            ("1.", "'1.'"),
            ("1e5", "'1e5'"),
            ("+1.5E-3", "'+1.5E-3'"),
            ("-.inf", "'-.inf'"),
            (".NaN", "'.NaN'"),
            ("0o17", "'0o17'"),
            ("0b101", "'0b101'"),
            ("2024-02-21", "'2024-02-21'"),
            (
                "2001-12-14t21:59:43.10-05:00",
                "'2001-12-14t21:59:43.10-05:00'",
            ),
            ("0x1F", "'0x1F'"),
            ("<<", "'<<'"),
            ("=", "'='"),
            // Sexagesimal to a YAML 1.1 reader: an all-digit MAC is a number.
            ("52:54:00:12:34:56", "'52:54:00:12:34:56'"),
            ("1:30.5", "'1:30.5'"),
            // What netplan files hold most: left plain, as PyYAML leaves them.
            ("52:54:00:aa:bb:01", "52:54:00:aa:bb:01"),
            ("10.0.0.1", "10.0.0.1"),
            ("10.0.0.0/24", "10.0.0.0/24"),
            ("2001:db8::5/64", "2001:db8::5/64"),
            ("fe80::1", "fe80::1"),
            ("802.3ad", "802.3ad"),
            ("layer3+4", "layer3+4"),
            ("1.2.3", "1.2.3"),
            ("::1", "'::1'"),
            ("- item", "'- item'"),
            ("key: value", "'key: value'"),
            ("it's", "it's"),
            ("'quoted'", "'''quoted'''"),
            ("a #comment", "'a #comment'"),
            (" lead", "' lead'"),
            ("line\nnext", "\"line\\nnext\""),
            ("tab\there", "\"tab\\there\""),
            ("nel\u{85}", "\"nel\\x85\""),
            ("ls\u{2028}", "\"ls\\u2028\""),
            ("bom\u{feff}", "\"bom\\uFEFF\""),
            ("é ü", "é ü"),
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

    /// Every string comes back as itself through ember's own YAML 1.1 reader.
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
        assert_eq!(block(&json!({"a": {"b": 1}}), 4), "    a:\n        b: 1\n");
    }

    #[test]
    fn scalar_documents() {
        assert_eq!(document(&json!("x")), "---\nx\n...\n");
        assert_eq!(document(&json!({})), "---\n{}\n...\n");
    }
}
