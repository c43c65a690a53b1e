//! `## template: jinja` user-data: renders a part over instance data the way cloud-init
//! exposes it to templates. Rendering only; the caller re-reads the result by its header.
//!
//! <https://docs.cloud-init.io/en/latest/explanation/instancedata.html>
//!
//! Architecture invariant: the one Jinja of ember, linked by the initramfs side only. The
//! runner and the modules never link it: a module that renders a template takes it through
//! `ember_core::template::Jinja` (the initramfs stage hands this crate in), and the runner's
//! modules hand templates to `ember-initrd render`.

use base64::Engine as _;
use ember_core::limits::Limits;
use minijinja::value::{from_args, Value as JinjaValue};
use minijinja::{
    escape_formatter, syntax::SyntaxConfig, Environment, Error, ErrorKind, State, UndefinedBehavior,
};
use serde_json::{Map, Value};
use std::fmt::{self, Write as _};
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The header line that marks a template (matched case-insensitively after leading blanks).
pub const HEADER: &str = "## template: jinja";

pub use ember_core::template::{Rendered, TemplateError};

/// minijinja, as the seam `ember_core::template::Jinja` takes it: what the initramfs stage
/// hands its modules.
pub struct MiniJinja;

impl ember_core::template::Jinja for MiniJinja {
    fn render(
        &self,
        template: &str,
        vars: &Value,
        limits: &Limits,
    ) -> Result<Rendered, TemplateError> {
        render(template, vars, limits)
    }
}

/// Removes the header line: the template body and how many lines were removed, or `None`
/// when `text` does not start with the header.
pub fn strip_header(text: &str) -> Option<(&str, u32)> {
    let trimmed = text.trim_start();
    let head = trimmed.get(..HEADER.len())?;
    if !head.eq_ignore_ascii_case(HEADER) {
        return None;
    }
    let skipped = text[..text.len() - trimmed.len()].matches('\n').count() as u32;
    Some(match trimmed.split_once('\n') {
        Some((_, rest)) => (rest, skipped + 1),
        None => ("", skipped),
    })
}

/// Renders `template` (header already removed) over `instance_data`, within the
/// `template_fuel` and `template_bytes` budgets of `limits` (RELIABILITY rule 9).
///
/// Fuel bounds the work and the data a render creates (minijinja charges about one fuel per
/// instruction and per 64 bytes, and refuses a sized allocation such as `"x" * n` before
/// making it when the fuel left cannot pay for it). The output is written into a buffer
/// that refuses to grow past `template_bytes`, so the result is never larger than that.
pub fn render(
    template: &str,
    instance_data: &Value,
    limits: &Limits,
) -> Result<Rendered, TemplateError> {
    let vars = jinja_vars(instance_data);
    let mut env = Environment::new();
    // cloud-init's environment: trim_blocks on, printing an undefined is not fatal but an
    // attribute of an undefined is (jinja2's default Undefined).
    if let Ok(syntax) = SyntaxConfig::builder().trim_blocks(true).build() {
        env.set_syntax(syntax);
    }
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    // Jinja2 templates call Python's str and dict methods (`.split('.')[0]`, `.lower()`,
    // `.get()`); minijinja has none of its own. They pay fuel for what they create.
    env.set_unknown_method_callback(python_methods);
    env.set_fuel(Some(limits.template_fuel));
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
        budget: (e.kind() == ErrorKind::OutOfFuel).then_some("template_fuel"),
    };
    let tmpl = env
        .template_from_named_str("user-data", template)
        .map_err(err)?;
    let mut out = CappedBuf::new(limits.template_bytes);
    let rendered = tmpl.render_captured_to(minijinja::value::Serde(&vars), &mut out);
    if out.over {
        // Whatever error minijinja made of the refused write, the cause is the budget.
        return Err(TemplateError {
            what: "output too large".to_string(),
            line: rendered.err().and_then(|e| err(e).line),
            budget: Some("template_bytes"),
        });
    }
    drop(rendered.map_err(err)?);
    // Written through `fmt::Write`, so whole `str`s: UTF-8 unless cut, and it never is.
    let text = String::from_utf8(out.buf)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let mut undefined = Vec::new();
    if printed_undefined.load(Ordering::Relaxed) > 0 {
        let mut names: Vec<String> = tmpl
            .undeclared_variables(true)
            .into_iter()
            .filter(|p| !resolves(&vars, p) && !GLOBALS.contains(&p.as_str()))
            .collect();
        ember_core::sort::sort(&mut names);
        undefined = names;
    }
    Ok(Rendered { text, undefined })
}

/// minijinja-contrib's Python methods, less the two that could allocate without paying:
/// `str.format` (formats without the render's state, so `'{:>4000000000}'.format('')`
/// makes a 4 GB string uncharged) is refused like a method that does not exist — the
/// `format` filter does the same work within the budget — and `str.join` pays for every
/// byte it writes, not only for the separators.
fn python_methods(
    state: &mut State,
    value: &JinjaValue,
    method: &str,
    args: &[JinjaValue],
) -> Result<JinjaValue, Error> {
    match (value.as_str(), method) {
        (Some(_), "format") => Err(Error::new(
            ErrorKind::UnknownMethod,
            "str.format is not supported; use the format filter",
        )),
        (Some(sep), "join") => join(state, sep, args),
        _ => minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args),
    }
}

/// `sep.join(items)`, charging fuel before each write, so `''.join([big] * n)` runs out of
/// fuel instead of building n copies first.
fn join(state: &State, sep: &str, args: &[JinjaValue]) -> Result<JinjaValue, Error> {
    let (items,): (&JinjaValue,) = from_args(args)?;
    let mut out = PaidString {
        state,
        text: String::new(),
        unpaid: 0,
        refused: None,
    };
    // `checked`: an item that is an error (fuel ran out while iterating) stops the join.
    for (i, item) in items.try_iter()?.checked().enumerate() {
        let item = item?;
        let written = if i > 0 {
            out.write_str(sep).and_then(|()| write!(out, "{item}"))
        } else {
            write!(out, "{item}")
        };
        if written.is_err() {
            return Err(out
                .refused
                .unwrap_or_else(|| Error::from(ErrorKind::WriteFailure)));
        }
    }
    Ok(JinjaValue::from(out.text))
}

/// A string that pays the render's fuel (one per 64 bytes, as minijinja charges) before it
/// grows.
struct PaidString<'a, 'b> {
    state: &'a State<'b, 'b>,
    text: String,
    unpaid: u64,
    refused: Option<Error>,
}

impl fmt::Write for PaidString<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.unpaid = self.unpaid.saturating_add(s.len() as u64);
        if let Err(e) = self.state.consume_fuel(self.unpaid / 64) {
            self.refused = Some(e);
            return Err(fmt::Error);
        }
        self.unpaid %= 64;
        self.text.push_str(s);
        Ok(())
    }
}

/// The render's output: refuses (and remembers refusing) any write that would take it past
/// `cap` bytes, so a template printing gigabytes stops at the cap instead of allocating.
struct CappedBuf {
    buf: Vec<u8>,
    cap: usize,
    over: bool,
}

impl CappedBuf {
    fn new(cap: u64) -> CappedBuf {
        CappedBuf {
            buf: Vec::new(),
            cap: usize::try_from(cap).unwrap_or(usize::MAX),
            over: false,
        }
    }
}

impl io::Write for CappedBuf {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.over || data.len() > self.cap - self.buf.len() {
            self.over = true;
            return Err(io::Error::other("template output budget exceeded"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
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
    ember_core::sort::sort(&mut keys);
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
            assert_eq!(
                render(tmpl, &data(), &Limits::default()).unwrap().text,
                want,
                "{tmpl}"
            );
        }
    }

    #[test]
    fn undefined_is_reported_by_path() {
        let r = render(
            "x={{ v1.nope }} {{ other }} {{ local_hostname }}",
            &data(),
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(r.text, "x=  box");
        assert_eq!(
            r.undefined,
            vec!["other".to_string(), "v1.nope".to_string()]
        );
        // An undefined that is only tested, never printed, is not reported.
        assert!(render(
            "{% if x is defined %}{% endif %}",
            &data(),
            &Limits::default()
        )
        .unwrap()
        .undefined
        .is_empty());
    }

    fn small(fuel: u64, bytes: u64) -> Limits {
        Limits {
            template_fuel: fuel,
            template_bytes: bytes,
            ..Limits::default()
        }
    }

    #[test]
    fn nested_loops_run_out_of_fuel_fast() {
        let t = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}";
        let started = std::time::Instant::now();
        let e = render(t, &data(), &small(100_000, 1 << 20)).err().unwrap();
        assert_eq!(e.budget, Some("template_fuel"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // The default budget stops it too, just later.
        let e = render(t, &data(), &Limits::default()).err().unwrap();
        assert_eq!(e.budget, Some("template_fuel"));
    }

    #[test]
    fn huge_strings_are_refused_before_they_exist() {
        // A gigabyte is more than the default fuel can pay for: refused before allocating.
        let e = render("{{ 'x' * 1000000000 }}", &data(), &Limits::default())
            .err()
            .unwrap();
        assert_eq!(e.budget, Some("template_fuel"));
    }

    #[test]
    fn output_is_capped_at_template_bytes() {
        let cases = [
            "{{ 'x' * 10000 }}",
            "{% for i in range(1000) %}0123456789{% endfor %}",
            "{% for i in range(100) %}{{ 'y' * 100 }}{% endfor %}",
        ];
        for t in cases {
            let e = render(t, &data(), &small(10_000_000, 4096)).err().unwrap();
            assert_eq!(e.budget, Some("template_bytes"), "{t}");
            // Exactly at the cap is fine.
            let r = render(t, &data(), &small(10_000_000, 10_000)).unwrap();
            assert_eq!(r.text.len(), 10_000, "{t}");
        }
    }

    #[test]
    fn header_is_stripped() {
        assert_eq!(
            strip_header("## Template: Jinja\n#cloud-config\n"),
            Some(("#cloud-config\n", 1))
        );
        assert_eq!(
            strip_header("\n  ## template: jinja"),
            Some(("", 1)),
            "a header alone, after a blank line"
        );
        assert_eq!(strip_header("#cloud-config\n"), None);
        assert_eq!(strip_header("## template"), None);
    }
}
