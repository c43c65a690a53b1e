//! Typed reads of a module's mapping for the configuration-management modules' readers, each
//! problem an error naming its key path (never the value). Pure: the readers `ember schema`
//! links use only this.

use crate::common::distro::flag;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// A mapping found at `key`.
pub struct Obj<'a> {
    pub map: &'a Map<String, Value>,
    pub key: String,
}

pub fn wrong(key: &str, expected: &str) -> Diag {
    Diag::error(Reason::WrongType, format!("expected {expected}")).key(key)
}

impl<'a> Obj<'a> {
    /// `v` as a mapping, else an error at `key`.
    pub fn of(v: &'a Value, key: &str, diags: &mut Vec<Diag>) -> Option<Obj<'a>> {
        match v.as_object() {
            Some(map) => Some(Obj {
                map,
                key: key.to_string(),
            }),
            None => {
                diags.push(wrong(key, "a mapping"));
                None
            }
        }
    }

    pub fn path(&self, f: &str) -> String {
        format!("{}.{f}", self.key)
    }

    pub fn get(&self, f: &str) -> Option<&'a Value> {
        self.map.get(f).filter(|v| !v.is_null())
    }

    pub fn str(&self, f: &str, diags: &mut Vec<Diag>) -> Option<String> {
        match self.get(f)? {
            Value::String(s) => Some(s.clone()),
            _ => {
                diags.push(wrong(&self.path(f), "a string"));
                None
            }
        }
    }

    /// cloud-init's booleans (true/false and the YAML 1.1 words).
    pub fn flag(&self, f: &str, diags: &mut Vec<Diag>) -> Option<bool> {
        flag(self.get(f), &self.path(f), diags)
    }

    pub fn int(&self, f: &str, diags: &mut Vec<Diag>) -> Option<i64> {
        match self.get(f)? {
            Value::Number(n) if n.is_i64() => n.as_i64(),
            _ => {
                diags.push(wrong(&self.path(f), "an integer"));
                None
            }
        }
    }

    /// A list of strings; a bad item is an error and left out.
    pub fn strs(&self, f: &str, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
        let Some(items) = self.get(f)?.as_array() else {
            diags.push(wrong(&self.path(f), "a list of strings"));
            return None;
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) => out.push(s.to_string()),
                None => diags.push(wrong(&format!("{}.{i}", self.path(f)), "a string")),
            }
        }
        Some(out)
    }

    pub fn obj(&self, f: &str, diags: &mut Vec<Diag>) -> Option<Obj<'a>> {
        let path = self.path(f);
        Obj::of(self.get(f)?, &path, diags)
    }
}

/// A scalar as Python's `str()` writes it where cloud-init formats a config value into a
/// command line or a file (`True`, `5`, `1.5`); lists and mappings as JSON.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}
