//! Builds a document from saphyr events. Anchored nodes are shared (`Rc`) rather than copied and
//! every node knows its expanded size, bytes and height, so an alias bomb is refused by
//! arithmetic before anything is copied; the JSON value is made only once the whole tree is
//! within budget.

use super::node::{key_string, merge_into, Node};
use super::resolve::{self, TagKind};
use super::{Doc, ValueProblem, YamlError};
use crate::limits::Limits;
use saphyr_parser::{Event, Parser, ScalarStyle, Span, StrInput, Tag};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::rc::Rc;

/// Reads the single document of `text` (no BOM) into a `Doc`.
pub(super) fn document(text: &str, limits: &Limits) -> Result<Doc, YamlError> {
    let mut b = Builder {
        events: Parser::new_from_str(text),
        limits,
        anchors: HashMap::new(),
        total: 0,
        bytes: 0,
        path: String::new(),
        quiet: false,
        lines: BTreeMap::new(),
        line_budget: line_budget(text.len()),
        problems: Vec::new(),
    };
    let root = loop {
        match b.next()? {
            (Event::StreamStart, _) => continue,
            (Event::StreamEnd, _) => return Ok(Doc::default()),
            (Event::DocumentStart(_), _) => {
                let (event, span) = b.next()?;
                break b.value(event, span, 0)?;
            }
            (_, span) => return Err(YamlError::syntax(span, "expected a document")),
        }
    };
    loop {
        match b.next()? {
            (Event::DocumentEnd, _) => continue,
            (Event::StreamEnd, _) => break,
            // safe_load refuses a stream of several documents, even an empty second one.
            (_, span) => {
                return Err(YamlError::syntax(
                    span,
                    "expected a single document in the stream",
                ))
            }
        }
    }
    // `total` and `bytes` bound the root's `count` and `bytes`; checked again here because
    // `to_value` copies every shared subtree once per reference, exactly what they budget.
    b.total = 0;
    b.bytes = 0;
    b.spend(root.count, root.bytes, Span::default())?;
    Ok(Doc {
        value: Node::into_value(root),
        lines: b.lines,
        problems: b.problems,
    })
}

struct Builder<'a, 'l> {
    events: Parser<'a, StrInput<'a>>,
    limits: &'l Limits,
    anchors: HashMap<usize, Rc<Node>>,
    /// Nodes built or referenced by aliases so far: never less than the final tree's size.
    total: u64,
    /// Bytes of keys and scalars built or referenced by aliases so far (`Node::bytes`): never
    /// less than the final tree's.
    bytes: u64,
    /// Dotted path of the node being built; segments are pushed and truncated, never rebuilt.
    path: String,
    lines: BTreeMap<String, u32>,
    /// Set while building a `<<` value (its keys are recorded where they are merged into) or
    /// under a key longer than `MAX_KEY_BYTES`: nothing is recorded and the path is not grown.
    quiet: bool,
    /// Bytes of paths the line map may still take; see `line_budget`.
    line_budget: usize,
    /// Scalars that could not be constructed (`!!int abc`, `!!binary` that is not base64, an
    /// unknown tag): each is null in the value, so one bad value fails its key, not the document.
    problems: Vec<ValueProblem>,
}

/// Keys longer than this are not recorded in the line map, nor is anything under them: such a
/// key is no cloud-config key, and every path through it would repeat all of it.
pub(super) const MAX_KEY_BYTES: usize = 256;

/// Bytes of paths the line map may hold. It is a convenience for diagnostics, so it has a budget
/// of its own rather than a refusal (RELIABILITY rule 9): four times the input plus 64 KiB.
/// Every record is charged its path's length (a merged key even when already there, as its path
/// is copied anyway); lines are recorded in document order until the budget runs out, then
/// recording stops and the parse goes on. Without it every node copied its whole dotted path: a
/// 1 MB key over a million-item list is 1 MB of input but a terabyte of paths. The number of
/// entries needs no budget of its own: each one is a node spent against `yaml_nodes` (a merged
/// key is part of its alias's count). Real cloud-configs stay well inside, since a path is little
/// longer than the keys written on the lines around its value.
pub(super) fn line_budget(input: usize) -> usize {
    input.saturating_mul(4).saturating_add(64 * 1024)
}

impl<'a> Builder<'a, '_> {
    fn next(&mut self) -> Result<(Event<'a>, Span), YamlError> {
        match self.events.next_event() {
            Some(Ok(pair)) => Ok(pair),
            Some(Err(e)) => {
                let (line, col) = (e.marker().line(), e.marker().col());
                // saphyr counts flow levels in a u8: past 255 it is a nesting budget too.
                if e.info() == "recursion limit exceeded" {
                    let msg = "nested deeper than 255 flow levels".to_string();
                    return Err(YamlError::at(line, col, msg).budget("yaml_depth"));
                }
                Err(YamlError::at(line, col, e.info().to_string()))
            }
            None => Err(YamlError::at(0, 0, "unexpected end of input".to_string())),
        }
    }

    /// Charges `nodes` and `bytes` of keys and scalars, before anything of them is copied.
    fn spend(&mut self, nodes: u64, bytes: u64, span: Span) -> Result<(), YamlError> {
        self.total = self.total.saturating_add(nodes);
        if self.total > self.limits.yaml_nodes {
            let msg = format!(
                "more than {} nodes once aliases are expanded",
                self.limits.yaml_nodes
            );
            return Err(YamlError::syntax(span, msg).budget("yaml_nodes"));
        }
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.limits.yaml_expanded_bytes {
            let msg = format!(
                "more than {} bytes of keys and scalars once aliases are expanded",
                self.limits.yaml_expanded_bytes
            );
            return Err(YamlError::syntax(span, msg).budget("yaml_expanded_bytes"));
        }
        Ok(())
    }

    fn check_depth(&self, levels: u32, span: Span) -> Result<(), YamlError> {
        if levels > self.limits.yaml_depth {
            let msg = format!("nested deeper than {} levels", self.limits.yaml_depth);
            return Err(YamlError::syntax(span, msg).budget("yaml_depth"));
        }
        Ok(())
    }

    /// Whether lines are still being recorded here; when not, the path is left as it is.
    fn recording(&self) -> bool {
        !self.quiet && self.line_budget > 0
    }

    /// Appends a path segment and returns the length to truncate back to; nothing is appended
    /// where nothing will be recorded, so the path never grows by more than a short key.
    fn push(&mut self, segment: impl std::fmt::Display) -> usize {
        let mark = self.path.len();
        if self.recording() {
            if mark > 0 {
                self.path.push('.');
            }
            let _ = write!(self.path, "{segment}");
        }
        mark
    }

    /// Charges one record of the current path to the line budget; once it runs out, no more.
    fn admit(&mut self) -> bool {
        if !self.recording() {
            return false;
        }
        let cost = self.path.len();
        if cost > self.line_budget {
            self.line_budget = 0;
            return false;
        }
        self.line_budget -= cost;
        true
    }

    fn record(&mut self, line: u32) {
        if self.admit() {
            self.lines.insert(self.path.clone(), line);
        }
    }

    /// The node starting with `event`; `depth` is the number of collections around it.
    fn value(&mut self, event: Event<'a>, span: Span, depth: u32) -> Result<Rc<Node>, YamlError> {
        let (anchor, node) = match event {
            Event::Alias(id) => {
                let Some(node) = self.anchors.get(&id).cloned() else {
                    // saphyr refuses unknown anchors; what is left is an alias inside its own
                    // anchored node, a cycle that JSON cannot hold.
                    return Err(YamlError::syntax(
                        span,
                        "alias refers to its own enclosing node",
                    ));
                };
                self.check_depth(depth.saturating_add(node.height), span)?;
                // Before the node is used: a key or `<<` copies it, and so does `to_value`.
                self.spend(node.count, node.bytes, span)?;
                return Ok(node);
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.spend(1, 0, span)?;
                let leaf = resolve::scalar(text, style, tag.as_deref()).unwrap_or_else(|msg| {
                    let at = YamlError::syntax(span, "");
                    self.problems.push(ValueProblem {
                        path: self.path.clone(),
                        line: at.line,
                        column: at.column,
                        message: msg,
                    });
                    Value::Null
                });
                let leaf = Node::leaf(leaf);
                self.spend(0, leaf.bytes, span)?;
                (anchor, leaf)
            }
            Event::SequenceStart(anchor, tag) => {
                self.check_depth(depth + 1, span)?;
                self.spend(1, 0, span)?;
                (anchor, self.sequence(tag, span, depth + 1)?)
            }
            Event::MappingStart(anchor, tag) => {
                self.check_depth(depth + 1, span)?;
                self.spend(1, 0, span)?;
                (anchor, self.mapping(tag, span, depth + 1)?)
            }
            _ => return Err(YamlError::syntax(span, "unexpected YAML event")),
        };
        let node = Rc::new(node);
        if anchor != 0 {
            self.anchors.insert(anchor, Rc::clone(&node));
        }
        Ok(node)
    }

    fn sequence(
        &mut self,
        tag: Option<Cow<Tag>>,
        span: Span,
        depth: u32,
    ) -> Result<Node, YamlError> {
        match resolve::tag_kind(tag.as_deref()) {
            TagKind::Implicit | TagKind::Core("seq" | "omap" | "pairs") => {}
            _ => {
                let msg = resolve::collection_tag_error(tag.as_deref(), "list");
                return Err(YamlError::syntax(span, msg));
            }
        }
        let mut items = Vec::new();
        loop {
            let (event, item_span) = self.next()?;
            if matches!(event, Event::SequenceEnd) {
                break;
            }
            let mark = self.push(items.len());
            self.record(line(item_span));
            let item = self.value(event, item_span, depth);
            self.path.truncate(mark);
            items.push(item?);
        }
        Ok(Node::seq(items))
    }

    fn mapping(
        &mut self,
        tag: Option<Cow<Tag>>,
        span: Span,
        depth: u32,
    ) -> Result<Node, YamlError> {
        let set = match resolve::tag_kind(tag.as_deref()) {
            TagKind::Implicit | TagKind::Core("map") => false,
            TagKind::Core("set") => true,
            _ => {
                let msg = resolve::collection_tag_error(tag.as_deref(), "map");
                return Err(YamlError::syntax(span, msg));
            }
        };
        // PyYAML's flatten_mapping: merged entries first, explicit ones after, so they win.
        let mut merged: Vec<(String, Rc<Node>)> = Vec::new();
        let mut entries: Vec<(String, Rc<Node>)> = Vec::new();
        loop {
            let (event, key_span) = self.next()?;
            if matches!(event, Event::MappingEnd) {
                break;
            }
            let is_merge =
                matches!(&event, Event::Scalar(t, ScalarStyle::Plain, _, None) if t == "<<");
            let key = self.value(event, key_span, depth)?;
            let key = key_string(&key).ok_or_else(|| {
                YamlError::syntax(key_span, "a list or map cannot be a mapping key")
            })?;
            let (event, value_span) = self.next()?;
            // Scalars report their own line; collections and block scalars that of their key.
            let value_line = match &event {
                Event::Scalar(_, ScalarStyle::Literal | ScalarStyle::Folded, _, _) => {
                    line(key_span)
                }
                Event::Scalar(..) | Event::Alias(_) => line(value_span),
                _ => line(key_span),
            };
            let long = key.len() > MAX_KEY_BYTES;
            let quiet = self.quiet;
            self.quiet |= long;
            let mark = self.push(&key);
            if !is_merge {
                self.record(value_line);
            }
            self.quiet |= is_merge;
            let value = self.value(event, value_span, depth);
            self.quiet = quiet;
            self.path.truncate(mark);
            let value = value?;
            if !is_merge {
                entries.push((key, value));
                continue;
            }
            let start = merged.len();
            merge_into(&mut merged, &value).ok_or_else(|| {
                YamlError::syntax(value_span, "<< expects a map or a list of maps")
            })?;
            // A merged key's line is the `<<` line unless the key is also written out.
            for (key, _) in &merged[start..] {
                if key.len() > MAX_KEY_BYTES || !self.recording() {
                    continue;
                }
                let mark = self.push(key);
                if self.admit() {
                    self.lines.entry(self.path.clone()).or_insert(value_line);
                }
                self.path.truncate(mark);
            }
        }
        merged.append(&mut entries);
        if set {
            let null = Rc::new(Node::leaf(Value::Null));
            merged.iter_mut().for_each(|(_, v)| *v = Rc::clone(&null));
        }
        Ok(Node::map(merged))
    }
}

fn line(span: Span) -> u32 {
    u32::try_from(span.start.line()).unwrap_or(u32::MAX)
}
