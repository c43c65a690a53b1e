//! JSON Patch (RFC 6902) for `#cloud-config-jsonp`: add, remove, replace, move, copy, test,
//! with JSON Pointers (RFC 6901). A patch applies whole or not at all.

use serde_json::Value;

/// Applies `patch` (a JSON array of operations) to a copy of `doc`. Errors name the failing
/// operation's index and kind, never a value.
pub fn apply(doc: &Value, patch: &Value) -> Result<Value, String> {
    let ops = patch.as_array().ok_or("a JSON patch must be a list")?;
    let mut out = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        apply_one(&mut out, op).map_err(|e| format!("operation {i}: {e}"))?;
    }
    Ok(out)
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

fn apply_one(doc: &mut Value, op: &Value) -> Result<(), String> {
    let kind = field(op, "op")?.as_str().ok_or("\"op\" is not a string")?;
    let path = pointer(op, "path")?;
    match kind {
        "add" => add(doc, &path, field(op, "value")?.clone()),
        "remove" => remove(doc, &path).map(drop),
        "replace" => {
            let slot = get_mut(doc, &path).ok_or("replace: path does not exist")?;
            *slot = field(op, "value")?.clone();
            Ok(())
        }
        "move" => {
            let from = pointer(op, "from")?;
            if path.len() > from.len() && path[..from.len()] == from[..] {
                return Err("move: cannot move a value into itself".to_string());
            }
            let v = remove(doc, &from)?;
            add(doc, &path, v)
        }
        "copy" => {
            let from = pointer(op, "from")?;
            let v = get_mut(doc, &from)
                .ok_or("copy: from does not exist")?
                .clone();
            add(doc, &path, v)
        }
        "test" => match get_mut(doc, &path) {
            Some(v) if *v == *field(op, "value")? => Ok(()),
            _ => Err("test failed".to_string()),
        },
        _ => Err("unknown op".to_string()),
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
        for (patch, want) in cases {
            assert_eq!(apply(&doc, &patch).ok(), want, "{patch}");
        }
    }
}
