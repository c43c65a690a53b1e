//! cloud-init's command lists (`runcmd`, `bootcmd`) as one `#!/bin/sh` script: a string item
//! is a line of shell, a list item one command whose words are quoted. It runs nothing.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#runcmd>

pub use crate::conf_lang::shell::quote;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

/// The script for the list under `key`, as cloud-init's `shellify` makes it: a string item is
/// a line of shell, a list item one command with each word quoted (numbers as YAML wrote
/// them), a null item (a YAML comment's) nothing. A bad item is an error naming `key.N` (never
/// its value) and is left out, the others are kept. A single string is run as one line, with
/// a warning: cloud-init's module refuses it. The runner and `ember schema` both read it here.
pub fn script(key: &str, value: &Value, diags: &mut Vec<Diag>) -> Option<String> {
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        Value::String(_) => {
            let msg = "a single string, run as one line of shell (cloud-init wants a list)";
            diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            vec![value]
        }
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected a list of commands").key(key));
            return None;
        }
    };
    let mut out = String::from("#!/bin/sh\n");
    for (i, item) in items.iter().enumerate() {
        match line(item) {
            _ if item.is_null() => {}
            // No shell can run a NUL: dash drops it, so the command would not be the one asked.
            Some(l) if l.contains('\0') => diags.push(
                Diag::error(Reason::BadValue, "holds a NUL byte; item skipped")
                    .key(format!("{key}.{i}")),
            ),
            Some(l) => {
                out.push_str(&l);
                out.push('\n');
            }
            None => diags.push(
                Diag::error(
                    Reason::WrongType,
                    "expected a string or a list of strings; item skipped",
                )
                .key(format!("{key}.{i}")),
            ),
        }
    }
    Some(out)
}

fn line(item: &Value) -> Option<String> {
    match item {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => {
            let words: Option<Vec<String>> = words.iter().map(word).collect();
            Some(
                words?
                    .iter()
                    .map(|w| quote(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
        _ => None,
    }
}

/// A word of a list command: strings, and numbers as YAML wrote them (`[sleep, 5]`).
fn word(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_and_lists() {
        let mut d = Vec::new();
        let v =
            json!(["echo hi > /x", ["ls", "-l", "/a b", "it's"], ["sleep", 5], 7, {"a": 1}, null]);
        let s = script("runcmd", &v, &mut d).unwrap();
        assert_eq!(
            s,
            "#!/bin/sh\necho hi > /x\nls -l '/a b' 'it'\"'\"'s'\nsleep 5\n"
        );
        // A null item (a YAML comment's) is nothing to run, as in cloud-init; no diagnostic.
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(keys, ["runcmd.3", "runcmd.4"]);
        assert!(d.iter().all(|d| !d.message.contains('7')));
    }

    #[test]
    fn single_string_and_wrong_type() {
        let mut d = Vec::new();
        assert_eq!(
            script("bootcmd", &json!("date"), &mut d).unwrap(),
            "#!/bin/sh\ndate\n"
        );
        assert!(script("bootcmd", &json!(3), &mut d).is_none());
        let said: Vec<_> = d.iter().map(|d| (d.severity, d.key.as_deref())).collect();
        use crate::error::Severity::{Error, Warning};
        assert_eq!(said, [(Warning, Some("bootcmd")), (Error, Some("bootcmd"))]);
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn a_nul_in_a_command_skips_that_item() {
        let mut d = Vec::new();
        let v = json!(["echo a\u{0}b > /x", ["echo", "c\u{0}d"], "true"]);
        assert_eq!(script("runcmd", &v, &mut d).unwrap(), "#!/bin/sh\ntrue\n");
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(keys, ["runcmd.0", "runcmd.1"]);
    }
}
