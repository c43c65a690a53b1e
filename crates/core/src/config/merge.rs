//! cloud-init's merge rules for cloud-config (`merge_how`): the dict, list and str mergers and
//! their settings, plus the plain recursive merge image config files use. Pure: no I/O.
//!
//! <https://docs.cloud-init.io/en/latest/reference/merging.html>

use serde_json::{Map, Value};

/// Settings of the `dict` merger.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DictMerger {
    /// `replace`: a key present in both takes the new value whole (no recursion at all).
    pub replace: bool,
    /// `allow_delete`: a new `null` removes the key.
    pub allow_delete: bool,
    /// `recurse_list` / `recurse_array`: lists under the same key go to the list merger.
    pub recurse_list: bool,
    /// `recurse_str`: strings under the same key go to the str merger.
    pub recurse_str: bool,
}

/// How the `list` merger combines two lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListMethod {
    /// Index by index, new wins; the old list's length is kept (cloud-init's default).
    #[default]
    Replace,
    Append,
    Prepend,
    /// Keep the old list.
    NoReplace,
}

/// Settings of the `list` merger.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListMerger {
    pub method: ListMethod,
    pub recurse_dict: bool,
    pub recurse_list: bool,
    pub recurse_str: bool,
}

/// Settings of the `str` merger.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StrMerger {
    pub append: bool,
}

/// A parsed `merge_how`. A type without a merger keeps its old value, as in cloud-init, so
/// `list(append)` alone merges nothing into an existing mapping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mergers {
    pub dict: Option<DictMerger>,
    pub list: Option<ListMerger>,
    pub string: Option<StrMerger>,
    /// Settings cloud-init would silently ignore (typos such as `apend`), for a warning.
    pub ignored: Vec<String>,
}

impl Mergers {
    /// cloud-init's default for user-data parts: `dict(replace)+list()+str()`.
    pub fn user_data_default() -> Mergers {
        parse_merge_how("dict(replace)+list()+str()").unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.dict.is_none() && self.list.is_none() && self.string.is_none()
    }

    /// Adds `other`'s mergers for types not yet covered: the first merger named for a type
    /// wins, as with cloud-init's lookup (part body before `Merge-Type` header).
    pub fn extend(&mut self, other: Mergers) {
        self.dict = self.dict.take().or(other.dict);
        self.list = self.list.take().or(other.list);
        self.string = self.string.take().or(other.string);
        self.ignored.extend(other.ignored);
    }

    fn add(&mut self, name: &str, settings: &[String]) -> Result<(), String> {
        let has = |s: &str| settings.iter().any(|o| o == s);
        let known: &[&str] = match name {
            "dict" => &["replace", "no_replace", "allow_delete", "recurse_dict"],
            "list" => &["append", "prepend", "replace", "no_replace", "recurse_dict"],
            // cloud-init's str merger knows only `append`; `no_replace` is accepted, no effect.
            "str" => &["append", "no_replace"],
            _ => {
                let name = shown(name);
                return Err(format!(
                    "unknown merger {name} (expected dict, list or str)"
                ));
            }
        };
        let recursion = ["recurse_list", "recurse_array", "recurse_str"];
        for s in settings {
            let recursive_ok = name != "str" && recursion.contains(&s.as_str());
            if !known.contains(&s.as_str()) && !recursive_ok {
                self.ignored.push(format!("{name}({})", shown(s)));
            }
        }
        let recurse_list = has("recurse_list") || has("recurse_array");
        match name {
            "dict" if self.dict.is_none() => {
                self.dict = Some(DictMerger {
                    replace: has("replace"),
                    allow_delete: has("allow_delete"),
                    recurse_list,
                    recurse_str: has("recurse_str"),
                })
            }
            "list" if self.list.is_none() => {
                // cloud-init checks the methods in this order; the first one present wins.
                let method = if has("append") {
                    ListMethod::Append
                } else if has("prepend") {
                    ListMethod::Prepend
                } else if has("replace") {
                    ListMethod::Replace
                } else if has("no_replace") {
                    ListMethod::NoReplace
                } else {
                    ListMethod::Replace
                };
                self.list = Some(ListMerger {
                    method,
                    recurse_dict: has("recurse_dict"),
                    recurse_list,
                    recurse_str: has("recurse_str"),
                })
            }
            "str" if self.string.is_none() => {
                self.string = Some(StrMerger {
                    append: has("append"),
                })
            }
            _ => {}
        }
        Ok(())
    }
}

/// A merger word fit for a message: identifiers only, since `merge_how` is user data.
fn shown(word: &str) -> &str {
    let ok = word.len() <= 32 && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        word
    } else {
        "<not an identifier>"
    }
}

/// Canonical merger name: lower case, `-` as `_`, an optional `m_` prefix dropped.
fn canonical(name: &str) -> String {
    let n = name.trim().to_lowercase().replace('-', "_");
    n.strip_prefix("m_").map(str::to_string).unwrap_or(n)
}

/// Parses the string form `list(append)+dict(no_replace,recurse_list)+str()`.
pub fn parse_merge_how(s: &str) -> Result<Mergers, String> {
    let mut out = Mergers::default();
    for item in s.split('+') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (name, rest) = item
            .split_once('(')
            .ok_or("a merger is not written name(settings)")?;
        let inner = rest
            .strip_suffix(')')
            .ok_or("a merger is not written name(settings)")?;
        let name = canonical(name);
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err("a merger name is not an identifier".to_string());
        }
        let settings: Vec<String> = inner
            .split(',')
            .map(|o| o.trim().to_lowercase())
            .filter(|o| !o.is_empty())
            .collect();
        out.add(&name, &settings)?;
    }
    Ok(out)
}

/// Parses a `merge_how` / `merge_type` value: the string form, or the list form
/// `[{name: list, settings: [append]}, [dict, no_replace], ...]`.
pub fn mergers_from_value(v: &Value) -> Result<Mergers, String> {
    let items = match v {
        Value::String(s) => return parse_merge_how(s),
        Value::Array(items) => items,
        _ => return Err("merge_how must be a string or a list".to_string()),
    };
    let mut out = Mergers::default();
    for item in items {
        let (name, settings) = match item {
            Value::Object(m) => (m.get("name"), m.get("settings")),
            Value::Array(a) => (a.first(), None),
            _ => return Err("merge_how items must be mappings or lists".to_string()),
        };
        let Some(Value::String(name)) = name else {
            return Err("merge_how item without a string name".to_string());
        };
        let list_settings = match item {
            Value::Array(a) => a.get(1..).unwrap_or_default().to_vec(),
            _ => match settings {
                Some(Value::Array(s)) => s.clone(),
                None | Some(Value::Null) => Vec::new(),
                Some(_) => return Err("merge_how settings must be a list".to_string()),
            },
        };
        let settings: Vec<String> = list_settings
            .iter()
            .filter_map(|s| s.as_str().map(|s| s.trim().to_lowercase()))
            .collect();
        let name = canonical(name);
        if !name.is_empty() {
            out.add(&name, &settings)?;
        }
    }
    Ok(out)
}

/// Removes `merge_how` (or else `merge_type`) from a cloud-config part and parses it.
/// Both keys are removed so neither reaches the merged result.
pub fn take_merge_how(cfg: &mut Value) -> Result<Option<Mergers>, String> {
    let Value::Object(map) = cfg else {
        return Ok(None);
    };
    let how = map.remove("merge_how");
    let typ = map.remove("merge_type");
    match how.or(typ) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => mergers_from_value(&v).map(Some),
    }
}

/// Merges `new` into `base` as cloud-init's mergers do, then drops `merge_how`/`merge_type`.
pub fn merge(base: &mut Value, new: Value, how: &Mergers) {
    let old = std::mem::take(base);
    *base = merge_value(old, new, how);
    if let Value::Object(m) = base {
        m.remove("merge_how");
        m.remove("merge_type");
    }
}

/// The type of the old value picks the merger; without one the old value stays.
fn merge_value(old: Value, new: Value, how: &Mergers) -> Value {
    match (old, how) {
        (Value::Object(o), Mergers { dict: Some(d), .. }) => merge_dict(o, new, d, how),
        (Value::Array(o), Mergers { list: Some(l), .. }) => merge_list(o, new, l, how),
        (
            Value::String(o),
            Mergers {
                string: Some(s), ..
            },
        ) => match new {
            Value::String(n) if s.append => Value::String(o + &n),
            other => other,
        },
        (old, _) => old,
    }
}

fn merge_dict(mut old: Map<String, Value>, new: Value, d: &DictMerger, how: &Mergers) -> Value {
    let Value::Object(new) = new else {
        return Value::Object(old);
    };
    for (k, v) in new {
        let Some(prev) = old.remove(&k) else {
            old.insert(k, v);
            continue;
        };
        if v.is_null() && d.allow_delete {
            continue;
        }
        let merged = if d.replace {
            v
        } else {
            match v {
                Value::Array(_) if d.recurse_list => merge_value(prev, v, how),
                Value::String(_) if d.recurse_str => merge_value(prev, v, how),
                // cloud-init always recurses into mappings under no_replace.
                Value::Object(_) => merge_value(prev, v, how),
                _ => prev,
            }
        };
        old.insert(k, merged);
    }
    Value::Object(old)
}

fn merge_list(mut old: Vec<Value>, new: Value, l: &ListMerger, how: &Mergers) -> Value {
    // cloud-init assumes a list here; a lone non-list value is treated as one item.
    let new_items = match new {
        Value::Array(a) => a,
        other if l.method == ListMethod::Replace => return other,
        other => vec![other],
    };
    match l.method {
        ListMethod::Append => old.extend(new_items),
        ListMethod::Prepend => {
            let mut items = new_items;
            items.extend(old);
            old = items;
        }
        ListMethod::NoReplace => {}
        // Index-wise replacement: extra new items are dropped, extra old ones kept.
        ListMethod::Replace => {
            for (slot, v) in old.iter_mut().zip(new_items) {
                let recurse = match &v {
                    Value::Array(_) => l.recurse_list,
                    Value::String(_) => l.recurse_str,
                    Value::Object(_) => l.recurse_dict,
                    _ => false,
                };
                *slot = if recurse {
                    merge_value(std::mem::take(slot), v, how)
                } else {
                    v
                };
            }
        }
    }
    Value::Array(old)
}

/// Recursive mapping merge where `new` wins and lists and scalars are replaced whole: how
/// image config files (`cloud.cfg`, then `cloud.cfg.d/*.cfg` in order) combine.
pub fn merge_replace(base: &mut Value, new: Value) {
    match (base, new) {
        (Value::Object(b), Value::Object(n)) => {
            for (k, v) in n {
                match b.get_mut(&k) {
                    Some(slot) => merge_replace(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merged(base: Value, new: Value, how: &str) -> Value {
        let mut b = base;
        merge(&mut b, new, &parse_merge_how(how).unwrap());
        b
    }

    #[test]
    fn merger_table() {
        let old = json!({"l": [1, 2], "d": {"x": 1, "y": 1}, "s": "a", "n": 1});
        let new = json!({"l": [3], "d": {"y": 2, "z": 2}, "s": "b", "n": 2, "k": 0});
        let cases = [
            // cloud-init's user-data default: keys present in both are replaced whole.
            (
                "dict(replace)+list()+str()",
                json!({"l": [3], "d": {"y": 2, "z": 2}, "s": "b", "n": 2, "k": 0}),
            ),
            // no_replace keeps old scalars and lists but always recurses into mappings.
            (
                "dict()+list()+str()",
                json!({"l": [1, 2], "d": {"x": 1, "y": 1, "z": 2}, "s": "a", "n": 1, "k": 0}),
            ),
            (
                "list(append)+dict(no_replace,recurse_list)+str()",
                json!({"l": [1, 2, 3], "d": {"x": 1, "y": 1, "z": 2}, "s": "a", "n": 1, "k": 0}),
            ),
            (
                "dict(recurse_array,recurse_str)+list(prepend)+str(append)",
                json!({"l": [3, 1, 2], "d": {"x": 1, "y": 1, "z": 2}, "s": "ab", "n": 1, "k": 0}),
            ),
            // list() replaces index by index and keeps the old list's length.
            (
                "dict(recurse_list)+list()",
                json!({"l": [3, 2], "d": {"x": 1, "y": 1, "z": 2}, "s": "a", "n": 1, "k": 0}),
            ),
            (
                "dict(recurse_list)+list(no_replace)",
                json!({"l": [1, 2], "d": {"x": 1, "y": 1, "z": 2}, "s": "a", "n": 1, "k": 0}),
            ),
            // Without a dict merger the old mapping is kept as it is.
            ("list(append)", old.clone()),
        ];
        for (how, want) in cases {
            assert_eq!(merged(old.clone(), new.clone(), how), want, "{how}");
        }
    }

    #[test]
    fn allow_delete_and_merge_keys_removed() {
        let got = merged(
            json!({"a": 1, "b": 2}),
            json!({"a": null, "merge_how": "x", "merge_type": "y"}),
            "dict(allow_delete)",
        );
        assert_eq!(got, json!({"b": 2}));
    }

    #[test]
    fn parse_forms() {
        let s = parse_merge_how(" List(Append) + dict(no_replace, recurse_list)+str() ").unwrap();
        let v = mergers_from_value(&json!([
            {"name": "list", "settings": ["append"]},
            ["dict", "no_replace", "recurse_list"],
            {"name": "str"}
        ]))
        .unwrap();
        assert_eq!(s, v);
        assert_eq!(s.list.unwrap().method, ListMethod::Append);
        assert!(s.dict.unwrap().recurse_list);
        assert!(parse_merge_how("dict(replace").is_err());
        assert!(parse_merge_how("yaml(x)").is_err());
        assert!(mergers_from_value(&json!(3)).is_err());
        let typo = parse_merge_how("list(apend)").unwrap();
        assert_eq!(typo.ignored, vec!["list(apend)".to_string()]);
        assert!(parse_merge_how("").unwrap().is_empty());
    }

    #[test]
    fn first_merger_for_a_type_wins() {
        let mut body = parse_merge_how("list(append)").unwrap();
        body.extend(parse_merge_how("list(prepend)+dict()").unwrap());
        assert_eq!(body.list.unwrap().method, ListMethod::Append);
        assert!(body.dict.is_some());
    }

    #[test]
    fn take_merge_how_prefers_merge_how() {
        let mut cfg = json!({"merge_type": "dict()", "merge_how": "list(append)", "a": 1});
        let m = take_merge_how(&mut cfg).unwrap().unwrap();
        assert!(m.list.is_some() && m.dict.is_none());
        assert_eq!(cfg, json!({"a": 1}));
    }

    #[test]
    fn merge_replace_recurses_and_replaces_lists() {
        let mut base = json!({"a": {"x": 1, "l": [1]}, "b": 1});
        merge_replace(&mut base, json!({"a": {"y": 2, "l": [2]}, "b": {"c": 3}}));
        assert_eq!(
            base,
            json!({"a": {"x": 1, "y": 2, "l": [2]}, "b": {"c": 3}})
        );
    }
}
