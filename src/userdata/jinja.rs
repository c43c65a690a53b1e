//! `## template: jinja` user-data: renders a part over instance data the way cloud-init
//! exposes it to templates. Rendering only; the caller re-reads the result by its header.
//!
//! <https://docs.cloud-init.io/en/latest/explanation/instancedata.html>

use base64::Engine as _;
use minijinja::{escape_formatter, syntax::SyntaxConfig, Environment, UndefinedBehavior};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The header line that marks a template (matched case-insensitively after leading blanks).
pub const HEADER: &str = "## template: jinja";

pub struct Rendered {
    pub text: String,
    /// Variable paths that were printed while undefined (they rendered as empty strings).
    pub undefined: Vec<String>,
}

/// What went wrong, free of template text: minijinja's error kind and the line.
#[derive(Debug, PartialEq, Eq)]
pub struct TemplateError {
    pub what: String,
    pub line: Option<u32>,
}

/// Removes the header line; returns the template body and how many lines were removed.
pub fn strip_header(text: &str) -> (&str, u32) {
    let trimmed = text.trim_start();
    if trimmed.to_lowercase().starts_with(HEADER) {
        let skipped = text[..text.len() - trimmed.len()].matches('\n').count() as u32;
        return match trimmed.split_once('\n') {
            Some((_, rest)) => (rest, skipped + 1),
            None => ("", skipped),
        };
    }
    (text, 0)
}

/// Renders `template` (header already removed) over `instance_data`.
pub fn render(template: &str, instance_data: &Value) -> Result<Rendered, TemplateError> {
    let vars = jinja_vars(instance_data);
    let mut env = Environment::new();
    // cloud-init's environment: trim_blocks on, printing an undefined is not fatal but an
    // attribute of an undefined is (jinja2's default Undefined).
    if let Ok(syntax) = SyntaxConfig::builder().trim_blocks(true).build() {
        env.set_syntax(syntax);
    }
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    let printed_undefined = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&printed_undefined);
    env.set_formatter(move |out, state, value| {
        if value.is_undefined() {
            counter.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        escape_formatter(out, state, value)
    });
    let err = |e: minijinja::Error| TemplateError {
        what: e.kind().to_string(),
        line: e.line().and_then(|l| u32::try_from(l).ok()),
    };
    let tmpl = env
        .template_from_named_str("user-data", template)
        .map_err(err)?;
    let text = tmpl.render(minijinja::value::Serde(&vars)).map_err(err)?;
    let mut undefined = Vec::new();
    if printed_undefined.load(Ordering::Relaxed) > 0 {
        let mut names: Vec<String> = tmpl
            .undeclared_variables(true)
            .into_iter()
            .filter(|p| !resolves(&vars, p) && !GLOBALS.contains(&p.as_str()))
            .collect();
        names.sort();
        undefined = names;
    }
    Ok(Rendered { text, undefined })
}

/// minijinja's global functions, which `undeclared_variables` lists but always resolve.
const GLOBALS: &[&str] = &["range", "dict", "namespace", "debug", "loop"];

fn resolves(vars: &Value, path: &str) -> bool {
    let mut cur = vars;
    for seg in path.split('.') {
        match cur.get(seg) {
            Some(v) => cur = v,
            None => return false,
        }
    }
    true
}

/// cloud-init's template variables from instance data: keys listed in
/// `base64-encoded-keys` decoded, every `vN` mapping's keys copied to its parent, and every
/// key with an operator character (`-`, `.`, …) also reachable with `_` instead.
pub fn jinja_vars(instance_data: &Value) -> Value {
    let decode: Vec<String> = instance_data
        .get("base64-encoded-keys")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    match instance_data {
        Value::Object(m) => Value::Object(convert(m, "", &decode)),
        other => other.clone(),
    }
}

fn convert(data: &Map<String, Value>, prefix: &str, decode: &[String]) -> Map<String, Value> {
    let mut out = Map::new();
    // Sorted, so later keys override earlier ones exactly as cloud-init's loop does.
    let mut keys: Vec<&String> = data.keys().collect();
    keys.sort();
    for key in keys {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}/{key}")
        };
        let mut value = data[key].clone();
        if decode
            .iter()
            .any(|d| *d == path || *d == path.replace('-', "_"))
        {
            if let Some(b) = value
                .as_str()
                .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
            {
                value = Value::String(String::from_utf8_lossy(&b).into_owned());
            }
        }
        if let Value::Object(m) = &value {
            let inner = convert(m, &path, decode);
            if is_version_key(key) {
                for (k, v) in &inner {
                    out.insert(k.clone(), v.clone());
                }
            }
            value = Value::Object(inner);
        }
        let alias: String = key
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if alias != *key {
            out.insert(alias, value.clone());
        }
        out.insert(key.clone(), value);
    }
    out
}

/// `v1`, `v2`, …: versioned instance-data namespaces.
fn is_version_key(key: &str) -> bool {
    key.strip_prefix('v')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn data() -> Value {
        json!({
            "v1": {"local_hostname": "box", "cloud-name": "nocloud"},
            "ds": {"meta-data": {"instance-id": "i-1"}, "secret": "aGk="},
            "base64-encoded-keys": ["ds/secret"],
        })
    }

    #[test]
    fn variables_table() {
        let cases = [
            ("{{ v1.local_hostname }}", "box"),
            ("{{ local_hostname }}", "box"),
            ("{{ cloud_name }}/{{ v1.cloud_name }}", "nocloud/nocloud"),
            ("{{ ds.meta_data.instance_id }}", "i-1"),
            ("{{ ds['meta-data']['instance-id'] }}", "i-1"),
            ("{{ ds.secret }}", "hi"),
            ("{% if v1 %}\nyes\n{% endif %}\n", "yes\n"),
            ("a{{ nothing }}b", "ab"),
        ];
        for (tmpl, want) in cases {
            assert_eq!(render(tmpl, &data()).unwrap().text, want, "{tmpl}");
        }
    }

    #[test]
    fn undefined_is_reported_by_path() {
        let r = render("x={{ v1.nope }} {{ other }} {{ local_hostname }}", &data()).unwrap();
        assert_eq!(r.text, "x=  box");
        assert_eq!(
            r.undefined,
            vec!["other".to_string(), "v1.nope".to_string()]
        );
        // An undefined that is only tested, never printed, is not reported.
        assert!(render("{% if x is defined %}{% endif %}", &data())
            .unwrap()
            .undefined
            .is_empty());
    }

    #[test]
    fn errors_carry_line_not_text() {
        let e = render("ok\n{{ secret_token_value }\n", &data())
            .err()
            .unwrap();
        assert_eq!(e.line, Some(2));
        assert!(!e.what.contains("secret_token_value"));
        // Attribute of an undefined fails, as in jinja2.
        assert!(render("{{ nope.deeper }}", &data()).is_err());
    }

    #[test]
    fn header_is_stripped() {
        assert_eq!(
            strip_header("## Template: Jinja\n#cloud-config\n"),
            ("#cloud-config\n", 1)
        );
        assert_eq!(strip_header("#cloud-config\n"), ("#cloud-config\n", 0));
    }
}
