//! Bare (non-MIME) user-data of each header type, templates, and cloud-config errors.

use super::*;
use crate::error::Severity;
use crate::yaml::YamlError;
use serde_json::json;

/// (input, cloud_config, scripts, boothooks, unhandled, diag codes)
type Case = (
    &'static str,
    Value,
    usize,
    usize,
    usize,
    &'static [&'static str],
);

#[test]
fn header_types_table() {
    let cases: &[Case] = &[
        ("", Value::Null, 0, 0, 0, &[]),
        (
            "#cloud-config\n{\"a\": \"SECRET\"}",
            json!({"a": "SECRET"}),
            0,
            0,
            0,
            &[],
        ),
        ("  #Cloud-Config\n{}", json!({}), 0, 0, 0, &[]),
        ("#cloud-config\n", json!({}), 0, 0, 0, &[]),
        ("#!/bin/sh\necho SECRET\n", Value::Null, 1, 0, 0, &[]),
        (
            "#cloud-boothook\n#!/bin/sh\necho SECRET\n",
            Value::Null,
            0,
            1,
            0,
            &[],
        ),
        // A part-handler is kept for the runner (see `part_handlers_keep_the_parts_after_them`).
        (
            "#part-handler\ndef SECRET(): pass\n",
            Value::Null,
            0,
            0,
            0,
            &[],
        ),
        (
            "SECRET plain text\n",
            Value::Null,
            0,
            0,
            1,
            &["unhandled-part"],
        ),
        (
            "#cloud-config-jsonp\n[{\"op\": \"add\", \"path\": \"/a\", \"value\": \"SECRET\"}]",
            json!({"a": "SECRET"}),
            0,
            0,
            0,
            &[],
        ),
        (
            "#cloud-config-jsonp\n[{\"op\": \"remove\", \"path\": \"/SECRET\"}]",
            Value::Null,
            0,
            0,
            0,
            &["jsonp-failed"],
        ),
        (
            "#cloud-config-jsonp\n[SECRET",
            Value::Null,
            0,
            0,
            0,
            &["jsonp-invalid"],
        ),
        (
            "#cloud-config\n[\"SECRET\"]",
            Value::Null,
            0,
            0,
            0,
            &["cloud-config-type"],
        ),
        (
            "#cloud-config\n\"SECRET\"",
            Value::Null,
            0,
            0,
            0,
            &["cloud-config-type"],
        ),
        (
            "#cloud-config\n{\"SECRET\": ",
            Value::Null,
            0,
            0,
            0,
            &["yaml-syntax"],
        ),
        (
            "#cloud-config\n{\"merge_how\": \"SECRET(x\"}",
            Value::Null,
            0,
            0,
            0,
            &["merge-how-invalid"],
        ),
    ];
    for (input, cfg, scripts, hooks, unhandled, want) in cases {
        let p = run(input);
        assert_eq!(&p.cloud_config, cfg, "{input:?}");
        assert_eq!(p.scripts.len(), *scripts, "{input:?}");
        assert_eq!(p.boothooks.len(), *hooks, "{input:?}");
        assert_eq!(p.unhandled.len(), *unhandled, "{input:?}");
        assert_eq!(codes(&p), *want, "{input:?}");
    }
}

#[test]
fn bare_parts_are_named_after_the_source() {
    let p = run("#cloud-config\n{\"a\": 1}");
    assert_eq!(p.docs.len(), 1);
    assert_eq!(p.docs[0].name, "user-data");
    let p = run("#cloud-config\n\n{\"a\": ");
    let d = &p.diags[0];
    assert_eq!((d.file.as_deref(), d.line), (Some("user-data"), Some(3)));
    assert!(d.is_error());
}

#[test]
fn script_and_boothook_payloads() {
    let p = run("#!/bin/sh\necho SECRET\n");
    let s = &p.scripts[0];
    assert_eq!(
        (s.filename.as_str(), s.frequency),
        ("part-001", Frequency::PerInstance)
    );
    assert_eq!(s.content_type, "text/x-shellscript");
    assert_eq!(payload(s), "#!/bin/sh\necho SECRET\n");
    let p = run("#cloud-boothook\n#!/bin/sh\necho SECRET\n");
    assert_eq!(payload(&p.boothooks[0]), "#!/bin/sh\necho SECRET\n");
}

#[test]
fn unhandled_is_a_warning_without_content() {
    let p = run("SECRET plain text\n");
    assert_eq!(p.diags[0].severity, Severity::Warning);
    assert!(p.diags[0].message.contains("Unhandled non-multipart"));
    assert_eq!(p.unhandled[0].content_type, "text/x-not-multipart");
}

/// Invalid UTF-8 in a mapping key: the error says so, with the line and the key path above
/// it; in a value, with the key that holds it. Never a lossy key, never the bytes.
#[test]
fn invalid_utf8_in_a_key_names_its_line_and_key_path() {
    let run_bytes = |ud: &[u8]| run_with(ud, &Limits::default(), &FakeUrls::default());
    let p = run_bytes(b"#cloud-config\nwrite_files:\n  - path: /etc/x\n    own\xffer: root\n");
    assert_eq!(codes(&p), ["not-utf8"]);
    let d = &p.diags[0];
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("user-data"), Some(4)),
        "{d}"
    );
    assert_eq!(d.key.as_deref(), Some("write_files.0"), "{d}");
    assert!(d.message.contains("invalid UTF-8 in a mapping key"), "{d}");
    assert!(p.cloud_config.as_object().is_none_or(|m| m.is_empty()));
    // In a value: the key that holds it; nested lists and block scalars are walked past.
    let p = run_bytes(
        b"#cloud-config\nruncmd:\n  - ls\n  - |\n    a: b\nusers:\n  - name: u\n  - name: v\n    gecos: G\xc3\n",
    );
    let d = &p.diags[0];
    assert_eq!(
        (d.line, d.key.as_deref()),
        (Some(9), Some("users.1.gecos")),
        "{d}"
    );
    assert!(d.message.contains("invalid UTF-8 in the value"), "{d}");
}

#[test]
fn invalid_utf8_names_part_and_offset() {
    let p = run_with(
        b"#cloud-config\n{\"a\": \"\xff\"}",
        &Limits::default(),
        &FakeUrls::default(),
    );
    assert_eq!(codes(&p), ["not-utf8"]);
    assert!(p.diags[0].message.contains("byte 21"), "{}", p.diags[0]);
    assert_eq!(p.diags[0].file.as_deref(), Some("user-data"));
    // Scripts may be any bytes.
    let p = run_with(
        b"#!/bin/sh\n\xff\xfe",
        &Limits::default(),
        &FakeUrls::default(),
    );
    assert_eq!((p.scripts.len(), p.diags.len()), (1, 0));
}

#[test]
fn jinja_renders_instance_data() {
    let t = "## template: jinja\n#cloud-config\n{\"a\": \"{{ v1.local_hostname }}\", \"b\": \"{{ local_hostname }}\", \"c\": \"{{ ds.meta_data.local_hostname }}\"}";
    let p = run(t);
    assert_eq!(
        p.cloud_config,
        json!({"a": "box1", "b": "box1", "c": "box1"})
    );
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    let p = run("## template: jinja\n#!/bin/sh\necho {{ v1.instance_id }}\n");
    assert_eq!(payload(&p.scripts[0]), "#!/bin/sh\necho i-123");
}

#[test]
fn jinja_undefined_and_errors() {
    let p = run("## template: jinja\n#cloud-config\n{\"a\": \"{{ nope_var }}x\"}");
    assert_eq!(p.cloud_config, json!({"a": "x"}));
    assert_eq!(codes(&p), ["template-undefined"]);
    // Variable names are instance-data key paths, not values: they may be named.
    let p = run("## template: jinja\n#cloud-config\n{\"a\": \"{{ v1.nope }}\"}");
    assert!(p.diags[0].message.contains("v1.nope"));
    let p = run("## template: jinja\n#cloud-config\n{\"a\": \"{{ SECRET }\"}");
    assert_eq!(codes(&p), ["template-error"]);
    assert_eq!(
        (p.diags[0].file.as_deref(), p.diags[0].line),
        (Some("user-data"), Some(3))
    );
    assert_eq!(p.cloud_config, Value::Null);
    // A template may not turn into an include.
    let p = run("## template: jinja\n#include\nhttp://SECRET/\n");
    assert_eq!((codes(&p), p.unhandled.len()), (vec!["unhandled-part"], 1));
}

#[test]
fn archive_items_are_parts() {
    let a = r##"#cloud-config-archive
[
  "#cloud-config\n{\"a\": 1}",
  {"type": "text/x-shellscript", "content": "#!/bin/sh\necho SECRET", "filename": "s.sh"},
  {"content": "#cloud-boothook\necho SECRET"},
  {"type": "text/cloud-config", "content": "{\"l\": [2]}", "Merge-Type": "list(append)+dict(recurse_list)"},
  {"content": "{\"b\": 2}"},
  3
]"##;
    let p = run(a);
    assert_eq!(p.cloud_config, json!({"a": 1, "b": 2, "l": [2]}));
    assert_eq!(p.scripts[0].filename, "s.sh");
    assert_eq!(p.boothooks.len(), 1);
    assert_eq!(codes(&p), ["archive-item"]);
    assert_eq!(p.docs[0].name, "user-data part 1 (part-001)");
    let p = run("#cloud-config-archive\n{\"SECRET\": 1}");
    assert_eq!(codes(&p), ["archive-type"]);
}

#[test]
fn gzip_is_inflated() {
    let z = gz(b"#cloud-config\n{\"z\": true}");
    let p = run_with(&z, &Limits::default(), &FakeUrls::default());
    assert_eq!(p.cloud_config, json!({"z": true}));
    let p = run_with(&z[..z.len() - 4], &Limits::default(), &FakeUrls::default());
    assert_eq!(codes(&p), ["gzip-corrupt"]);
}

/// 200 MiB of zeros as gzip, built from one sync-flushed MiB repeated so the test does not
/// compress 200 MiB. The trailer is never reached, so its checksum does not matter.
fn bomb() -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    let mut c = Compress::new(Compression::fast(), false);
    let mut block = Vec::with_capacity(64 * 1024);
    c.compress_vec(&vec![0u8; 1 << 20], &mut block, FlushCompress::Sync)
        .unwrap();
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    for _ in 0..200 {
        out.extend_from_slice(&block);
    }
    out.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    out
}

#[test]
fn gzip_bomb_stops_at_the_cap() {
    let limits = Limits {
        inflated_bytes: 1 << 20,
        ..Limits::default()
    };
    let started = std::time::Instant::now();
    let p = run_with(&bomb(), &limits, &FakeUrls::default());
    assert!(
        started.elapsed().as_secs() < 10,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(codes(&p), ["budget-exceeded"]);
    assert_eq!(p.diags[0].budget.as_deref(), Some("inflated_bytes"));
}

#[test]
fn yaml_budget_is_passed_on() {
    let limits = Limits::default();
    let urls = FakeUrls::default();
    let idata = instance_data();
    let parse = |_: &str| -> Result<crate::yaml::Doc, YamlError> {
        Err(YamlError {
            line: 7,
            column: 3,
            message: "too many nodes".to_string(),
            budget: Some("yaml_nodes"),
        })
    };
    let ctx = Context {
        limits: &limits,
        urls: &urls,
        parse_yaml: &parse,
        instance_data: &idata,
        once_cache: &NoOnceCache,
    };
    let p = process(b"#cloud-config\n{}", "vendor-data", &ctx);
    let d = &p.diags[0];
    assert_eq!(d.code, "budget-exceeded");
    assert_eq!((d.file.as_deref(), d.line), (Some("vendor-data"), Some(7)));
    assert_eq!(d.budget.as_deref(), Some("yaml_nodes"));
}

#[test]
fn shellscript_type_is_checked_against_content() {
    let m = "MIME-Version: 1.0\nContent-Type: text/x-shellscript\n\n#cloud-config\n{\"a\": 1}\n";
    let p = run(m);
    assert_eq!(
        (p.cloud_config.clone(), p.scripts.len()),
        (json!({"a": 1}), 0)
    );
    // A per-boot script keeps its declared type whatever its content.
    let m = "MIME-Version: 1.0\nContent-Type: text/x-shellscript-per-once\n\necho\n";
    assert_eq!(run(m).scripts[0].frequency, Frequency::PerOnce);
}

#[test]
fn undefined_names_are_bounded() {
    let mut t = String::from("## template: jinja\n#cloud-config\n{\"a\": \"");
    for i in 0..20 {
        t.push_str(&format!("{{{{ undef_{i} }}}}"));
    }
    t.push_str(&format!("{{{{ {} }}}}\"}}", "w".repeat(500)));
    let p = run(&t);
    assert_eq!(codes(&p), ["template-undefined"]);
    let msg = &p.diags[0].message;
    assert!(msg.contains("and 13 more"), "{msg}");
    assert!(msg.len() < 400, "{msg}");
    assert_eq!(p.cloud_config, json!({"a": ""}));
}
