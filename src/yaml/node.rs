//! The tree the builder makes before JSON: scalars resolved, anchored subtrees shared through
//! `Rc`, and each node's expanded size and height known, so budgets are checked by arithmetic.

use serde_json::{Map, Value};
use std::rc::Rc;

pub(super) struct Node {
    pub(super) kind: Kind,
    /// Nodes in this subtree once aliases are expanded (keys count as nodes).
    pub(super) count: u64,
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
        Node {
            kind: Kind::Leaf(value),
            count: 1,
            height: 0,
        }
    }

    pub(super) fn seq(items: Vec<Rc<Node>>) -> Node {
        let count = items.iter().map(|n| n.count).fold(1, u64::saturating_add);
        let height = 1 + items.iter().map(|n| n.height).max().unwrap_or(0);
        Node {
            kind: Kind::Seq(items),
            count,
            height,
        }
    }

    pub(super) fn map(entries: Vec<(String, Rc<Node>)>) -> Node {
        let count = entries
            .iter()
            .map(|(_, n)| n.count.saturating_add(1))
            .fold(1, u64::saturating_add);
        let height = 1 + entries.iter().map(|(_, n)| n.height).max().unwrap_or(0);
        Node {
            kind: Kind::Map(entries),
            count,
            height,
        }
    }

    /// The JSON value, aliases expanded: call only once `count` is within budget.
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

/// Adds the entries `<<: value` brings in; `None` when `value` is not a map or list of maps.
/// In a list the first map wins, so the maps are added last to first.
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
