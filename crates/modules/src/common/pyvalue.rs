//! How cloud-init's Python modules see a cloud-config value, for the modules that write what
//! they were given into a file or onto a command line: Python's truth (`if value:`), `str()`
//! and `util.translate_bool`. Pure functions of a JSON value; they read no key and report
//! nothing.

use serde_json::Value;

/// Python's truth of the value: `None`, `False`, `0`, `""`, `[]` and `{}` are false.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// Python's `str(value)`: `True`, `None`, `5`, `1.5`, `['a', 1]`, `{'k': 'v'}`; a string as
/// it is.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr(value)`, as `str()` shows the items of a list or a mapping.
fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            // Python quotes with ' unless the text holds ' and no ".
            let q = if s.contains('\'') && !s.contains('"') {
                '"'
            } else {
                '\''
            };
            let mut out = String::from(q);
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c if c == q => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push(q);
            out
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", py_repr(&Value::String(k.clone())), py_repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// cloud-init's `util.translate_bool`: false for anything Python calls false, a boolean as
/// it is, else true only for `true`, `1`, `on`, `yes` (any case, spaces trimmed) as text.
pub fn translate_bool(v: Option<&Value>) -> bool {
    match v {
        None => false,
        Some(v) if !truthy(v) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            let s = py_str(v).trim().to_ascii_lowercase();
            matches!(s.as_str(), "true" | "1" | "on" | "yes")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn truth_and_text_as_python_has_them() {
        for v in [
            json!(null),
            json!(false),
            json!(0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!truthy(&v), "{v}");
        }
        for v in [
            json!(true),
            json!(2),
            json!("no"),
            json!([0]),
            json!({"a": 0}),
        ] {
            assert!(truthy(&v), "{v}");
        }
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(8443)), "8443");
        assert_eq!(py_str(&json!(1.5)), "1.5");
        assert_eq!(py_str(&json!("x y")), "x y");
        assert_eq!(py_str(&json!(["a", 1, false])), "['a', 1, False]");
        assert_eq!(py_str(&json!({"k": "it's"})), "{'k': \"it's\"}");
    }

    #[test]
    fn translate_bool_takes_four_words() {
        let t = |v: Value| translate_bool(Some(&v));
        assert!(t(json!(true)) && t(json!("Yes")) && t(json!(" on ")) && t(json!(1)));
        assert!(!t(json!("nah")) && !t(json!(false)) && !t(json!(0)) && !t(json!(["x"])));
        assert!(!translate_bool(None));
    }
}
