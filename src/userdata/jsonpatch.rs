//! JSON Patch (RFC 6902) for `#cloud-config-jsonp`: add, remove, replace, move, copy, test,
//! with JSON Pointers (RFC 6901). A patch applies whole or not at all, and within the YAML
//! budgets: `copy` of the whole document doubles it, so every value a patch adds is charged
//! against `yaml_nodes` and `yaml_expanded_bytes` before it is made.

use crate::limits::Limits;
use serde_json::Value;

/// Why a patch failed: the operation's index and kind (never a value), and the budget that
/// stopped it, if one did.
#[derive(Debug, PartialEq)]
pub struct PatchError {
    pub message: String,
    pub budget: Option<&'static str>,
}

/// Applies `patch` (a JSON array of operations) to `doc`, which the caller gives up (a copy
/// when it must keep the original).
pub fn apply(mut doc: Value, patch: &Value, limits: &Limits) -> Result<Value, PatchError> {
    let ops = patch.as_array().ok_or_else(|| PatchError {
        message: "a JSON patch must be a list".into(),
        budget: None,
    })?;
    let mut left = Budget {
        nodes: limits.yaml_nodes,
        bytes: limits.yaml_expanded_bytes,
    };
    let at_start = |budget| PatchError {
        message: "the document is already past the budget".into(),
        budget: Some(budget),
    };
    left.charge(&doc).map_err(at_start)?;
    for (i, op) in ops.iter().enumerate() {
        apply_one(&mut doc, op, &mut left).map_err(|(e, budget)| PatchError {
            message: format!("operation {i}: {e}"),
            budget,
        })?;
    }
    Ok(doc)
}

/// What the patched document may still grow by. Removals give nothing back: simpler, and a
/// patch that really needs that much is no cloud-config.
struct Budget {
    nodes: u64,
    bytes: u64,
}

impl Budget {
    /// Takes `v`'s nodes and key and string bytes, stopping at the first that does not fit
    /// (so charging a huge value costs no more than the budget).
    fn charge(&mut self, v: &Value) -> Result<(), &'static str> {
        self.nodes = self.nodes.checked_sub(1).ok_or("yaml_nodes")?;
        let mut take = |n: usize| {
            self.bytes = self
                .bytes
                .checked_sub(n as u64)
                .ok_or("yaml_expanded_bytes")?;
            Ok::<(), &'static str>(())
        };
        match v {
            Value::String(s) => take(s.len()),
            Value::Array(items) => items.iter().try_for_each(|i| self.charge(i)),
            Value::Object(map) => map.iter().try_for_each(|(k, i)| {
                self.bytes = self
                    .bytes
                    .checked_sub(k.len() as u64)
                    .ok_or("yaml_expanded_bytes")?;
                self.charge(i)
            }),
            _ => Ok(()),
        }
    }
}

type OpError = (String, Option<&'static str>);

fn plain(e: impl Into<String>) -> OpError {
    (e.into(), None)
}

fn over(budget: &'static str) -> OpError {
    (
        format!("the patched document passes the {budget} budget"),
        Some(budget),
    )
}

fn field<'a>(op: &'a Value, name: &str) -> Result<&'a Value, String> {
    op.get(name).ok_or_else(|| format!("missing {name:?}"))
}

fn pointer(op: &Value, name: &str) -> Result<Vec<String>, String> {
    let p = field(op, name)?
        .as_str()
        .ok_or_else(|| format!("{name:?} is not a string"))?;
    parse_pointer(p)
}

fn parse_pointer(p: &str) -> Result<Vec<String>, String> {
    if p.is_empty() {
        return Ok(Vec::new());
    }
    let rest = p
        .strip_prefix('/')
        .ok_or("a JSON pointer must start with /")?;
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn apply_one(doc: &mut Value, op: &Value, left: &mut Budget) -> Result<(), OpError> {
    let kind = field(op, "op")
        .map_err(plain)?
        .as_str()
        .ok_or_else(|| plain("\"op\" is not a string"))?;
    let path = pointer(op, "path").map_err(plain)?;
    match kind {
        "add" | "replace" => {
            let value = field(op, "value").map_err(plain)?;
            left.charge(value).map_err(over)?;
            if kind == "add" {
                return add(doc, &path, value.clone()).map_err(plain);
            }
            let slot = get_mut(doc, &path).ok_or_else(|| plain("replace: path does not exist"))?;
            *slot = value.clone();
            Ok(())
        }
        "remove" => remove(doc, &path).map(drop).map_err(plain),
        "move" => {
            let from = pointer(op, "from").map_err(plain)?;
            if path.len() > from.len() && path[..from.len()] == from[..] {
                return Err(plain("move: cannot move a value into itself"));
            }
            let v = remove(doc, &from).map_err(plain)?;
            add(doc, &path, v).map_err(plain)
        }
        "copy" => {
            let from = pointer(op, "from").map_err(plain)?;
            let source = get_mut(doc, &from).ok_or_else(|| plain("copy: from does not exist"))?;
            left.charge(source).map_err(over)?;
            let v = source.clone();
            add(doc, &path, v).map_err(plain)
        }
        "test" => match get_mut(doc, &path) {
            Some(v) if *v == *field(op, "value").map_err(plain)? => Ok(()),
            _ => Err(plain("test failed")),
        },
        _ => Err(plain("unknown op")),
    }
}

fn index(token: &str, len: usize, allow_end: bool) -> Option<usize> {
    if token == "-" && allow_end {
        return Some(len);
    }
    // RFC 6901: decimal without leading zeros.
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    let i: usize = token.parse().ok()?;
    let max = if allow_end {
        len
    } else {
        len.saturating_sub(1)
    };
    (i <= max && (allow_end || len > 0)).then_some(i)
}

fn get_mut<'a>(doc: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(doc, |cur, t| match cur {
        Value::Object(m) => m.get_mut(t),
        Value::Array(a) => {
            let i = index(t, a.len(), false)?;
            a.get_mut(i)
        }
        _ => None,
    })
}

fn add(doc: &mut Value, path: &[String], v: Value) -> Result<(), String> {
    let Some((last, parent)) = path.split_last() else {
        *doc = v;
        return Ok(());
    };
    match get_mut(doc, parent).ok_or("add: parent does not exist")? {
        Value::Object(m) => {
            m.insert(last.clone(), v);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(last, a.len(), true).ok_or("add: bad list index")?;
            a.insert(i, v);
            Ok(())
        }
        _ => Err("add: parent is not a container".to_string()),
    }
}

fn remove(doc: &mut Value, path: &[String]) -> Result<Value, String> {
    let (last, parent) = path.split_last().ok_or("remove: cannot remove the root")?;
    match get_mut(doc, parent).ok_or("remove: parent does not exist")? {
        Value::Object(m) => m
            .remove(last)
            .ok_or_else(|| "remove: no such key".to_string()),
        Value::Array(a) => {
            let i = index(last, a.len(), false).ok_or("remove: bad list index")?;
            Ok(a.remove(i))
        }
        _ => Err("remove: parent is not a container".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc6902_table() {
        let doc = json!({"a": {"b": [1, 2]}, "c": "x", "k/~": 0});
        let cases = [
            (
                json!([{"op": "add", "path": "/a/b/-", "value": 3}]),
                Some(json!({"a": {"b": [1, 2, 3]}, "c": "x", "k/~": 0})),
            ),
            (
                json!([{"op": "add", "path": "/a/b/0", "value": 0}]),
                Some(json!({"a": {"b": [0, 1, 2]}, "c": "x", "k/~": 0})),
            ),
            (
                json!([{"op": "remove", "path": "/k~1~0"}]),
                Some(json!({"a": {"b": [1, 2]}, "c": "x"})),
            ),
            (
                json!([{"op": "replace", "path": "/c", "value": 5}]),
                Some(json!({"a": {"b": [1, 2]}, "c": 5, "k/~": 0})),
            ),
            (
                json!([{"op": "move", "from": "/c", "path": "/a/c"}]),
                Some(json!({"a": {"b": [1, 2], "c": "x"}, "k/~": 0})),
            ),
            (
                json!([{"op": "copy", "from": "/a/b/1", "path": "/d"}]),
                Some(json!({"a": {"b": [1, 2]}, "c": "x", "k/~": 0, "d": 2})),
            ),
            (
                json!([{"op": "test", "path": "/c", "value": "x"}]),
                Some(doc.clone()),
            ),
            (json!([{"op": "test", "path": "/c", "value": "y"}]), None),
            (
                json!([{"op": "replace", "path": "/nope", "value": 1}]),
                None,
            ),
            (json!([{"op": "remove", "path": "/a/b/2"}]), None),
            (json!([{"op": "add", "path": "/a/b/01", "value": 1}]), None),
            (json!([{"op": "move", "from": "/a", "path": "/a/x"}]), None),
            (json!([{"op": "frob", "path": "/a"}]), None),
            // All or nothing: the second op fails, so the first is not kept.
            (
                json!([{"op": "add", "path": "/z", "value": 1}, {"op": "remove", "path": "/q"}]),
                None,
            ),
            (json!({"op": "add"}), None),
        ];
        let limits = Limits::default();
        for (patch, want) in cases {
            assert_eq!(apply(doc.clone(), &patch, &limits).ok(), want, "{patch}");
        }
    }

    #[test]
    fn copies_of_the_whole_document_stop_at_the_yaml_budgets() {
        let doc = json!({"a": "x".repeat(1000)});
        let doubling: Vec<Value> = (0..40)
            .map(|i| json!({"op": "copy", "from": "", "path": format!("/c{i}")}))
            .collect();
        let limits = Limits::default();
        let err = apply(doc.clone(), &Value::Array(doubling), &limits).unwrap_err();
        assert_eq!(err.budget, Some("yaml_expanded_bytes"), "{err:?}");
        // 1000 bytes doubled by each copy: the 17th (index 16) passes 64 MiB.
        assert!(err.message.starts_with("operation 16:"), "{err:?}");
        let few_nodes = Limits {
            yaml_nodes: 10,
            ..Limits::default()
        };
        let add = json!([{"op": "add", "path": "/l", "value": [1, 2, 3, 4, 5, 6, 7, 8, 9]}]);
        let err = apply(doc, &add, &few_nodes).unwrap_err();
        assert_eq!(err.budget, Some("yaml_nodes"), "{err:?}");
    }
}
