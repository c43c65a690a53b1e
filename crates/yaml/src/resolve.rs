//! Scalar resolution as PyYAML's `safe_load` does it (YAML 1.1): plain scalars become null, bool,
//! int, float or string; explicit `!!` tags are constructed; any other tag is refused.

use base64::Engine;
use ember_core::yaml_doc::BINARY_PREFIX;
use saphyr_parser::{ScalarStyle, Tag};
use serde_json::{Number, Value};
use std::borrow::Cow;

const CORE: &str = "tag:yaml.org,2002:";

/// What a tag asks for, once `!!x`, `!<tag:yaml.org,2002:x>` and `!` are told apart.
#[derive(Debug, PartialEq)]
pub(super) enum TagKind<'t> {
    /// No tag, or the non-specific `!`: resolve as if untagged.
    Implicit,
    /// A `tag:yaml.org,2002:` tag, by its suffix (`str`, `map`, ...).
    Core(&'t str),
    /// Anything else (`!python/object`, `!foo`): safe_load refuses these.
    Unsupported,
}

pub(super) fn tag_kind(tag: Option<&Tag>) -> TagKind<'_> {
    let Some(tag) = tag else {
        return TagKind::Implicit;
    };
    if tag.handle == CORE {
        return TagKind::Core(&tag.suffix);
    }
    if tag.handle.is_empty() {
        if tag.suffix == "!" {
            return TagKind::Implicit;
        }
        if let Some(suffix) = tag.suffix.strip_prefix(CORE) {
            return TagKind::Core(suffix);
        }
    }
    TagKind::Unsupported
}

/// The value of one scalar event. The error is a message without the scalar's text.
/// Takes the parser's text: an owned one (a long scalar) becomes the string without a copy.
pub(super) fn scalar<'t>(
    text: impl Into<Cow<'t, str>>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value, String> {
    let text = text.into();
    let plain = style == ScalarStyle::Plain;
    match tag_kind(tag) {
        // PyYAML resolves `! 12` to 12 but `! "12"` to "12", like the untagged forms.
        TagKind::Implicit if plain => Ok(plain_scalar(text)),
        TagKind::Implicit => Ok(Value::String(owned(text))),
        TagKind::Core(suffix) => core(suffix, text, tag),
        TagKind::Unsupported => Err(unsupported(tag)),
    }
}

const SCALAR_TAGS: [&str; 7] = ["str", "timestamp", "null", "bool", "int", "float", "binary"];

/// Why `tag` cannot stand on a list or map (`what`).
pub(super) fn collection_tag_error(tag: Option<&Tag>, what: &str) -> String {
    match tag_kind(tag) {
        TagKind::Core(suffix) if SCALAR_TAGS.contains(&suffix) => {
            format!("tag !!{suffix} does not apply to a {what}")
        }
        _ => unsupported(tag),
    }
}

fn unsupported(tag: Option<&Tag>) -> String {
    // A tag is markup, not a value, so naming it leaks nothing; it is capped all the same.
    let name = tag.map(Tag::to_string).unwrap_or_default();
    let name: String = name.chars().take(60).collect();
    format!("unsupported tag {name}")
}

fn core(suffix: &str, text: Cow<'_, str>, tag: Option<&Tag>) -> Result<Value, String> {
    let value = match suffix {
        // Timestamps stay text: JSON has no date type and cloud-init modules want strings.
        "str" | "timestamp" => Some(Value::String(owned(text))),
        "null" => Some(Value::Null),
        // PyYAML's constructor lowercases first: `!!bool yEs` is true.
        "bool" => implicit_bool(&text.to_ascii_lowercase()).map(Value::Bool),
        "int" => int(&text),
        "float" => explicit_float(&text),
        "binary" => binary(&text),
        "map" | "set" | "seq" | "omap" | "pairs" => {
            return Err(format!("tag !!{suffix} does not apply to a scalar"))
        }
        _ => return Err(unsupported(tag)),
    };
    value.ok_or_else(|| format!("value does not fit its tag !!{suffix}"))
}

/// The YAML 1.1 implicit resolver. Deliberate differences from PyYAML: sexagesimal numbers
/// (`190:20:30`) and timestamps stay strings, so an unquoted MAC address or time is kept as
/// written; `=` (the `!!value` tag, which safe_load cannot construct) is a plain string.
pub(super) fn plain_scalar<'t>(text: impl Into<Cow<'t, str>>) -> Value {
    let text = text.into();
    if matches!(&*text, "" | "~" | "null" | "Null" | "NULL") {
        return Value::Null;
    }
    if let Some(b) = implicit_bool(&text) {
        return Value::Bool(b);
    }
    match int(&text).or_else(|| implicit_float(&text)) {
        Some(number) => number,
        None => Value::String(owned(text)),
    }
}

/// The scalar's text as the value's string. The parser's buffers have spare room: a short
/// string is fitted (thousands of list items would otherwise each keep theirs), a long one
/// is moved as it is (its spare room was never touched, so it costs no memory).
fn owned(text: Cow<'_, str>) -> String {
    let mut s = text.into_owned();
    if s.len() < 1 << 16 {
        s.shrink_to_fit();
    }
    s
}

fn implicit_bool(text: &str) -> Option<bool> {
    // Only these spellings: YAML 1.1 also lists y/n, but PyYAML's resolver does not.
    match text {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

fn all(s: &str, ok: impl Fn(char) -> bool) -> bool {
    s.chars().all(ok)
}

fn split_sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

/// PyYAML's int regex: `0b…` binary, `0x…` hex, leading-zero octal, decimal; `_` anywhere after
/// the first digit. `0o17` is not octal in YAML 1.1. Integers beyond i64/u64 stay strings:
/// Python would keep them exact and a JSON float would not.
fn int(text: &str) -> Option<Value> {
    let (negative, body) = split_sign(text);
    let (digits, radix) = if let Some(rest) = body.strip_prefix("0b") {
        (rest, 2)
    } else if let Some(rest) = body.strip_prefix("0x") {
        (rest, 16)
    } else if body == "0" {
        (body, 10)
    } else if let Some(rest) = body.strip_prefix('0') {
        (rest, 8)
    } else if body.starts_with(|c: char| c.is_ascii_digit()) {
        (body, 10)
    } else {
        return None;
    };
    if digits.is_empty() || !all(digits, |c| c == '_' || c.is_digit(radix)) {
        return None;
    }
    let cleaned: String = digits.chars().filter(|&c| c != '_').collect();
    if cleaned.is_empty() {
        // `0_` is octal zero; `0x_` passes PyYAML's regex and then fails in int(): a string is
        // kinder than refusing the document.
        return (radix == 8).then(|| Value::from(0));
    }
    let magnitude = u128::from_str_radix(&cleaned, radix).ok()?;
    if negative {
        let signed = i64::try_from(-i128::try_from(magnitude).ok()?).ok()?;
        Some(Value::from(signed))
    } else {
        u64::try_from(magnitude).ok().map(Value::from)
    }
}

/// PyYAML's float regex, whose quirks are kept: the exponent needs a sign (`1.0e3` is a string),
/// there must be a dot (`1e3` is a string), and `.5` may not carry a sign (`-.5` is a string).
fn implicit_float(text: &str) -> Option<Value> {
    if let Some(special) = special_float(text) {
        return Some(special);
    }
    let (negative, body) = split_sign(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    if let Some(exp) = exponent {
        let (_, digits) = split_sign(exp);
        let signed = exp.starts_with(['-', '+']);
        if !signed || digits.is_empty() || !all(digits, |c| c.is_ascii_digit()) {
            return None;
        }
    }
    let (whole, fraction) = mantissa.split_once('.')?;
    let digits_ok = |s: &str| all(s, |c| c == '_' || c.is_ascii_digit());
    let shape_ok = if whole.is_empty() {
        // `.5` form: no sign allowed, a digit right after the dot.
        text.len() == body.len() && fraction.starts_with(|c: char| c.is_ascii_digit())
    } else {
        whole.starts_with(|c: char| c.is_ascii_digit())
    };
    if !shape_ok || !digits_ok(whole) || !digits_ok(fraction) {
        return None;
    }
    let clean = |s: &str| -> String { s.chars().filter(|&c| c != '_').collect() };
    let (whole, fraction) = (clean(whole), clean(fraction));
    let normal = format!(
        "{}{}.{}e{}",
        if negative { "-" } else { "" },
        if whole.is_empty() { "0" } else { &whole },
        if fraction.is_empty() { "0" } else { &fraction },
        exponent.unwrap_or("0")
    );
    normal.parse::<f64>().ok().map(float_value)
}

/// `.inf`, `-.Inf`, `.nan`: JSON cannot hold them, so they become the strings `.inf`, `-.inf`
/// and `.nan`; a consumer wanting a number gets a type error rather than a wrong value.
fn special_float(text: &str) -> Option<Value> {
    let (negative, body) = split_sign(text);
    let name = match body {
        ".inf" | ".Inf" | ".INF" if negative => "-.inf",
        ".inf" | ".Inf" | ".INF" => ".inf",
        ".nan" | ".NaN" | ".NAN" if body.len() == text.len() => ".nan",
        _ => return None,
    };
    Some(Value::String(name.to_string()))
}

fn float_value(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::String(".nan".to_string()),
        None if f < 0.0 => Value::String("-.inf".to_string()),
        None => Value::String(".inf".to_string()),
    }
}

/// `!!float` accepts more than the implicit regex, like Python's float(): `1`, `1e3`, `1_000.5`.
fn explicit_float(text: &str) -> Option<Value> {
    let lower: String = text.chars().filter(|&c| c != '_').collect::<String>();
    let lower = lower.to_ascii_lowercase();
    if let Some(special) = special_float(&lower) {
        return Some(special);
    }
    if lower.is_empty() || !all(&lower, |c| c.is_ascii_digit() || ".e+-".contains(c)) {
        return None;
    }
    lower.parse::<f64>().ok().map(float_value)
}

/// `!!binary`, decoded as PyYAML does (Python's lenient `b64decode`: bytes outside the alphabet
/// skipped). JSON has no bytes, so valid UTF-8 becomes text and anything else cloud-init's own
/// JSON form of bytes, `ci-b64:` and the base64 (see `binary_bytes`).
fn binary(text: &str) -> Option<Value> {
    let bytes = ember_core::pybase64::b64decode(text.as_bytes()).ok()?.bytes;
    Some(Value::String(String::from_utf8(bytes).unwrap_or_else(
        |e| {
            let encoded = base64::engine::general_purpose::STANDARD.encode(e.into_bytes());
            format!("{BINARY_PREFIX}{encoded}")
        },
    )))
}
