//! ember's one YAML writer: YAML as PyYAML's `yaml.dump(..., default_flow_style=False)` writes
//! it, for everything cloud-init writes that way: `status --format yaml` and netplan files
//! (its `safeyaml.dumps`, indent 4), salt's `minion` and `grains` and puppet's
//! `csr_attributes.yaml`: keys sorted, block collections (empty ones `[]`/`{}`), sequences
//! under a mapping key not indented, scalars plain when PyYAML would leave them plain, else
//! single-quoted, else double-quoted with escapes (ASCII only, as PyYAML's default
//! `allow_unicode=False`), long lines folded at spaces past column 80. It writes; it never
//! parses (the runner has no YAML reader), and it shares nothing with `ember-yaml`.

use serde_json::{Map, Value};

/// The two ways cloud-init calls PyYAML.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Spaces per nesting level (PyYAML's `indent`).
    pub indent: usize,
    /// `---` before and `...` after the document.
    pub explicit: bool,
}

/// `yaml.dump(data, default_flow_style=False)`.
pub const DUMP: Style = Style {
    indent: 2,
    explicit: false,
};
/// cloud-init's `safeyaml.dumps`: indent 4, explicit start and end.
pub const SAFE_DUMPS: Style = Style {
    indent: 4,
    explicit: true,
};

/// cloud-init's `safeyaml.dumps(v)`: a whole document, `---` to `...`.
pub fn document(v: &Value) -> String {
    dump(v, SAFE_DUMPS)
}

/// `safeyaml.dumps(v, explicit_start=False, explicit_end=False)`, each line that is not blank
/// indented by `indent` spaces (as netplan's renderer nests a section with `textwrap.indent`).
pub fn block(v: &Value, indent: usize) -> String {
    let text = dump(
        v,
        Style {
            indent: 4,
            explicit: false,
        },
    );
    if indent == 0 {
        return text;
    }
    let pad = " ".repeat(indent);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    out
}

/// PyYAML's `best_width`: a plain or quoted scalar breaks at a space past this column.
const WIDTH: usize = 80;

pub fn dump(v: &Value, style: Style) -> String {
    let mut w = Writer {
        out: String::new(),
        col: 0,
        b: style.indent.max(1),
    };
    let collection = matches!(v, Value::Array(a) if !a.is_empty())
        || matches!(v, Value::Object(m) if !m.is_empty());
    if style.explicit {
        w.put("---");
        if !collection {
            w.put(" ");
        }
    }
    match v {
        Value::Object(m) if !m.is_empty() => {
            if style.explicit {
                w.newline();
            }
            w.mapping(m, 0, true);
        }
        Value::Array(a) if !a.is_empty() => {
            if style.explicit {
                w.newline();
            }
            w.sequence(a, 0, true);
        }
        _ => w.leaf(v, w.b, false),
    }
    w.newline();
    if style.explicit {
        w.put("...\n");
    }
    w.out
}

struct Writer {
    out: String,
    col: usize,
    b: usize,
}

impl Writer {
    fn put(&mut self, s: &str) {
        self.out.push_str(s);
        self.col += s.chars().count();
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.col = 0;
    }

    fn spaces(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push(' ');
        }
        self.col += n;
    }

    /// A new line at `indent`, unless this is the first entry written right after its `-`.
    fn entry(&mut self, indent: usize, first_inline: bool) {
        if !first_inline {
            if !self.out.is_empty() && !self.out.ends_with('\n') {
                self.newline();
            }
            self.spaces(indent);
        }
    }

    fn mapping(&mut self, m: &Map<String, Value>, indent: usize, first_inline: bool) {
        for (i, (k, v)) in m.iter().enumerate() {
            self.entry(indent, i == 0 && first_inline);
            if simple_key(k) {
                self.scalar(k, indent + self.b, true);
            } else {
                // PyYAML's complex key: `? key` then `: value` on the next line.
                self.put("? ");
                self.scalar(k, indent + self.b, false);
                self.newline();
                self.spaces(indent);
            }
            self.put(":");
            self.value(v, indent, true);
        }
    }

    fn sequence(&mut self, a: &[Value], indent: usize, first_inline: bool) {
        for (i, v) in a.iter().enumerate() {
            self.entry(indent, i == 0 && first_inline);
            self.put("-");
            self.value(v, indent, false);
        }
    }

    /// What follows a key's `:` or an item's `-` in a collection at `indent`.
    fn value(&mut self, v: &Value, indent: usize, in_mapping: bool) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                if in_mapping {
                    self.newline();
                    self.mapping(m, indent + self.b, false);
                } else {
                    self.spaces(self.b - 1);
                    self.mapping(m, indent + self.b, true);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                if in_mapping {
                    // PyYAML's indentless sequence under a mapping key.
                    self.newline();
                    self.sequence(a, indent, false);
                } else {
                    self.spaces(self.b - 1);
                    self.sequence(a, indent + self.b, true);
                }
            }
            _ => {
                self.put(" ");
                self.leaf(v, indent + self.b, false);
            }
        }
    }

    /// A scalar or an empty collection; `cont` is where continuation lines start.
    fn leaf(&mut self, v: &Value, cont: usize, key: bool) {
        match v {
            Value::Null => self.put("null"),
            Value::Bool(b) => self.put(if *b { "true" } else { "false" }),
            Value::Number(n) => self.put(&number(n)),
            Value::String(s) => self.scalar(s, cont, key),
            Value::Array(_) => self.put("[]"),
            Value::Object(_) => self.put("{}"),
        }
    }

    /// A string in the style PyYAML's `choose_scalar_style` picks.
    fn scalar(&mut self, s: &str, cont: usize, key: bool) {
        let a = analyze(s);
        let multiline = a.line_breaks;
        if a.block_plain && !implicit_other(s) && !(key && (s.is_empty() || multiline)) {
            self.plain(s, cont, !key);
        } else if a.single && !(key && multiline) {
            self.single(s, cont, !key);
        } else {
            self.double(s, cont, !key);
        }
    }

    fn fold(&mut self, cont: usize) {
        self.newline();
        self.spaces(cont);
    }

    fn plain(&mut self, s: &str, cont: usize, split: bool) {
        let chars: Vec<char> = s.chars().collect();
        let mut start = 0;
        let mut spaces = false;
        for end in 0..=chars.len() {
            let ch = chars.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.col > WIDTH && split {
                        self.fold(cont);
                    } else {
                        self.put(&chars[start..end].iter().collect::<String>());
                    }
                    start = end;
                }
            } else if ch.is_none() || ch == Some(' ') {
                self.put(&chars[start..end].iter().collect::<String>());
                start = end;
            }
            spaces = ch == Some(' ');
        }
    }

    fn single(&mut self, s: &str, cont: usize, split: bool) {
        let chars: Vec<char> = s.chars().collect();
        let n = chars.len();
        self.put("'");
        let (mut start, mut spaces, mut breaks) = (0, false, false);
        for end in 0..=n {
            let ch = chars.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.col > WIDTH && split && start != 0 && end != n {
                        self.fold(cont);
                    } else {
                        self.put(&chars[start..end].iter().collect::<String>());
                    }
                    start = end;
                }
            } else if breaks {
                if ch != Some('\n') {
                    // A line break is written doubled: one folds, one is kept.
                    self.newline();
                    for _ in start..end {
                        self.newline();
                    }
                    self.spaces(cont);
                    start = end;
                }
            } else if matches!(ch, None | Some(' ' | '\n' | '\'')) && start < end {
                self.put(&chars[start..end].iter().collect::<String>());
                start = end;
            }
            if ch == Some('\'') {
                self.put("''");
                start = end + 1;
            }
            spaces = ch == Some(' ');
            breaks = ch == Some('\n');
        }
        self.put("'");
    }

    fn double(&mut self, s: &str, cont: usize, split: bool) {
        let chars: Vec<char> = s.chars().collect();
        let n = chars.len();
        self.put("\"");
        let mut start = 0;
        for end in 0..=n {
            let ch = chars.get(end).copied();
            let escaped = match ch {
                None => true,
                Some(c) => {
                    matches!(
                        c,
                        '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}'
                    ) || !(' '..='~').contains(&c)
                }
            };
            if escaped {
                if start < end {
                    self.put(&chars[start..end].iter().collect::<String>());
                    start = end;
                }
                if let Some(c) = ch {
                    self.put(&escape(c));
                    start = end + 1;
                }
            }
            let pending = end as isize - start as isize;
            if 0 < end
                && end + 1 < n
                && (ch == Some(' ') || start >= end)
                && self.col as isize + pending > WIDTH as isize
                && split
            {
                let mut data: String = chars[start.min(end)..end].iter().collect();
                data.push('\\');
                start = start.max(end);
                self.put(&data);
                self.fold(cont);
                if chars[start] == ' ' {
                    self.put("\\");
                }
            }
        }
        self.put("\"");
    }
}

/// A float's exponent as Python's repr writes it: signed, at least two digits (`1e+17`,
/// `1e-07`); with `dot` a mantissa without one gets `.0` (PyYAML's `1.0e+17`).
pub fn python_exponent(s: &str, dot: bool) -> String {
    match s.split_once(['e', 'E']) {
        Some((mant, exp)) => {
            let e: i32 = exp.parse().unwrap_or(0);
            let point = if dot && !mant.contains('.') { ".0" } else { "" };
            let sign = if e < 0 { '-' } else { '+' };
            format!("{mant}{point}e{sign}{:02}", e.unsigned_abs())
        }
        None => s.to_string(),
    }
}

/// PyYAML's `check_simple_key` for a string key: not empty, one line, under 128 characters.
fn simple_key(k: &str) -> bool {
    !k.is_empty() && !k.contains('\n') && k.chars().count() < 128
}

/// PyYAML's float: Python's repr with `.0` before an exponent (`1.0e+17`). JSON has no
/// NaN or infinity, so those never come.
fn number(n: &serde_json::Number) -> String {
    let s = n.to_string();
    if n.is_f64() {
        return python_exponent(&s, true);
    }
    s
}

fn escape(c: char) -> String {
    let short = match c {
        '\0' => "0",
        '\u{7}' => "a",
        '\u{8}' => "b",
        '\t' => "t",
        '\n' => "n",
        '\u{B}' => "v",
        '\u{C}' => "f",
        '\r' => "r",
        '\u{1B}' => "e",
        '"' => "\"",
        '\\' => "\\",
        '\u{85}' => "N",
        '\u{A0}' => "_",
        '\u{2028}' => "L",
        '\u{2029}' => "P",
        _ => "",
    };
    if !short.is_empty() {
        return format!("\\{short}");
    }
    let u = c as u32;
    if u <= 0xFF {
        format!("\\x{u:02X}")
    } else if u <= 0xFFFF {
        format!("\\u{u:04X}")
    } else {
        format!("\\U{u:08X}")
    }
}

/// What PyYAML's `analyze_scalar` finds, for the styles cloud-init's files use.
struct Analysis {
    line_breaks: bool,
    block_plain: bool,
    single: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: Option<&char>) -> bool {
    c.is_none_or(|c| matches!(c, '\0' | ' ' | '\t' | '\r') || is_break(*c))
}

fn analyze(s: &str) -> Analysis {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return Analysis {
            line_breaks: false,
            block_plain: true,
            single: true,
        };
    }
    let mut block_ind = s.starts_with("---") || s.starts_with("...");
    let (mut line_breaks, mut special) = (false, false);
    let (mut lead_space, mut lead_break, mut trail_space, mut trail_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut prev_space, mut prev_break) = (false, false);
    let mut preceded_ws = true;
    let last = chars.len() - 1;
    for (i, &ch) in chars.iter().enumerate() {
        let followed_ws = is_blank(chars.get(i + 1));
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(ch) || (ch == '-' && followed_ws) {
                block_ind = true;
            }
            if "?:".contains(ch) && followed_ws {
                block_ind = true;
            }
        } else if (ch == ':' && followed_ws) || (ch == '#' && preceded_ws) {
            block_ind = true;
        }
        if is_break(ch) {
            line_breaks = true;
        }
        if !(ch == '\n' || (' '..='~').contains(&ch)) {
            special = true;
        }
        if ch == ' ' {
            lead_space |= i == 0;
            trail_space |= i == last;
            break_space |= prev_break;
            (prev_space, prev_break) = (true, false);
        } else if is_break(ch) {
            lead_break |= i == 0;
            trail_break |= i == last;
            space_break |= prev_space;
            (prev_space, prev_break) = (false, true);
        } else {
            (prev_space, prev_break) = (false, false);
        }
        preceded_ws = is_blank(Some(&ch));
    }
    let mut block_plain = !(lead_space || lead_break || trail_space || trail_break);
    let mut single = true;
    if break_space {
        block_plain = false;
        single = false;
    }
    if space_break || special {
        block_plain = false;
        single = false;
    }
    if line_breaks || block_ind {
        block_plain = false;
    }
    Analysis {
        line_breaks,
        block_plain,
        single,
    }
}

/// Whether PyYAML's resolver reads `s`, written plain, as something other than a string (a
/// bool, int, float, null, timestamp, merge or value), so it must be quoted.
fn implicit_other(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL", "", "<<", "=",
    ];
    WORDS.contains(&s) || is_int(s) || is_float(s) || is_timestamp(s)
}

/// A cursor over ASCII text for the resolver's patterns.
struct Scan<'a> {
    s: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn eat(&mut self, set: &[u8]) -> bool {
        if self.s.get(self.i).is_some_and(|c| set.contains(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn many(&mut self, set: &[u8]) -> usize {
        let start = self.i;
        while self.eat(set) {}
        self.i - start
    }
    /// Zero or more of `set`: always matches.
    fn any(&mut self, set: &[u8]) -> bool {
        self.many(set);
        true
    }
    fn done(&self) -> bool {
        self.i == self.s.len()
    }
    fn at(s: &str) -> Scan<'_> {
        Scan {
            s: s.as_bytes(),
            i: 0,
        }
    }
}

const DIGITS: &[u8] = b"0123456789";
const DIGITS_: &[u8] = b"0123456789_";

/// `(?::[0-5]?[0-9])+`: the sexagesimal tail.
fn sexagesimal(c: &mut Scan) -> bool {
    let mut any = false;
    while c.eat(b":") {
        let save = c.i;
        if !(c.eat(b"012345") && c.eat(DIGITS)) {
            c.i = save;
            if !c.eat(DIGITS) {
                return false;
            }
        }
        any = true;
    }
    any
}

fn is_int(s: &str) -> bool {
    let alternatives: [fn(&mut Scan) -> bool; 5] = [
        |c| c.eat(b"0") && c.eat(b"b") && c.many(b"01_") > 0,
        |c| c.eat(b"0") && c.eat(b"x") && c.many(b"0123456789abcdefABCDEF_") > 0,
        |c| c.eat(b"0") && c.many(b"01234567_") > 0,
        |c| c.eat(b"0") || (c.eat(b"123456789") && c.any(DIGITS_)),
        |c| c.eat(b"123456789") && c.any(DIGITS_) && sexagesimal(c),
    ];
    alternatives.iter().any(|alt| {
        let mut c = Scan::at(s);
        c.eat(b"-+");
        alt(&mut c) && c.done()
    })
}

/// `(?:[eE][-+][0-9]+)?` at the end.
fn exponent_end(c: &mut Scan) -> bool {
    if c.eat(b"eE") && !(c.eat(b"-+") && c.many(DIGITS) > 0) {
        return false;
    }
    c.done()
}

fn is_float(s: &str) -> bool {
    if [".nan", ".NaN", ".NAN"].contains(&s) {
        return true;
    }
    let unsigned = s.trim_start_matches(['-', '+']);
    if s.len() - unsigned.len() <= 1 && [".inf", ".Inf", ".INF"].contains(&unsigned) {
        return true;
    }
    let alternatives: [fn(&mut Scan) -> bool; 3] = [
        |c| {
            c.eat(b"-+");
            c.eat(DIGITS) && c.any(DIGITS_) && c.eat(b".") && {
                c.many(DIGITS_);
                exponent_end(c)
            }
        },
        |c| c.eat(b".") && c.many(DIGITS_) > 0 && exponent_end(c),
        |c| {
            c.eat(b"-+");
            c.eat(DIGITS) && c.any(DIGITS_) && sexagesimal(c) && c.eat(b".") && {
                c.many(DIGITS_);
                c.done()
            }
        },
    ];
    alternatives.iter().any(|alt| alt(&mut Scan::at(s)))
}

fn is_timestamp(s: &str) -> bool {
    let mut c = Scan::at(s);
    let date = c.many(DIGITS) == 4 && c.eat(b"-");
    if !date {
        return false;
    }
    let month = c.many(DIGITS);
    if !c.eat(b"-") {
        return false;
    }
    let day = c.many(DIGITS);
    if c.done() {
        return month == 2 && day == 2;
    }
    if !(1..=2).contains(&month) || !(1..=2).contains(&day) {
        return false;
    }
    if !c.eat(b"Tt") && c.many(b" \t") == 0 {
        return false;
    }
    let hour = c.many(DIGITS);
    if !(1..=2).contains(&hour) || !c.eat(b":") || c.many(DIGITS) != 2 || !c.eat(b":") {
        return false;
    }
    if c.many(DIGITS) != 2 {
        return false;
    }
    if c.eat(b".") {
        c.many(DIGITS);
    }
    c.many(b" \t");
    if c.done() || (c.eat(b"Z") && c.done()) {
        return true;
    }
    if !c.eat(b"-+") || !(1..=2).contains(&c.many(DIGITS)) {
        return false;
    }
    if c.eat(b":") && c.many(DIGITS) != 2 {
        return false;
    }
    c.done()
}

#[cfg(test)]
#[path = "yaml_emit_tests.rs"]
mod tests;
