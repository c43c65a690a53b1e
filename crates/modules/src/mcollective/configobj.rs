//! mcollective's server.cfg as Python's ConfigObj (which cloud-init uses) reads and writes it:
//! `key = value` lines, `[section]`s after the top-level keys, comments kept with the entry
//! below them and the inline ones glued after the value (`debug# note`, as ConfigObj writes
//! them), comma lists, and ConfigObj's quoting (`"..."`, `'...'`, `'''...'''`). Nested
//! sections (`[[x]]`) are read as top-level ones: mcollective does not use them.

/// A value: ConfigObj reads an unquoted comma as a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Str(String),
    List(Vec<String>),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Entry {
    key: String,
    value: Val,
    /// The comment and blank lines above it.
    comments: Vec<String>,
    /// The comment after it on its line (`# ...`).
    inline: String,
}

impl Default for Val {
    fn default() -> Val {
        Val::Str(String::new())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Section {
    name: String,
    comments: Vec<String>,
    inline: String,
    entries: Vec<Entry>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigObj {
    initial: Vec<String>,
    entries: Vec<Entry>,
    sections: Vec<Section>,
    last: Vec<String>,
}

/// A value ConfigObj cannot write (it raises): ember refuses it the same way.
#[derive(Debug, PartialEq, Eq)]
pub struct Unquotable;

impl ConfigObj {
    pub fn parse(text: &str) -> ConfigObj {
        let mut out = ConfigObj::default();
        let mut comments: Vec<String> = Vec::new();
        let mut started = false;
        let mut current: Option<usize> = None;
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let s = line.trim();
            if s.is_empty() || s.starts_with('#') {
                comments.push(line.to_string());
                continue;
            }
            if !started {
                out.initial = std::mem::take(&mut comments);
                started = true;
            }
            if s.starts_with('[') {
                let (name, inline) = header(s);
                out.sections.push(Section {
                    name,
                    comments: std::mem::take(&mut comments),
                    inline,
                    entries: Vec::new(),
                });
                current = Some(out.sections.len() - 1);
                continue;
            }
            let Some((key, rest)) = split_key(s) else {
                // ConfigObj rejects the file; keep the line as a comment rather than lose it.
                comments.push(line.to_string());
                continue;
            };
            let (value, inline) = value(rest, &mut lines);
            let entry = Entry {
                key,
                value,
                comments: std::mem::take(&mut comments),
                inline,
            };
            match current {
                Some(i) => out.sections[i].entries.push(entry),
                None => out.entries.push(entry),
            }
        }
        if out.entries.is_empty() && out.sections.is_empty() && out.initial.is_empty() {
            out.initial = comments;
        } else {
            out.last = comments;
        }
        out
    }

    /// Sets a top-level key (kept in place when it exists, else added after the others).
    pub fn set(&mut self, key: &str, value: Val) {
        set(&mut self.entries, key, value);
    }

    /// Sets `key` in `section`, made (after the others) when missing.
    pub fn set_in(&mut self, section: &str, key: &str, value: Val) {
        if !self.sections.iter().any(|s| s.name == section) {
            self.sections.push(Section {
                name: section.to_string(),
                ..Section::default()
            });
        }
        if let Some(s) = self.sections.iter_mut().find(|s| s.name == section) {
            set(&mut s.entries, key, value);
        }
    }

    pub fn write(&self) -> Result<String, Unquotable> {
        let mut out: Vec<String> = self.initial.iter().map(|c| comment(c)).collect();
        for e in &self.entries {
            entry_lines(&mut out, e)?;
        }
        for s in &self.sections {
            out.extend(s.comments.iter().map(|c| comment(c.trim_start())));
            out.push(format!("[{}]{}", quote(&s.name, false)?, glued(&s.inline)));
            for e in &s.entries {
                entry_lines(&mut out, e)?;
            }
        }
        out.extend(self.last.iter().map(|c| comment(c)));
        let mut text = out.join("\n");
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Ok(text)
    }
}

fn set(entries: &mut Vec<Entry>, key: &str, value: Val) {
    match entries.iter_mut().find(|e| e.key == key) {
        Some(e) => e.value = value,
        None => entries.push(Entry {
            key: key.to_string(),
            value,
            ..Entry::default()
        }),
    }
}

/// A comment line as ConfigObj writes it back: `# ` put before text that lacks it.
fn comment(line: &str) -> String {
    let s = line.trim();
    if s.is_empty() || s.starts_with('#') {
        line.to_string()
    } else {
        format!("# {line}")
    }
}

fn glued(inline: &str) -> String {
    match inline {
        "" => String::new(),
        c if c.starts_with('#') => c.to_string(),
        c => format!(" # {c}"),
    }
}

fn entry_lines(out: &mut Vec<String>, e: &Entry) -> Result<(), Unquotable> {
    out.extend(e.comments.iter().map(|c| comment(c.trim_start())));
    let value = match &e.value {
        Val::Str(s) => quote(s, true)?,
        Val::List(items) => match items.as_slice() {
            [] => ",".to_string(),
            [one] => format!("{},", quote(one, false)?),
            many => many
                .iter()
                .map(|v| quote(v, false))
                .collect::<Result<Vec<_>, _>>()?
                .join(", "),
        },
    };
    out.push(format!(
        "{} = {value}{}",
        quote(&e.key, false)?,
        glued(&e.inline)
    ));
    Ok(())
}

/// `[name]  # comment` (any depth of brackets).
fn header(s: &str) -> (String, String) {
    let (body, inline) = match s.find(']') {
        Some(end) => {
            let close = s[end..].chars().take_while(|c| *c == ']').count();
            let rest = s[end + close..].trim();
            (&s[..end], rest)
        }
        None => (s, ""),
    };
    let name = unquote(body.trim_start_matches('[').trim());
    let inline = if inline.starts_with('#') { inline } else { "" };
    (name, inline.to_string())
}

fn unquote(s: &str) -> String {
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return s[1..s.len() - 1].to_string();
        }
    }
    s.to_string()
}

/// `key = rest`: the key may be quoted.
fn split_key(s: &str) -> Option<(String, &str)> {
    let (key, rest) = match s.chars().next()? {
        q @ ('"' | '\'') => {
            let end = s[1..].find(q)? + 1;
            let rest = s[end + 1..].trim_start().strip_prefix('=')?;
            (s[1..end].to_string(), rest)
        }
        _ => {
            let (k, rest) = s.split_once('=')?;
            (k.trim().to_string(), rest)
        }
    };
    Some((key, rest.trim()))
}

/// A value and its inline comment; a triple-quoted one may go on over more lines.
fn value<'a>(rest: &str, lines: &mut impl Iterator<Item = &'a str>) -> (Val, String) {
    for q in ["'''", "\"\"\""] {
        if let Some(body) = rest.strip_prefix(q) {
            let mut text = body.to_string();
            loop {
                if let Some(end) = text.find(q) {
                    let tail = text[end + 3..].trim().to_string();
                    text.truncate(end);
                    let inline = if tail.starts_with('#') {
                        tail
                    } else {
                        String::new()
                    };
                    return (Val::Str(text), inline);
                }
                match lines.next() {
                    Some(more) => {
                        text.push('\n');
                        text.push_str(more);
                    }
                    None => return (Val::Str(text), String::new()),
                }
            }
        }
    }
    let chars: Vec<char> = rest.chars().collect();
    let mut items = Vec::new();
    let mut list = false;
    let mut i = 0;
    let mut inline = String::new();
    loop {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i >= chars.len() {
            break;
        }
        if chars[i] == '#' {
            inline = chars[i..].iter().collect();
            break;
        }
        let item: String = match chars[i] {
            q @ ('"' | '\'') => match chars[i + 1..].iter().position(|c| *c == q) {
                Some(len) => {
                    let s = chars[i + 1..i + 1 + len].iter().collect();
                    i += len + 2;
                    s
                }
                None => {
                    let s = chars[i..].iter().collect();
                    i = chars.len();
                    s
                }
            },
            ',' => String::new(),
            _ => {
                let start = i;
                while i < chars.len() && chars[i] != ',' && chars[i] != '#' {
                    i += 1;
                }
                chars[start..i]
                    .iter()
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            }
        };
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i < chars.len() && chars[i] == ',' {
            list = true;
            i += 1;
            if !item.is_empty() || !items.is_empty() {
                items.push(item);
            }
            continue;
        }
        items.push(item);
        if i < chars.len() && chars[i] == '#' {
            inline = chars[i..].iter().collect();
        }
        break;
    }
    if list {
        (Val::List(items), inline)
    } else {
        (Val::Str(items.pop().unwrap_or_default()), inline)
    }
}

/// ConfigObj's `_quote`, by its one writer (`conf_lang::configobj`).
pub fn quote(v: &str, multiline: bool) -> Result<String, Unquotable> {
    crate::conf_lang::configobj::quote(v, multiline).map_err(|_| Unquotable)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expected texts are what ConfigObj 5.0.8 writes for the same steps.
    #[test]
    fn round_trips_as_configobj() {
        let src = "# mcollective server config\n# second line\n\nmain_collective = mcollective\n\
                   # the libdir\nlibdir = /usr/share/mcollective/plugins\n\
                   loglevel = info   # inline\nquoted = \"a b\"\n";
        let mut c = ConfigObj::parse(src);
        c.set("loglevel", Val::Str("debug".into()));
        c.set("plugin.stomp.host", Val::Str("dbhost".into()));
        c.set(
            "multi",
            Val::Str("-----BEGIN-----\nabc\n-----END-----\n".into()),
        );
        for (k, v) in [
            ("lead", " x"),
            ("comma", "a,b"),
            ("hash", "a#b"),
            ("empty", ""),
        ] {
            c.set(k, Val::Str(v.into()));
        }
        c.set_in("sect", "k", Val::Str("v".into()));
        assert_eq!(
            c.write().unwrap(),
            "# mcollective server config\n# second line\n\nmain_collective = mcollective\n\
             # the libdir\nlibdir = /usr/share/mcollective/plugins\nloglevel = debug# inline\n\
             quoted = a b\nplugin.stomp.host = dbhost\n\
             multi = '''-----BEGIN-----\nabc\n-----END-----\n'''\nlead = \" x\"\n\
             comma = \"a,b\"\nhash = \"a#b\"\nempty = \"\"\n[sect]\nk = v\n"
        );
    }

    #[test]
    fn values_as_configobj_reads_them() {
        let src = "a = debug   # inline\nb = x#y\nc = 'q # r'  # cmt\nd = one, two\n\
                   e = one,\nf = ,\ng =\nh = \"\"\"multi\nline\"\"\"\ni = x,y # z\n";
        let c = ConfigObj::parse(src);
        let got: Vec<(&str, &Val, &str)> = c
            .entries
            .iter()
            .map(|e| (e.key.as_str(), &e.value, e.inline.as_str()))
            .collect();
        let s = |v: &str| Val::Str(v.into());
        let l = |v: &[&str]| Val::List(v.iter().map(|x| x.to_string()).collect());
        assert_eq!(
            got,
            [
                ("a", &s("debug"), "# inline"),
                ("b", &s("x"), "#y"),
                ("c", &s("q # r"), "# cmt"),
                ("d", &l(&["one", "two"]), ""),
                ("e", &l(&["one"]), ""),
                ("f", &l(&[]), ""),
                ("g", &s(""), ""),
                ("h", &s("multi\nline"), ""),
                ("i", &l(&["x", "y"]), "# z"),
            ]
        );
        assert_eq!(
            c.write().unwrap(),
            "a = debug# inline\nb = x#y\nc = \"q # r\"# cmt\nd = one, two\ne = one,\n\
             f = ,\ng = \"\"\nh = '''multi\nline'''\ni = x, y# z\n"
        );
        // A new file: keys then sections.
        let mut c = ConfigObj::parse("");
        c.set_in("s", "x", Val::Str("y".into()));
        c.set("a", Val::Str("b".into()));
        assert_eq!(c.write().unwrap(), "a = b\n[s]\nx = y\n");
        assert_eq!(quote("it's \"x\"", false), Err(Unquotable));
        assert_eq!(quote("it's \"x\"", true).unwrap(), "'''it's \"x\"'''");
    }

    /// A value holding one kind of triple quote and line breaks comes back whole (the other
    /// kind is chosen), and line ends ConfigObj splits at besides `\n` are refused.
    #[test]
    fn triple_quotes_and_line_breaks_in_values_add_no_section() {
        let hostile = "a'''\n[evil]\nplugin.x = 1";
        let mut c = ConfigObj::parse("");
        c.set("k", Val::Str(hostile.into()));
        let text = c.write().unwrap();
        let back = ConfigObj::parse(&text);
        assert!(back.sections.is_empty(), "{text}");
        assert_eq!(back.entries.len(), 1, "{text}");
        assert_eq!(back.entries[0].value, Val::Str(hostile.into()), "{text}");
        for bad in ["a\rb", "a\u{2028}b", "a\0b", "a\x0bb"] {
            c.set("k", Val::Str(bad.into()));
            assert_eq!(c.write(), Err(Unquotable), "{bad:?}");
        }
    }
}
