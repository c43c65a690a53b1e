//! MIME multipart user-data: part types, naming, nesting, encodings and merging.

use super::*;
use serde_json::json;

/// Three parts: a cloud-config, a base64 script with a filename, and a nested multipart
/// holding a per-boot script and a text/plain part whose first line makes it cloud-config.
const THREE_PARTS: &str = "Content-Type: multipart/mixed; boundary=\"==OUTER==\"\r
MIME-Version: 1.0\r
\r
This is the preamble.\r
--==OUTER==\r
Content-Type: text/cloud-config; charset=\"us-ascii\"\r
Content-Transfer-Encoding: 7bit\r
Content-Disposition: attachment;\r
 filename=\"cloud-config.txt\"\r
\r
#cloud-config\r
{\"runcmd\": [\"one\"], \"users\": {\"a\": 1}, \"k\": \"SECRET\"}\r
--==OUTER==\r
Content-Type: text/x-shellscript\r
Content-Transfer-Encoding: base64\r
Content-Disposition: attachment; filename=\"first.sh\"\r
\r
IyEvYmluL3NoCmVjaG8gU0VDUkVUCg==\r
--==OUTER==\r
Content-Type: multipart/alternative; boundary=inner\r
\r
--inner\r
Content-Type: text/x-shellscript-per-boot\r
\r
#!/bin/sh\r
echo boot\r
--inner\r
Content-Type: text/plain\r
\r
#cloud-config\r
{\"runcmd\": [\"two\"], \"users\": {\"b\": 2}}\r
--inner--\r
--==OUTER==--\r
epilogue\r
";

#[test]
fn three_parts_with_base64_and_nested_multipart() {
    let p = run(THREE_PARTS);
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    // Default dict(replace): the later part's keys replace whole values, lists included.
    assert_eq!(
        p.cloud_config,
        json!({"runcmd": ["two"], "users": {"b": 2}, "k": "SECRET"})
    );
    let names: Vec<&str> = p.docs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "user-data part 1 (cloud-config.txt)",
            "user-data part 4 (part-004)"
        ]
    );
    let scripts: Vec<(&str, Frequency)> = p
        .scripts
        .iter()
        .map(|s| (s.filename.as_str(), s.frequency))
        .collect();
    assert_eq!(
        scripts,
        [
            ("first.sh", Frequency::PerInstance),
            ("part-003", Frequency::PerBoot)
        ]
    );
    assert_eq!(payload(&p.scripts[0]), "#!/bin/sh\necho SECRET\n");
    assert_eq!(payload(&p.scripts[1]), "#!/bin/sh\r\necho boot");
}

fn two_configs(first: &str, second_headers: &str, second: &str) -> Processed {
    let m = format!(
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n\
         Content-Type: text/cloud-config\n\n#cloud-config\n{first}\n--B\n\
         Content-Type: text/cloud-config\n{second_headers}\n#cloud-config\n{second}\n--B--\n"
    );
    run(&m)
}

#[test]
fn merging_table() {
    let a = r#"{"runcmd": ["a"], "d": {"x": 1}, "s": "p"}"#;
    let cases = [
        // cloud-init's default for parts, dict(replace)+list()+str().
        (
            "",
            r#"{"runcmd": ["b"], "d": {"y": 2}}"#,
            json!({"runcmd": ["b"], "d": {"y": 2}, "s": "p"}),
        ),
        // Merge-Type header.
        (
            "Merge-Type: list(append)+dict(recurse_array)+str()\n",
            r#"{"runcmd": ["b"], "d": {"y": 2}}"#,
            json!({"runcmd": ["a", "b"], "d": {"x": 1, "y": 2}, "s": "p"}),
        ),
        (
            "X-Merge-Type: dict(recurse_str)+str(append)\n",
            r#"{"s": "q"}"#,
            json!({"runcmd": ["a"], "d": {"x": 1}, "s": "pq"}),
        ),
        // merge_how in the part, string form.
        (
            "",
            r#"{"merge_how": "list(append)+dict(no_replace,recurse_list)+str()", "runcmd": ["b"]}"#,
            json!({"runcmd": ["a", "b"], "d": {"x": 1}, "s": "p"}),
        ),
        // merge_how in the part, list form; it wins over the header for the same type.
        (
            "Merge-Type: list(prepend)+dict(recurse_list)\n",
            r#"{"merge_how": [{"name": "list", "settings": ["append"]}], "runcmd": ["b"]}"#,
            json!({"runcmd": ["a", "b"], "d": {"x": 1}, "s": "p"}),
        ),
        (
            "",
            r#"{"merge_type": "dict(allow_delete)", "d": null}"#,
            json!({"runcmd": ["a"], "s": "p"}),
        ),
    ];
    for (headers, second, want) in cases {
        let p = two_configs(a, headers, second);
        assert!(p.diags.is_empty(), "{second}: {:?}", p.diags);
        assert_eq!(p.cloud_config, want, "{headers}{second}");
    }
}

#[test]
fn bad_merge_type_header_and_typo() {
    let p = two_configs("{}", "Merge-Type: list(append\n", "{\"a\": 1}");
    assert_eq!(codes(&p), ["merge-how-invalid"]);
    assert_eq!(
        p.diags[0].file.as_deref(),
        Some("user-data part 2 (part-002)")
    );
    let p = two_configs("{}", "", r#"{"merge_how": "list(apend)+dict()", "a": 1}"#);
    assert_eq!(codes(&p), ["merge-how-unknown"]);
    assert_eq!(p.cloud_config, json!({"a": 1}));
}

#[test]
fn jsonp_patches_what_came_before() {
    let m = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n\
             Content-Type: text/cloud-config\n\n#cloud-config\n{\"packages\": [\"a\"]}\n--B\n\
             Content-Type: text/cloud-config-jsonp\n\n\
             [{\"op\": \"add\", \"path\": \"/packages/-\", \"value\": \"b\"}]\n--B--\n";
    assert_eq!(run(m).cloud_config, json!({"packages": ["a", "b"]}));
}

#[test]
fn part_handlers_keep_the_parts_after_them() {
    // An unknown part before the handler is reported; after it, unknown and plain parts are
    // kept for the handler, and what ember handles itself (a script) stays ember's.
    let m = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n\
             Content-Type: text/x-SECRET-thing\n\nSECRET\n--B\n\
             Content-Type: text/part-handler; name=h.py\n\n#part-handler\nSECRET\n--B\n\
             Content-Type: application/octet-stream\n\n#!/bin/sh\n--B\n\
             Content-Type: text/plain\n\nno header SECRET\n--B\n\
             Content-Type: text/x-SECRET-thing\n\nmore\n--B--\n";
    let p = run(m);
    assert_eq!(codes(&p), ["unhandled-part"]);
    assert_eq!(
        p.diags[0].file.as_deref(),
        Some("user-data part 1 (part-001)")
    );
    let types = |v: &[Part]| -> Vec<String> { v.iter().map(|u| u.content_type.clone()).collect() };
    assert_eq!(types(&p.unhandled), ["text/x-secret-thing"]);
    assert_eq!(p.scripts.len(), 1);
    let kept: Vec<(&str, &str, bool)> = p
        .part_handlers
        .iter()
        .map(|h| {
            (
                h.name.as_str(),
                h.part.content_type.as_str(),
                h.is_handler(),
            )
        })
        .collect();
    assert_eq!(
        kept,
        [
            ("user-data part 2 (h.py)", "text/part-handler", true),
            ("user-data part 4 (part-004)", "text/plain", false),
            ("user-data part 5 (part-005)", "text/x-secret-thing", false),
        ]
    );
    assert_eq!(
        p.part_handlers[0].part.payload.expose(),
        b"#part-handler\nSECRET"
    );
    // Debug never shows a payload.
    assert!(!format!("{p:?}").contains("SECRET\n"));
}

#[test]
fn a_template_cannot_make_a_part_handler() {
    let p = run("## template: jinja\n#part-handler\ndef list_types(): return []\n");
    assert_eq!(codes(&p), ["unhandled-part"]);
    assert!(p.part_handlers.is_empty());
    assert_eq!(p.unhandled.len(), 1);
}

#[test]
fn gzip_part_and_quoted_printable() {
    let z = gz(b"#cloud-config\n{\"g\": 1}");
    let mut m = b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n\
                  Content-Type: application/x-gzip\n\n"
        .to_vec();
    m.extend(z);
    m.extend(b"\n--B\nContent-Type: text/cloud-config\nContent-Transfer-Encoding: quoted-printable\n\n#cloud-config\n{\"q\": \"a=3Db\"}\n--B--\n");
    let p = run_with(&m, &Limits::default(), &FakeUrls::default());
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    assert_eq!(p.cloud_config, json!({"g": 1, "q": "a=b"}));
}

#[test]
fn single_part_mime_and_unsafe_filenames() {
    let m = "MIME-Version: 1.0\nContent-Type: text/x-shellscript\n\
             Content-Disposition: attachment; filename=\"../../etc/x\"\n\n#!/bin/sh\n";
    let p = run(m);
    assert_eq!(p.scripts[0].filename, ".._.._etc_x");
}

#[test]
fn part_budget_stops_the_walk() {
    let mut m = String::from("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n");
    for _ in 0..10 {
        m.push_str("--B\nContent-Type: text/x-shellscript\n\n#!/bin/sh\n");
    }
    let limits = Limits {
        mime_parts: 4,
        ..Limits::default()
    };
    let p = run_with(m.as_bytes(), &limits, &FakeUrls::default());
    // The container counts as one.
    assert_eq!(p.scripts.len(), 3);
    assert_eq!(codes(&p), ["budget-exceeded"]);
    assert_eq!(p.diags[0].budget.as_deref(), Some("mime_parts"));
}

#[test]
fn deep_multipart_nesting_is_bounded() {
    let mut m = String::new();
    for i in 0..40 {
        m.push_str(&format!(
            "Content-Type: multipart/mixed; boundary=b{i}\n\n--b{i}\n"
        ));
    }
    m.push_str("Content-Type: text/x-shellscript\n\n#!/bin/sh\n");
    let p = run(&format!("MIME-Version: 1.0\n{m}"));
    assert_eq!(codes(&p), ["nesting-too-deep"]);
    assert!(p.scripts.is_empty());
}

/// Content types, file names and other header values are user data of any length: a
/// message shows them only sanitised and bounded, and `Debug` shows no raw type.
#[test]
fn header_values_in_messages_are_sanitised_and_bounded() {
    let long = "q".repeat(5000);
    let esc = "\u{1b}[2J\u{202e}";
    let m = format!(
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n\
         Content-Type: text/x-{esc}{long}\nContent-Transfer-Encoding: base64\n\nA\n--B\n\
         Content-Type: text/x-{esc}{long}\n\
         Content-Disposition: attachment; filename=\"{esc}{long}.sh\"\n\nSECRET\n--B--\n"
    );
    let p = run(&m);
    assert_eq!(codes(&p), ["mime-encoding", "unhandled-part"]);
    for d in &p.diags {
        let shown = d.to_string();
        assert!(shown.len() < 400, "{} bytes: {shown:.100}", shown.len());
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
            "{shown:?}"
        );
    }
    let debug = format!("{p:?}");
    assert!(debug.len() < 1000, "{} bytes", debug.len());
    assert!(!debug.contains(&long) && !debug.contains('\u{1b}'));
    // The part itself keeps its type for later stages.
    assert!(p.unhandled[0].content_type.len() > 5000);
}

#[test]
fn safe_filename_table() {
    use crate::userdata::parts::{safe_filename, FILENAME_MAX};
    let cases: [(&str, Option<&str>); 12] = [
        ("run.sh", Some("run.sh")),
        ("  my script.sh ", Some("my_script.sh")),
        ("../../etc/x", Some(".._.._etc_x")),
        ("a\\b", Some("a_b")),
        ("-rf", Some("_rf")),
        ("\u{1b}[31mred", Some("__31mred")),
        ("evil\u{202e}hs.exe", Some("evil_hs.exe")),
        ("héllo", Some("h_llo")),
        (".", None),
        ("..", None),
        ("...", None),
        ("   ", None),
    ];
    for (name, want) in cases {
        assert_eq!(safe_filename(name).as_deref(), want, "{name:?}");
        // Stricter than rule 14's one check: what it keeps is always one name.
        if let Some(kept) = safe_filename(name) {
            assert_eq!(crate::root::one_name(&kept, ""), Ok(()), "{name:?}");
        }
    }
    let long = safe_filename(&"é".repeat(1000)).unwrap();
    assert_eq!(long.len(), FILENAME_MAX);
}
