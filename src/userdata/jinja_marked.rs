//! Rendering with cloud-init's marker for a missing variable: where a template prints a
//! variable instance data lacks (`{{ bad }}`, `{{ v1.nope }}`), cloud-init writes
//! `CI_MISSING_JINJA_VAR/` and the missing name (`bad`, `nope`) instead of nothing, so the
//! mistake shows in what the template made. The image's own templated config files are read
//! this way (cloud-init's `read_conf`); user-data templates keep ember's empty string (the manual,
//! "Deliberate differences").
//!
//! minijinja's undefined value carries no name, so a template that printed a missing variable
//! is rendered again with each such plain print (`{{ a.b }}`, whitespace control allowed)
//! replaced by its marker as a string. A missing variable printed through a filter or
//! an expression still renders empty, and is still named in `undefined`.

use super::jinja::{self, Rendered, TemplateError};
use crate::limits::Limits;
use serde_json::Value;

/// What cloud-init writes before a missing variable's name.
pub const MISSING: &str = "CI_MISSING_JINJA_VAR/";

/// [`jinja::render`], with the missing variables printed plainly replaced by their marker.
/// `undefined` lists every missing variable printed, marked or not.
pub fn render(
    template: &str,
    instance_data: &Value,
    limits: &Limits,
) -> Result<Rendered, TemplateError> {
    let first = jinja::render(template, instance_data, limits)?;
    if first.undefined.is_empty() {
        return Ok(first);
    }
    let marked = mark(template, &first.undefined);
    if marked == template {
        return Ok(first);
    }
    let again = jinja::render(&marked, instance_data, limits)?;
    Ok(Rendered {
        text: again.text,
        undefined: first.undefined,
    })
}

/// `template` with every `{{ path }}` whose path is in `missing` printing its marker instead.
fn mark(template: &str, missing: &[String]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        let Some(len) = rest[open + 2..].find("}}") else {
            break;
        };
        let inner = &rest[open + 2..open + 2 + len];
        out.push_str(&rest[..open + 2]);
        // Whitespace control (`{{-`, `-}}`) stays; what lies between is the expression.
        let body = inner.trim_start_matches(['-', '+']);
        let expr_end = body.trim_end_matches(['-', '+']).len();
        let expr = body[..expr_end].trim();
        if is_path(expr) && missing.iter().any(|m| m == expr) {
            let name = expr.rsplit('.').next().unwrap_or(expr);
            out.push_str(&inner[..inner.len() - body.len()]);
            out.push_str(&format!(" \"{MISSING}{name}\" "));
            out.push_str(&body[expr_end..]);
        } else {
            out.push_str(inner);
        }
        out.push_str("}}");
        rest = &rest[open + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

/// A dotted path of plain names (`v1.local_hostname`): nothing a marker could misquote.
fn is_path(expr: &str) -> bool {
    !expr.is_empty()
        && expr.split('.').all(|seg| {
            let mut chars = seg.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str) -> Rendered {
        let data = json!({"v1": {"local_hostname": "h1"}});
        render(template, &data, &Limits::default()).unwrap()
    }

    #[test]
    fn missing_variables_print_their_marker() {
        let r = run("a {{bad}} b {{ v1.local_hostname }} c {{- v1.nope -}} d\n");
        // (Jinja drops the template's one last line break, as Jinja2 does.)
        assert_eq!(
            r.text,
            "a CI_MISSING_JINJA_VAR/bad b h1 cCI_MISSING_JINJA_VAR/noped"
        );
        assert_eq!(r.undefined, ["bad", "v1.nope"]);
    }

    #[test]
    fn only_plain_prints_are_marked() {
        // Tested or filtered, a missing variable is left to Jinja: not defined, and empty.
        let r = run("{% if bad is defined %}yes{% endif %}[{{ bad | upper }}]{{ bad }}");
        assert_eq!(r.text, "[]CI_MISSING_JINJA_VAR/bad");
        assert_eq!(r.undefined, ["bad"]);
        assert_eq!(run("{{ v1.local_hostname }}").text, "h1");
    }
}
