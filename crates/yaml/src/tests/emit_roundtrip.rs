//! The emitter's strings read back as themselves through this parser.

use ember_core::yaml_emit::block;
use serde_json::{json, Value};

#[test]
fn strings_read_back_as_themselves() {
    let mut samples: Vec<String> = [
        "",
        "~",
        "null",
        "yes",
        "No",
        "on",
        "0",
        "-0",
        "017",
        "0x1f",
        "1_0",
        "1.5",
        ".5",
        "1e5",
        "+1",
        ".inf",
        "-.Inf",
        ".nan",
        "a: b",
        "a:",
        "#x",
        "x #y",
        "- x",
        "-",
        "?",
        "? x",
        "!x",
        "&a",
        "*a",
        "|",
        ">",
        "%x",
        "@x",
        "`x",
        "'",
        "\"",
        "[x]",
        "{x}",
        ",x",
        " x",
        "x ",
        "x\ny",
        "x\r\ny",
        "\t",
        "\u{85}",
        "\u{2028}",
        "\u{feff}x",
        "\u{7f}",
        "\0",
        "é",
        "10.0.0.1",
        "2001:db8::1",
        "fe80::1%eth0",
        "52:54:00:aa:bb:cc",
        "x'y",
        "x\"y",
        "x\\y",
        "---",
        "...",
        "x,y",
        "x]y",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    samples.push("long ".repeat(40));
    for s in samples {
        let mut map = serde_json::Map::new();
        map.insert("k".into(), json!([s.clone()]));
        map.insert(s.clone(), json!(1));
        let doc = block(&Value::Object(map), 0);
        let back = crate::parse(&doc, &ember_core::limits::Limits::default())
            .unwrap_or_else(|e| panic!("{s:?}: {doc:?}: {e:?}"));
        assert_eq!(back.value["k"][0], json!(s), "{doc:?}");
        assert_eq!(back.value[s.as_str()], json!(1), "{doc:?}");
    }
}
