//! A small language for what a cloud-config value may be (type, enum values, nested mappings),
//! written as `const` tables in each module's files (and `schema::rules` for the keys no module
//! owns), and the checker that walks a value against one. It
//! covers the part of JSON Schema that cloud-init's cloud-config schema uses; messages name the
//! expected shape and never quote the value.

use crate::error::{Diag, Reason};
use serde_json::Value;

/// What a value may be.
pub enum Shape {
    Any,
    Str,
    Bool,
    Int,
    Null,
    /// One of these literal values.
    Lit(&'static [Lit]),
    /// A list whose items have a shape; at least `min` and at most `max` of them.
    List {
        item: &'static Shape,
        min: usize,
        max: usize,
    },
    /// A mapping with known fields.
    Map(&'static Fields),
    /// A mapping with keys of the user's choosing (device aliases, group names), each value of
    /// one shape.
    Dict(&'static Shape),
    /// A mapping whose key names follow a rule (`ssh_keys`' `<type>_<part>`): the test, what
    /// the names must be, and the shape of each value.
    NamedKeys(fn(&str) -> bool, &'static str, &'static Shape),
    /// The first alternative that fits wins.
    OneOf(&'static [Shape]),
    /// Accepted, with a deprecation saying what to write instead.
    Deprecated(&'static Shape, &'static str),
    /// A string that must pass a test; the text says what it must be.
    Pattern(fn(&str) -> bool, &'static str),
    /// A shape whose wrong-type message says more than its type (`a string such as '0644'`).
    Named(&'static Shape, &'static str),
}

pub enum Lit {
    S(&'static str),
    B(bool),
}

pub struct Fields {
    pub fields: &'static [(&'static str, Shape)],
    pub required: &'static [&'static str],
    /// Whether keys not in `fields` are accepted (cloud-init's `additionalProperties`).
    pub open: bool,
}

/// A list with at least `min` items.
pub const fn list(item: &'static Shape, min: usize) -> Shape {
    Shape::List {
        item,
        min,
        max: usize::MAX,
    }
}

/// Checks `value` at key path `path` against `shape`, adding every problem found.
pub fn check(value: &Value, shape: &Shape, path: &str, out: &mut Vec<Diag>) {
    match (shape, value) {
        (Shape::Any, _)
        | (Shape::Str, Value::String(_))
        | (Shape::Bool, Value::Bool(_))
        | (Shape::Null, Value::Null) => {}
        (Shape::Int, Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        (Shape::Lit(lits), v) if lits.iter().any(|l| lit_is(l, v)) => {}
        (Shape::Pattern(test, _), Value::String(s)) if test(s) => {}
        (Shape::List { item, min, max }, Value::Array(items)) => {
            if items.len() < *min {
                let msg = if *min == 1 {
                    "must not be empty".to_string()
                } else {
                    format!("needs at least {min} items")
                };
                out.push(Diag::error(Reason::BadValue, msg).key(path));
            } else if items.len() > *max {
                out.push(
                    Diag::error(Reason::BadValue, format!("has more than {max} items")).key(path),
                );
            }
            for (i, v) in items.iter().enumerate() {
                check(v, item, &format!("{path}.{i}"), out);
            }
        }
        (Shape::Map(fields), Value::Object(map)) => check_fields(map, fields, path, out),
        (Shape::Dict(each), Value::Object(map)) => {
            for (k, v) in map {
                check(v, each, &format!("{path}.{k}"), out);
            }
        }
        (Shape::NamedKeys(test, what, each), Value::Object(map)) => {
            for (k, v) in map {
                let sub = format!("{path}.{k}");
                if !test(k) {
                    let msg = format!("unknown key: expected {what}");
                    out.push(Diag::error(Reason::UnknownKey, msg).key(&sub));
                }
                check(v, each, &sub, out);
            }
        }
        (Shape::OneOf(alts), v) => one_of(alts, v, shape, path, out),
        (Shape::Named(inner, name), v) => {
            let mut found = Vec::new();
            check(v, inner, path, &mut found);
            for p in found
                .iter_mut()
                .filter(|p| p.key.as_deref() == Some(path) && p.is_error())
            {
                p.message = format!("must be {name}");
            }
            out.extend(found);
        }
        (Shape::Deprecated(inner, note), v) => {
            let before = out.len();
            check(v, inner, path, out);
            if !out[before..].iter().any(Diag::is_error) {
                out.push(Diag::deprecated(Reason::Deprecated, *note).key(path));
            }
        }
        (shape, _) => {
            let msg = format!("must be {}", describe(shape));
            out.push(Diag::error(Reason::WrongType, msg).key(path))
        }
    }
}

fn check_fields(
    map: &serde_json::Map<String, Value>,
    fields: &Fields,
    path: &str,
    out: &mut Vec<Diag>,
) {
    for (k, v) in map {
        let sub = format!("{path}.{k}");
        match fields.fields.iter().find(|(name, _)| name == k) {
            Some((_, shape)) => check(v, shape, &sub, out),
            None if fields.open => {}
            None => {
                out.push(Diag::error(Reason::UnknownKey, "unknown key (not allowed here)").key(sub))
            }
        }
    }
    for name in fields.required {
        if !map.contains_key(*name) {
            out.push(Diag::error(Reason::MissingKey, format!("needs the key {name}")).key(path));
        }
    }
}

/// An alternative that fits wins, with its deprecations. When none does, the alternative of the
/// value's own type (a mapping for a mapping) with the fewest errors explains best; with none,
/// say what is accepted.
fn one_of(alts: &[Shape], v: &Value, whole: &Shape, path: &str, out: &mut Vec<Diag>) {
    let mut same_type: Vec<Vec<Diag>> = Vec::new();
    for alt in alts {
        let mut found = Vec::new();
        check(v, alt, path, &mut found);
        if !found.iter().any(Diag::is_error) {
            out.extend(found);
            return;
        }
        if fits_type(alt, v) {
            same_type.push(found);
        }
    }
    let errors = |f: &Vec<Diag>| f.iter().filter(|p| p.is_error()).count();
    match same_type.into_iter().min_by_key(errors) {
        Some(best) => out.extend(best),
        None => {
            let msg = format!("must be {}", describe(whole));
            out.push(Diag::error(Reason::WrongType, msg).key(path))
        }
    }
}

/// Whether `v` is of the JSON type `shape` takes, whatever its content.
fn fits_type(shape: &Shape, v: &Value) -> bool {
    match shape {
        Shape::List { .. } => v.is_array(),
        Shape::Map(_) | Shape::Dict(_) | Shape::NamedKeys(..) => v.is_object(),
        Shape::Deprecated(inner, _) | Shape::Named(inner, _) => fits_type(inner, v),
        Shape::OneOf(alts) => alts.iter().any(|a| fits_type(a, v)),
        _ => false,
    }
}

fn lit_is(lit: &Lit, v: &Value) -> bool {
    match (lit, v) {
        (Lit::S(s), Value::String(x)) => s == x,
        (Lit::B(b), Value::Bool(x)) => b == x,
        _ => false,
    }
}

/// What a shape accepts, in words: `a string or a list`.
pub fn describe(shape: &Shape) -> String {
    match shape {
        Shape::Any => "anything".into(),
        Shape::Str => "a string".into(),
        Shape::Bool => "true or false".into(),
        Shape::Int => "an integer".into(),
        Shape::Null => "empty".into(),
        Shape::Lit(lits) => describe_lits(lits.iter().collect()),
        Shape::List { .. } => "a list".into(),
        Shape::Map(_) | Shape::Dict(_) | Shape::NamedKeys(..) => "a mapping".into(),
        Shape::OneOf(alts) => {
            // Literal alternatives make one list: `one of 'auto', 'off', false`.
            let lits: Vec<&Lit> = alts.iter().flat_map(literals).collect();
            let mut words: Vec<String> = Vec::new();
            if !lits.is_empty() {
                words.push(describe_lits(lits));
            }
            for alt in alts.iter().filter(|a| literals(a).is_empty()) {
                let w = describe(alt);
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            words.join(" or ")
        }
        Shape::Deprecated(inner, _) => describe(inner),
        Shape::Pattern(_, what) | Shape::Named(_, what) => (*what).into(),
    }
}

/// The literal values a shape is made of, if it is only literals.
fn literals(shape: &Shape) -> Vec<&Lit> {
    match shape {
        Shape::Lit(lits) => lits.iter().collect(),
        Shape::Deprecated(inner, _) => literals(inner),
        _ => Vec::new(),
    }
}

fn describe_lits(lits: Vec<&Lit>) -> String {
    let words: Vec<String> = lits
        .iter()
        .map(|l| match l {
            Lit::S(s) => format!("'{s}'"),
            Lit::B(b) => b.to_string(),
        })
        .collect();
    format!("one of {}", words.join(", "))
}
