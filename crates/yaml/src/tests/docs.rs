//! Whole-document tests: structure, merge keys, anchors, refusals, budgets and line numbers.

use crate::limits::Limits;
use crate::{parse, YamlError};
use serde_json::{json, Value};

fn value(text: &str) -> Value {
    match parse(text, &Limits::default()) {
        Ok(doc) => doc.value,
        Err(e) => panic!("{text:?}: {e}"),
    }
}

fn error(text: &str, limits: &Limits) -> YamlError {
    match parse(text, limits) {
        Ok(doc) => panic!("{text:?} parsed to {}", doc.value),
        Err(e) => e,
    }
}

#[test]
fn documents_parse_to_json() {
    let cases = [
        ("", json!(null)),
        ("# only a comment\n\n# another\n", json!(null)),
        ("---\n", json!(null)),
        ("---\na: 1\n", json!({"a": 1})),
        ("a: 1\n...\n", json!({"a": 1})),
        ("\u{feff}a: 1\n", json!({"a": 1})),
        ("just text\n", json!("just text")),
        ("- 1\n- two\n", json!([1, "two"])),
        (
            "a: \"yes\"\nb: 'no'\nc: yes\n",
            json!({"a": "yes", "b": "no", "c": true}),
        ),
        (
            "a: !!str 0644\nb: 0644\nc: '0644'\n",
            json!({"a": "0644", "b": 420, "c": "0644"}),
        ),
        (
            "a: |\n  one\n  two\nb: >\n  one\n  two\n",
            json!({"a": "one\ntwo\n", "b": "one two\n"}),
        ),
        ("a: |-\n  kept\n", json!({"a": "kept"})),
        ("a:\nb: ~\n", json!({"a": null, "b": null})),
        (
            "1: a\ntrue: b\n~: c\n1.5: d\n0x10: e\n",
            json!({"1": "a", "true": "b", "null": "c", "1.5": "d", "16": "e"}),
        ),
        ("a: 1\na: 2\n", json!({"a": 2})),
        (
            "{a: [1, {b: c}], d: []}",
            json!({"a": [1, {"b": "c"}], "d": []}),
        ),
        ("a: ! 12\nb: ! '12'\n", json!({"a": 12, "b": "12"})),
        ("!!set {a, b}", json!({"a": null, "b": null})),
        ("!!omap [a: 1, b: 2]", json!([{"a": 1}, {"b": 2}])),
        ("!!map {a: 1}", json!({"a": 1})),
        (
            "mac: 52:54:00:12:34:56\n",
            json!({"mac": "52:54:00:12:34:56"}),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(value(text), want, "{text:?}");
    }
}

#[test]
fn merge_keys_follow_pyyaml() {
    let text = "\
base: &base
  a: 1
  b: 2
other: &other
  b: 20
  c: 30
x:
  <<: *base
  b: 3
y:
  <<: [*base, *other]
z:
  b: 9
  <<: *other
inline:
  <<: {k: v}
quoted:
  '<<': 1
";
    let got = value(text);
    assert_eq!(got["x"], json!({"a": 1, "b": 3}));
    assert_eq!(got["y"], json!({"a": 1, "b": 2, "c": 30}));
    assert_eq!(got["z"], json!({"b": 9, "c": 30}));
    assert_eq!(got["inline"], json!({"k": "v"}));
    assert_eq!(got["quoted"], json!({"<<": 1}));
    let doc = parse(text, &Limits::default()).unwrap();
    assert_eq!(doc.line_of("x.a"), Some(8), "merged key: the << line");
    assert_eq!(
        doc.line_of("x.b"),
        Some(9),
        "explicit key keeps its own line"
    );
    assert_eq!(doc.line_of("z.b"), Some(13));
    assert_eq!(doc.line_of("inline.k"), Some(16));
    let merge_paths: Vec<_> = doc.lines.keys().filter(|k| k.contains("<<")).collect();
    assert_eq!(
        merge_paths,
        ["quoted.<<"],
        "only the quoted key is a real `<<` key"
    );
    for bad in ["a:\n  <<: 1\n", "a:\n  <<: [{b: 1}, 2]\n"] {
        let e = error(bad, &Limits::default());
        assert_eq!(
            (e.line, e.message.as_str()),
            (2, "<< expects a map or a list of maps")
        );
    }
}

#[test]
fn anchors_and_aliases_expand() {
    let got = value("a: &x [1, {b: 2}]\nb: *x\n&k key: &v val\nc: {*k : *v}\n");
    assert_eq!(got["b"], json!([1, {"b": 2}]));
    assert_eq!(got["c"], json!({"key": "val"}));
}

#[test]
fn refusals_name_the_line() {
    let limits = Limits::default();
    let cases = [
        ("a: 1\nb: *nowhere\n", 2, "unknown anchor"),
        ("a: &x [1, *x]\n", 1, "own enclosing node"),
        (
            "a:\n  - !!python/object/apply:os.system [ls]\n",
            2,
            "unsupported tag",
        ),
        ("a: 1\n---\nb: 2\n", 2, "expected a single document"),
        ("a: 1\n---\n", 2, "expected a single document"),
        ("a: !!str [1]\n", 1, "does not apply to a list"),
        ("? [a]\n: 1\n", 1, "cannot be a mapping key"),
        ("a: 1\nb:\n\tc: 2\n", 3, "tabs"),
        ("a: 1\nb: 2\nc: \"open\n", 3, "quoted scalar"),
    ];
    for (text, line, needle) in cases {
        let e = error(text, &limits);
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.message.contains(needle), "{text:?}: {e}");
        assert!(!e.message.contains("secret"), "{text:?} leaks a value: {e}");
        assert!(e.budget.is_none() && e.column > 0, "{text:?}: {e:?}");
    }
}

/// A scalar that cannot be made what its tag says fails its key, not the document (PyYAML
/// refuses the document): the key is null, the rest stands, the problem names path and line.
#[test]
fn a_bad_value_fails_its_key_not_the_document() {
    let limits = Limits::default();
    let cases = [
        (
            "a: 1\nb: !python/object:os.system secret\nc: 3\n",
            "/b",
            2,
            "b: unsupported tag !python/object:os.system",
        ),
        (
            "a: 1\nb: !!int secret\nc: 3\n",
            "/b",
            2,
            "b: value does not fit its tag !!int",
        ),
        (
            "a: 1\nb:\n  - x\n  - !!binary secret=\nc: 3\n",
            "/b/1",
            4,
            "b.1: value does not fit its tag !!binary",
        ),
        (
            "!!float secret\n",
            "",
            1,
            "the document: value does not fit",
        ),
    ];
    for (text, pointer, line, needle) in cases {
        let doc = crate::parse(text, &limits).unwrap();
        assert_eq!(doc.value.pointer(pointer), Some(&Value::Null), "{text:?}");
        if !pointer.is_empty() {
            assert_eq!(doc.value["a"], 1, "{text:?}");
            assert_eq!(doc.value["c"], 3, "{text:?}");
        }
        let [p] = &doc.problems[..] else {
            panic!("{text:?}: {:?}", doc.problems)
        };
        assert_eq!(p.line, line, "{text:?}");
        let mut doc = doc.clone();
        let [d] = &doc.drop_failed_keys("user-data")[..] else {
            panic!()
        };
        assert!(d.message.starts_with(needle), "{text:?}: {}", d.message);
        assert!(
            !d.message.contains("secret"),
            "{text:?} leaks a value: {}",
            d.message
        );
        assert_eq!((d.code.as_str(), d.line), ("yaml-type", Some(line)));
        assert_eq!(d.file.as_deref(), Some("user-data"));
        // The key the bad value stood under is taken out whole.
        if !pointer.is_empty() {
            assert!(
                doc.value.get("b").is_none() && doc.value["c"] == 3,
                "{text:?}"
            );
        }
    }
}

/// `!!binary` as PyYAML decodes it: bytes outside the base64 alphabet skipped.
#[test]
fn binary_with_stray_characters_decodes_as_pyyaml() {
    let doc = crate::parse("a: !!binary aGVs...bG8=\n", &Limits::default()).unwrap();
    assert_eq!(doc.value["a"], "hello");
    assert!(doc.problems.is_empty());
}

/// The classic "billion laughs": 9 levels of 9 aliases, 9^9 strings once expanded.
fn billion_laughs() -> String {
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (prev, name) in "abcdefgh".chars().zip("bcdefghi".chars()) {
        let refs = vec![format!("*{prev}"); 9].join(",");
        text.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    text
}

#[test]
fn alias_bombs_stop_at_the_node_budget() {
    let small = Limits {
        yaml_nodes: 100,
        ..Limits::default()
    };
    let e = error(
        "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
        &small,
    );
    assert_eq!((e.budget, e.line), (Some("yaml_nodes"), 2));
    let e = error(&billion_laughs(), &Limits::default());
    assert_eq!(e.budget, Some("yaml_nodes"));
    assert_eq!(
        e.line, 6,
        "9^6 nodes pass the default 200,000 on the line of f"
    );
    let diag = e.to_diag("user-data");
    assert_eq!(
        (diag.code.as_str(), diag.budget.as_deref()),
        ("budget-exceeded", Some("yaml_nodes"))
    );
    assert_eq!(diag.line, Some(6));
}

/// 1 MiB of expanded keys and scalars, against 64 KiB keys and strings aliased 100 times.
fn one_mib() -> Limits {
    Limits {
        yaml_expanded_bytes: 1024 * 1024,
        // Only the byte budget may stop these.
        yaml_nodes: u64::MAX,
        ..Limits::default()
    }
}

#[test]
fn long_keys_and_strings_through_aliases_stop_at_the_byte_budget() {
    let long = "k".repeat(64 * 1024);
    let hundred = |item: &str| item.repeat(100);
    let cases = [
        // Each alias to the map would copy its key into the JSON value.
        format!("a: &x {{{long}: 1}}\nl:\n{}", hundred("- *x\n")),
        // Each `<<` copies the map's keys into the one it is merged into.
        format!("a: &x {{{long}: 1}}\nl:\n{}", hundred("- {<<: *x}\n")),
        // A long scalar, anchored and aliased.
        format!("s: &x \"{long}\"\nl:\n{}", hundred("- *x\n")),
        format!("s: &x {long}\nl:\n{}", hundred("- *x\n")),
        // An alias as a key is copied into the key's string.
        format!("s: &x {long}\nm:\n{}", hundred("  *x : 1\n")),
    ];
    for text in &cases {
        let e = error(text, &one_mib());
        // About 64 KiB a line: the 15th alias, on line 17, passes 1 MiB.
        let what = &text[..10];
        assert_eq!(
            (e.budget, e.line),
            (Some("yaml_expanded_bytes"), 17),
            "{what}"
        );
        assert!(!e.message.contains("kkk"), "{what} leaks a value: {e}");
        let diag = e.to_diag("user-data");
        assert_eq!(diag.budget.as_deref(), Some("yaml_expanded_bytes"));
        assert_eq!(diag.line, Some(17));
    }
    // Nested, 64 GB once expanded with only a million nodes: refused before any copy.
    let text = format!(
        "a: &a {{{long}: 1}}\nb: &b [{0}]\nc: &c [{1}]\nd: [{2}]\n",
        vec!["*a"; 100].join(", "),
        vec!["*b"; 100].join(", "),
        vec!["*c"; 100].join(", "),
    );
    let e = error(&text, &Limits::default());
    assert_eq!((e.budget, e.line), (Some("yaml_expanded_bytes"), 3));
}

#[test]
fn the_default_byte_budget_stops_a_1_mb_key_aliased_300_times() {
    // 1 MB of input, 300 MB of JSON: it peaked at ~300 MB before the byte budget.
    let long = "k".repeat(1 << 20);
    let refs = vec!["*x"; 300].join(", ");
    for text in [
        format!("a: &x {{{long}: 1}}\nl: [{refs}]\n"),
        format!("s: &x \"{long}\"\nl: [{refs}]\n"),
    ] {
        let e = error(&text, &Limits::default());
        assert_eq!((e.budget, e.line), (Some("yaml_expanded_bytes"), 2));
    }
}

/// Bytes of keys and scalars in a JSON value, scalars as a key would show them.
fn json_bytes(value: &Value) -> u64 {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| k.len() as u64 + json_bytes(v))
            .sum(),
        Value::Array(items) => items.iter().map(json_bytes).sum(),
        Value::String(s) => s.len() as u64,
        other => other.to_string().len() as u64,
    }
}

#[test]
fn the_byte_budget_covers_the_whole_json_value() {
    // Exactly: `s`, the 1000 bytes, `l` and three copies.
    let text = format!("s: &s {}\nl: [*s, *s, *s]\n", "x".repeat(1000));
    let at = |bytes| Limits {
        yaml_expanded_bytes: bytes,
        ..Limits::default()
    };
    assert!(parse(&text, &at(4002)).is_ok());
    let e = error(&text, &at(4001));
    assert_eq!((e.budget, e.line), (Some("yaml_expanded_bytes"), 2));
    // Whatever JSON a document makes, a budget below its bytes refuses the document: nothing
    // is copied that was not charged, merged keys and non-string scalars included.
    let docs = [
        "a: &a {1: ~, true: x, 0x10: 1.5}\nb: {<<: *a, c: [*a, *a]}\n",
        "a: &a [&x x, yes, .inf]\nb: &b {k: *a}\nc: {<<: [*b, {z: *b}]}\n*x : 1\n",
        "s: !!set {? a, ? bb}\nt: &t !!binary aGVsbG8=\nu: [*t, *t]\n",
        CLOUD_CONFIG,
    ];
    for text in docs {
        let bytes = json_bytes(&value(text));
        let e = error(text, &at(bytes - 1));
        assert_eq!(e.budget, Some("yaml_expanded_bytes"), "{text:?}");
    }
}

#[test]
fn ordinary_documents_stay_well_within_the_byte_budget() {
    // A normal document's keys and scalars are no more than its size.
    let text = format!("{CLOUD_CONFIG}bootcmd:\n");
    let limits = Limits {
        yaml_expanded_bytes: CLOUD_CONFIG.len() as u64,
        ..Limits::default()
    };
    assert!(parse(CLOUD_CONFIG, &limits).is_ok());
    let mut big = text.clone();
    for i in 0..5000 {
        big.push_str(&format!("  - [sh, -c, 'echo {i}']\n"));
    }
    let limits = Limits {
        yaml_expanded_bytes: big.len() as u64,
        ..Limits::default()
    };
    assert!(parse(&big, &limits).is_ok());
    // Long values and a few aliases of them are fine under the default.
    let long = "x".repeat(4 << 20);
    let text = format!("a: &a \"{long}\"\nb: [*a, *a, *a]\n");
    let doc = parse(&text, &Limits::default()).unwrap();
    assert_eq!(doc.value["b"][2].as_str().map(str::len), Some(4 << 20));
}

#[test]
fn deep_nesting_stops_at_the_depth_budget() {
    // saphyr itself stops flow nesting at 255 levels; that is reported as the same budget.
    let flow = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let e = error(&flow, &Limits::default());
    assert_eq!((e.budget, e.line), (Some("yaml_depth"), 1));
    let block: String = (0..300)
        .map(|i| format!("{}k:\n", "  ".repeat(i)))
        .collect();
    let e = error(&block, &Limits::default());
    assert_eq!((e.budget, e.line, e.column), (Some("yaml_depth"), 257, 513));
    let shallow = Limits {
        yaml_depth: 3,
        ..Limits::default()
    };
    assert!(parse("a: &a [[1]]\n", &shallow).is_ok());
    // Depth through an alias counts too: b's list holds a's two levels, four in all.
    let e = error("a: &a [[1]]\nb: [*a]\n", &shallow);
    assert_eq!((e.budget, e.line), (Some("yaml_depth"), 2));
}

#[test]
fn syntax_errors_become_yaml_syntax_diags() {
    let e = error("a: 1\nb: 2\nc: 3\n d: 4\n", &Limits::default());
    let diag = e.to_diag("user-data");
    assert_eq!(
        (diag.code.as_str(), diag.line),
        ("yaml-syntax", Some(e.line))
    );
    assert_eq!(diag.file.as_deref(), Some("user-data"));
    assert!(diag.budget.is_none());
    assert!(e.line >= 3, "{e}");
}

const CLOUD_CONFIG: &str = r#"#cloud-config
users:
  - default
  - name: alice
    groups: [sudo, adm]
    sudo: "ALL=(ALL) NOPASSWD:ALL"
    lock_passwd: true
    ssh_authorized_keys:
      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG alice@host
write_files:
  - path: /etc/motd
    content: |
      Welcome.
      Be nice.
  - path: /etc/app.conf
    permissions: '0600'
    owner: root:root
    defer: yes
  - path: /etc/perm
    permissions: 0644
runcmd:
  - [sh, -c, echo hi]
  - systemctl restart app
  - - ls
    - -l
package_update: true
"#;

#[test]
fn realistic_cloud_config() {
    let doc = parse(CLOUD_CONFIG, &Limits::default()).unwrap();
    let want = json!({
        "users": [
            "default",
            {
                "name": "alice",
                "groups": ["sudo", "adm"],
                "sudo": "ALL=(ALL) NOPASSWD:ALL",
                "lock_passwd": true,
                "ssh_authorized_keys": ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG alice@host"],
            }
        ],
        "write_files": [
            {"path": "/etc/motd", "content": "Welcome.\nBe nice.\n"},
            {"path": "/etc/app.conf", "permissions": "0600", "owner": "root:root", "defer": true},
            {"path": "/etc/perm", "permissions": 420},
        ],
        "runcmd": [["sh", "-c", "echo hi"], "systemctl restart app", ["ls", "-l"]],
        "package_update": true,
    });
    assert_eq!(doc.value, want);
    let lines = [
        ("users", 2),
        ("users.0", 3),
        ("users.1", 4),
        ("users.1.name", 4),
        ("users.1.groups", 5),
        ("users.1.ssh_authorized_keys", 8),
        ("users.1.ssh_authorized_keys.0", 9),
        ("write_files.0.content", 12),
        ("write_files.1", 15),
        ("write_files.1.permissions", 16),
        ("write_files.2.permissions", 20),
        ("runcmd.0", 22),
        ("runcmd.0.2", 22),
        ("runcmd.2", 24),
        ("runcmd.2.1", 25),
        ("package_update", 26),
    ];
    for (path, line) in lines {
        assert_eq!(doc.line_of(path), Some(line), "{path}");
    }
    assert_eq!(doc.line_of("write_files.3"), None);
}

/// Bytes of paths in the line map, what `line_budget` bounds.
fn line_map_bytes(doc: &crate::Doc) -> usize {
    doc.lines.keys().map(String::len).sum()
}

fn flow_list(items: usize) -> String {
    let mut list = "[1".to_string();
    list.push_str(&",1".repeat(items - 1));
    list.push(']');
    list
}

#[test]
fn long_keys_are_not_in_the_line_map() {
    // Every item path used to repeat the whole key: 4 KB × 20000 items was 80 MB of paths.
    let key = "k".repeat(4096);
    let text = format!("a: 1\n? {key}\n: {}\nb: {{c: 2}}\n", flow_list(20_000));
    let doc = parse(&text, &Limits::default()).unwrap();
    assert_eq!(doc.value[&key].as_array().map(Vec::len), Some(20_000));
    let paths: Vec<_> = doc.lines.keys().map(String::as_str).collect();
    assert_eq!(paths, ["a", "b", "b.c"], "nothing through the long key");
    assert_eq!((doc.line_of("a"), doc.line_of("b.c")), (Some(1), Some(4)));
    // A key at the limit is still recorded, and so is what is under it.
    let key = "k".repeat(crate::build::MAX_KEY_BYTES);
    let doc = parse(&format!("{key}: [x, y]\n"), &Limits::default()).unwrap();
    assert_eq!(doc.line_of(&format!("{key}.1")), Some(1));
}

#[test]
fn the_line_map_stops_at_its_budget() {
    // Longest key still recorded, over 30000 items: 7.9 MB of paths without the budget.
    let key = "k".repeat(crate::build::MAX_KEY_BYTES);
    let text = format!("a: 1\n? {key}\n: {}\nb: 2\n", flow_list(30_000));
    let doc = parse(&text, &Limits::default()).unwrap();
    assert_eq!(doc.value[&key].as_array().map(Vec::len), Some(30_000));
    let budget = crate::build::line_budget(text.len());
    assert!(
        line_map_bytes(&doc) <= budget,
        "{} > {budget}",
        line_map_bytes(&doc)
    );
    assert_eq!(doc.line_of("a"), Some(1));
    assert_eq!(
        doc.line_of(&format!("{key}.0")),
        Some(3),
        "recorded in order"
    );
    assert_eq!(doc.line_of(&format!("{key}.29999")), None);
    assert_eq!(doc.line_of("b"), None, "recording stops, the parse goes on");
    assert_eq!(doc.value["b"], json!(2));

    // Merge keys record a whole anchored map per `<<`: bounded by the same budget.
    let keys: Vec<String> = (0..50).map(|i| format!("key{i}: {i}")).collect();
    let mut text = format!("x: &x {{{}}}\nl:\n", keys.join(", "));
    text.push_str(&"- {<<: *x}\n".repeat(1000));
    let doc = parse(&text, &Limits::default()).unwrap();
    assert_eq!(doc.value["l"][999]["key49"], json!(49));
    let budget = crate::build::line_budget(text.len());
    assert!(
        line_map_bytes(&doc) <= budget,
        "{} > {budget}",
        line_map_bytes(&doc)
    );
    assert_eq!(doc.line_of("l.0.key0"), Some(3));
    assert_eq!(doc.line_of("l.999.key0"), None);
}

#[test]
fn a_large_ordinary_cloud_config_keeps_every_line() {
    let mut text = format!("{CLOUD_CONFIG}bootcmd:\n");
    for i in 0..5000 {
        text.push_str(&format!("  - [sh, -c, 'echo {i}']\n"));
    }
    let doc = parse(&text, &Limits::default()).unwrap();
    assert_eq!(doc.line_of("write_files.2.permissions"), Some(20));
    assert_eq!(doc.line_of("users.1.ssh_authorized_keys.0"), Some(9));
    assert_eq!(doc.line_of("bootcmd.0.2"), Some(28));
    assert_eq!(doc.line_of("bootcmd.4999.2"), Some(5027));
    assert!(line_map_bytes(&doc) <= crate::build::line_budget(text.len()));
}
