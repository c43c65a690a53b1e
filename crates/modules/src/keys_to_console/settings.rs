//! keys_to_console's settings: `ssh.emit_keys_to_console` and the two blacklists, read as
//! cloud-init reads them. A value it cannot use is a warning and the default stands: the
//! console blocks are informative, and a mistake in them must not fail the module (`ember
//! schema` still reports it as the error cloud-init's schema calls it).

use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

const STRINGS: Shape = list(&Shape::Str, 0);
const CONSOLE: Shape = Shape::Map(&Fields {
    fields: &[("emit_keys_to_console", Shape::Bool)],
    required: &["emit_keys_to_console"],
    open: false,
});

/// The shapes of its keys, after cloud-init's schema.
pub const SHAPES: &[(&str, Shape)] = &[
    ("ssh", CONSOLE),
    ("ssh_key_console_blacklist", STRINGS),
    ("ssh_fp_console_blacklist", STRINGS),
];

/// What keys_to_console prints: whether anything, and the key types (the first word of a
/// `.pub` file, such as `ssh-rsa`) whose fingerprints or keys are left out.
#[derive(Debug, PartialEq)]
pub struct Console {
    pub emit: bool,
    pub fp_blacklist: Vec<String>,
    pub key_blacklist: Vec<String>,
}

/// The mapping `ssh`, warning of fields other than `emit_keys_to_console`; None when absent,
/// null or not a mapping (a warning).
fn ssh_mapping<'a>(cfg: &'a Value, diags: &mut Vec<Diag>) -> Option<&'a Map<String, Value>> {
    let map = match cfg.get("ssh")? {
        Value::Null => return None,
        Value::Object(map) => map,
        _ => {
            diags.push(Diag::warning(Reason::WrongType, "must be a mapping").key("ssh"));
            return None;
        }
    };
    for name in map.keys().filter(|n| *n != "emit_keys_to_console") {
        let d = Diag::warning(Reason::UnknownKey, "not a key of ssh: ignored");
        diags.push(d.key(format!("ssh.{name}")));
    }
    Some(map)
}

/// cloud-init's `is_false`: `false`, or a value whose text is off, 0, no or false, turns the
/// blocks off; anything else leaves them on (a value that is not a boolean warns).
fn emit_keys(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    let field = "emit_keys_to_console";
    let text = match ssh_mapping(cfg, diags).and_then(|m| m.get(field)) {
        None | Some(Value::Null) => return true,
        Some(Value::Bool(b)) => return *b,
        Some(Value::String(s)) => s.trim().to_ascii_lowercase(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => String::new(),
    };
    let d = Diag::warning(Reason::WrongType, "must be true or false");
    diags.push(d.key(format!("ssh.{field}")));
    !matches!(text.as_str(), "off" | "0" | "no" | "false")
}

/// A blacklist as cloud-init's `get_cfg_option_list` reads it: a list of names, or one name.
fn blacklist(value: Option<&Value>, key: &str, diags: &mut Vec<Diag>) -> Vec<String> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => {
            let mut names = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(s) => names.push(s.to_string()),
                    None => diags.push(
                        Diag::warning(Reason::WrongType, "must be a string: ignored")
                            .key(format!("{key}.{i}")),
                    ),
                }
            }
            names
        }
        Some(_) => {
            let msg = "must be a list of key types";
            diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            Vec::new()
        }
    }
}

/// keys_to_console's settings; the runner and `ember schema` both read them here.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Console {
    let list = |key: &str, diags: &mut Vec<Diag>| blacklist(cfg.get(key), key, diags);
    Console {
        emit: emit_keys(cfg, diags),
        fp_blacklist: list("ssh_fp_console_blacklist", diags),
        key_blacklist: list("ssh_key_console_blacklist", diags),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys_and_codes(diags: &[Diag]) -> Vec<(&str, &str)> {
        diags
            .iter()
            .map(|d| (d.key.as_deref().unwrap_or(""), d.code.as_str()))
            .collect()
    }

    #[test]
    fn defaults_and_every_key() {
        let mut diags = Vec::new();
        let none = read(&json!({}), &mut diags);
        assert!(none.emit && none.fp_blacklist.is_empty() && none.key_blacklist.is_empty());
        let all = read(
            &json!({"ssh": {"emit_keys_to_console": false},
                    "ssh_fp_console_blacklist": ["ssh-rsa"],
                    "ssh_key_console_blacklist": "ssh-dss"}),
            &mut diags,
        );
        assert_eq!(
            all,
            Console {
                emit: false,
                fp_blacklist: vec!["ssh-rsa".into()],
                key_blacklist: vec!["ssh-dss".into()],
            }
        );
        assert!(diags.is_empty(), "{diags:?}");
    }

    /// As cloud-init's `is_false`: the words off/0/no/false turn the blocks off (with a
    /// warning: the schema wants a boolean); anything else leaves them on.
    #[test]
    fn emit_follows_is_false() {
        for (v, want) in [
            (json!("no"), false),
            (json!("Off"), false),
            (json!(0), false),
            (json!("maybe"), true),
            (json!([1]), true),
        ] {
            let mut diags = Vec::new();
            let got = read(&json!({"ssh": {"emit_keys_to_console": v}}), &mut diags);
            assert_eq!(got.emit, want, "{v}");
            assert_eq!(
                keys_and_codes(&diags),
                [("ssh.emit_keys_to_console", "wrong-type")]
            );
            assert!(!diags[0].is_error());
        }
    }

    #[test]
    fn mistakes_warn() {
        let cases = [
            (json!({"ssh": "quiet"}), "ssh", "wrong-type"),
            (
                json!({"ssh": {"emit_keys_to_console": true, "x": 1}}),
                "ssh.x",
                "unknown-key",
            ),
            (
                json!({"ssh_key_console_blacklist": {}}),
                "ssh_key_console_blacklist",
                "wrong-type",
            ),
            (
                json!({"ssh_key_console_blacklist": [1]}),
                "ssh_key_console_blacklist.0",
                "wrong-type",
            ),
        ];
        for (cfg, key, code) in cases {
            let mut diags = Vec::new();
            let shown = read(&cfg, &mut diags);
            assert!(shown.emit && shown.key_blacklist.is_empty(), "{cfg}");
            assert_eq!(keys_and_codes(&diags), [(key, code)], "{cfg}");
            assert!(!diags[0].is_error(), "{cfg}");
        }
    }
}
