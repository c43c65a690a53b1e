//! Jinja user-data through the whole user-data path: a failed render is one diagnostic naming
//! the part and the line, never the template's text, and a budget names itself.

use crate::limits::Limits;
use serde_json::Value;

fn small(fuel: u64, bytes: u64) -> Limits {
    Limits {
        template_fuel: fuel,
        template_bytes: bytes,
        ..Limits::default()
    }
}

/// A syntax error next to a secret: the Diag names the part and the line and carries
/// minijinja's error kind, but neither it nor the result's Debug quotes the template.
#[test]
fn errors_carry_line_not_text() {
    let secret = "SECRET_tok_8f3a";
    let cases = [
        // Unclosed expression right after the secret.
        format!("## template: jinja\n#cloud-config\nok\n{{{{ \"{secret}\" }}\n"),
        // Unknown filter applied to the secret.
        format!("## template: jinja\n#cloud-config\nok\n{{{{ \"{secret}\" | nofilter }}}}\n"),
        // minijinja's own messages quote these three: the filter's name, the test's
        // name and the included template's name.
        format!("## template: jinja\n#cloud-config\nok\n{{{{ 1 | {secret} }}}}\n"),
        format!("## template: jinja\n#cloud-config\nok\n{{% if 1 is {secret} %}}{{% endif %}}\n"),
        format!("## template: jinja\n#cloud-config\nok\n{{% include \"{secret}\" %}}\n"),
        // Attribute of an undefined named like the secret (fails, as in jinja2).
        format!("## template: jinja\n#cloud-config\nok\n{{{{ {secret}.deeper }}}}\n"),
    ];
    for t in &cases {
        let p = super::run(t);
        assert_eq!(p.diags.len(), 1, "{t}: {:?}", p.diags);
        let d = &p.diags[0];
        assert_eq!(d.code, "template-error", "{t}");
        assert_eq!(d.line, Some(4), "{t}");
        assert_eq!(d.file.as_deref(), Some("user-data"));
        for shown in [d.to_string(), format!("{d:?}"), format!("{p:?}")] {
            assert!(!shown.contains(secret), "{t} leaks: {shown}");
            assert!(!shown.contains("tok_8f3a"), "{t} leaks: {shown}");
        }
        assert_eq!(p.cloud_config, Value::Null, "the part is skipped");
    }
}

#[test]
fn budgets_become_diags_naming_the_part() {
    use super::{codes, instance_data, json_yaml, FakeUrls};
    let idata = instance_data();
    let urls = FakeUrls::default();
    let go = |t: &str, limits: &Limits| {
        let ctx = crate::userdata::Context {
            limits,
            urls: &urls,
            parse_yaml: &json_yaml,
            instance_data: &idata,
            once_cache: &crate::userdata::NoOnceCache,
        };
        crate::userdata::process(t.as_bytes(), "user-data", &ctx)
    };
    let mime = |body: &str| {
        format!(
            "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n\
             Content-Type: text/jinja2\nContent-Disposition: attachment; filename=\"t.j2\"\n\n\
             {body}\n--B\nContent-Type: text/cloud-config\n\n#cloud-config\n{{\"after\": 1}}\n--B--\n"
        )
    };
    let loops = "## template: jinja\n#cloud-config\n{% for a in range(100000) %}\
                 {% for b in range(100000) %}{% endfor %}{% endfor %}";
    let p = go(&mime(loops), &small(10_000, 1 << 20));
    assert_eq!(codes(&p), ["budget-exceeded"]);
    let d = &p.diags[0];
    assert!(d.is_error());
    assert_eq!(d.budget.as_deref(), Some("template_fuel"));
    assert_eq!(d.file.as_deref(), Some("user-data part 1 (t.j2)"));
    // The template part is skipped, the rest is still read.
    assert_eq!(p.cloud_config, serde_json::json!({"after": 1}));

    let big = "## template: jinja\n#cloud-config\n{{ 'x' * 100000 }}";
    let p = go(&mime(big), &small(10_000_000, 1000));
    assert_eq!(codes(&p), ["budget-exceeded"]);
    assert_eq!(p.diags[0].budget.as_deref(), Some("template_bytes"));
    assert_eq!(p.diags[0].file.as_deref(), Some("user-data part 1 (t.j2)"));
    assert_eq!(p.cloud_config, serde_json::json!({"after": 1}));

    // A normal template within the same budgets still renders.
    let ok = "## template: jinja\n#cloud-config\n{\"h\": \"{{ v1.local_hostname }}\"}";
    let p = go(&mime(ok), &small(10_000, 1000));
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    assert_eq!(p.cloud_config, serde_json::json!({"h": "box1", "after": 1}));
}
