//! The tree the builder makes before JSON: scalars resolved, anchored subtrees shared through
//! `Rc`, and each node's expanded size, bytes and height known, so budgets are checked by
//! arithmetic.

use serde_json::{Map, Value};
use std::fmt::{self, Write};
use std::rc::Rc;

pub(super) struct Node {
    pub(super) kind: Kind,
    /// Nodes in this subtree once aliases are expanded (keys count as nodes).
    pub(super) count: u64,
    /// Bytes of keys and scalars in this subtree once aliases are expanded, each scalar counted
    /// as long as it would be as a key (`null` is 4): what `to_value` copies.
    pub(super) bytes: u64,
    /// Collections on the longest path down from here (0 for a scalar).
    pub(super) height: u32,
}

pub(super) enum Kind {
    Leaf(Value),
    Seq(Vec<Rc<Node>>),
    /// In order; a later duplicate wins when made into JSON, as in PyYAML.
    Map(Vec<(String, Rc<Node>)>),
}

impl Node {
    pub(super) fn leaf(value: Value) -> Node {
        let bytes = match &value {
            Value::String(s) => len(s),
            // As `key_string` writes it, measured without making the string.
            other => {
                let mut counter = Counter(0);
                let _ = write!(counter, "{other}");
                counter.0
            }
        };
        Node {
            kind: Kind::Leaf(value),
            count: 1,
            bytes,
            height: 0,
        }
    }

    pub(super) fn seq(items: Vec<Rc<Node>>) -> Node {
        let count = items.iter().map(|n| n.count).fold(1, u64::saturating_add);
        let bytes = items.iter().map(|n| n.bytes).fold(0, u64::saturating_add);
        let height = 1 + items.iter().map(|n| n.height).max().unwrap_or(0);
        Node {
            kind: Kind::Seq(items),
            count,
            bytes,
            height,
        }
    }

    pub(super) fn map(entries: Vec<(String, Rc<Node>)>) -> Node {
        let count = entries
            .iter()
            .map(|(_, n)| n.count.saturating_add(1))
            .fold(1, u64::saturating_add);
        let bytes = entries
            .iter()
            .map(|(k, n)| len(k).saturating_add(n.bytes))
            .fold(0, u64::saturating_add);
        let height = 1 + entries.iter().map(|(_, n)| n.height).max().unwrap_or(0);
        Node {
            kind: Kind::Map(entries),
            count,
            bytes,
            height,
        }
    }

    /// The JSON value, aliases expanded: call only once `count` and `bytes` are within budget,
    /// as every shared subtree is copied here once per reference.
    pub(super) fn to_value(&self) -> Value {
        match &self.kind {
            Kind::Leaf(v) => v.clone(),
            Kind::Seq(items) => Value::Array(items.iter().map(|n| n.to_value()).collect()),
            Kind::Map(entries) => {
                let mut map = Map::new();
                for (key, node) in entries {
                    map.insert(key.clone(), node.to_value());
                }
                Value::Object(map)
            }
        }
    }
}

impl Node {
    /// `to_value` for a tree this is the only owner of: unshared nodes are moved into the
    /// JSON rather than copied (a large scalar is not held twice); shared ones are copied.
    pub(super) fn into_value(node: Rc<Node>) -> Value {
        let node = match Rc::try_unwrap(node) {
            Ok(node) => node,
            Err(shared) => return shared.to_value(),
        };
        match node.kind {
            Kind::Leaf(v) => v,
            Kind::Seq(items) => Value::Array(items.into_iter().map(Node::into_value).collect()),
            Kind::Map(entries) => {
                let mut map = Map::new();
                for (key, node) in entries {
                    map.insert(key, Node::into_value(node));
                }
                Value::Object(map)
            }
        }
    }
}

/// Length of a key or scalar, in the budget's unit.
fn len(s: &str) -> u64 {
    u64::try_from(s.len()).unwrap_or(u64::MAX)
}

/// Counts what is written to it, so a scalar's length is known without an allocation.
struct Counter(u64);

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.saturating_add(len(s));
        Ok(())
    }
}

/// Adds the entries `<<: value` brings in; `None` when `value` is not a map or list of maps.
/// In a list the first map wins, so the maps are added last to first. Every key is copied:
/// `value.bytes` must have been charged already, as it is when `value` is built or aliased.
pub(super) fn merge_into(merged: &mut Vec<(String, Rc<Node>)>, value: &Node) -> Option<()> {
    match &value.kind {
        Kind::Map(entries) => merged.extend(entries.iter().cloned()),
        Kind::Seq(items) => {
            for item in items.iter().rev() {
                let Kind::Map(entries) = &item.kind else {
                    return None;
                };
                merged.extend(entries.iter().cloned());
            }
        }
        Kind::Leaf(_) => return None,
    }
    Some(())
}

/// A scalar key as JSON would show it: `true`, `1`, `null`; collections cannot be keys.
pub(super) fn key_string(node: &Node) -> Option<String> {
    match &node.kind {
        Kind::Leaf(Value::String(s)) => Some(s.clone()),
        Kind::Leaf(other) => Some(other.to_string()),
        _ => None,
    }
}
