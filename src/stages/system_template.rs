//! The image's templated config files (`## template: jinja` in /etc/cloud/cloud.cfg and
//! cloud.cfg.d), rendered over the instance data as cloud-init's `read_conf` renders them: a
//! missing variable printed plainly shows cloud-init's marker, with a warning naming it; a
//! template Jinja cannot parse is read as written, one that fails while rendering is ignored.

use crate::config::image::Rendered;
use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use crate::userdata::{jinja, jinja_marked};
use serde_json::Value;

/// Renders one file's `text` (header included) over `data`; problems are warnings on `path`.
pub fn render(
    text: &str,
    path: &str,
    data: &Value,
    limits: &Limits,
    diags: &mut Vec<Diag>,
) -> Rendered {
    let Some((body, header_lines)) = jinja::strip_header(text) else {
        return Rendered::AsWritten;
    };
    match jinja_marked::render(body, data, limits) {
        Ok(r) => {
            if !r.undefined.is_empty() {
                let msg = format!(
                    "template variable(s) not in the instance data, rendered as {}NAME: {}",
                    jinja_marked::MISSING,
                    r.undefined.join(", ")
                );
                diags.push(Diag::warning(Reason::TemplateUndefined, msg).file(path));
            }
            Rendered::Text(r.text)
        }
        Err(e) => {
            let syntax = e.what == minijinja::ErrorKind::SyntaxError.to_string();
            let (outcome, then) = if syntax {
                (Rendered::AsWritten, "read as written")
            } else {
                (Rendered::Ignored, "file ignored")
            };
            let msg = format!("jinja template failed ({}); {then}", e.what);
            let d = Diag::warning(Reason::TemplateError, msg).file(path);
            diags.push(d.line(e.line.map(|l| l + header_lines)));
            outcome
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(text: &str) -> (Option<String>, Vec<(String, Option<u32>)>) {
        let mut diags = Vec::new();
        let data = json!({"v1": {"local_hostname": "h1"}});
        let out = match render(
            text,
            "/etc/cloud/cloud.cfg",
            &data,
            &Limits::default(),
            &mut diags,
        ) {
            Rendered::Text(t) => Some(t),
            Rendered::AsWritten => Some("as written".into()),
            Rendered::Ignored => None,
        };
        (out, diags.into_iter().map(|d| (d.code, d.line)).collect())
    }

    #[test]
    fn outcomes_as_cloud_init_reads_them() {
        let (out, diags) = run("## template: jinja\na: {{ v1.local_hostname }}\nb: {{ nope }}\n");
        assert_eq!(out.as_deref(), Some("a: h1\nb: CI_MISSING_JINJA_VAR/nope"));
        assert_eq!(diags, [("template-undefined".to_string(), None)]);
        // Jinja cannot parse it: the file is read as it is, the line named as in the file.
        let (out, diags) = run("## template: jinja\na: 1\nb: {% if %}\n");
        assert_eq!(out.as_deref(), Some("as written"));
        assert_eq!(diags, [("template-error".to_string(), Some(3))]);
        // An attribute of a missing variable fails the render: the file gives nothing.
        let (out, diags) = run("## template: jinja\na: {{ nope.deeper }}\n");
        assert_eq!(out, None);
        assert_eq!(diags[0].0, "template-error");
    }
}
