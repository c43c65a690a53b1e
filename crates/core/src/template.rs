//! The seam through which a module renders a Jinja template without linking Jinja: the
//! initramfs stage passes `ember_jinja::MiniJinja`; the runner's modules, which have no Jinja,
//! hand their templates to `ember-initrd render` instead. Also the one renderer of cloud-init's
//! basic templates (`$name`, `${name}`) and its header line, which every module shares.

use crate::limits::Limits;
use serde_json::Value;

pub struct Rendered {
    pub text: String,
    /// Variable paths that were printed while undefined (they rendered as empty strings).
    pub undefined: Vec<String>,
}

/// What went wrong, free of template text: minijinja's error kind and the line.
#[derive(Debug, PartialEq, Eq)]
pub struct TemplateError {
    pub what: String,
    pub line: Option<u32>,
    /// The budget that stopped the render (`template_fuel` or `template_bytes`), if one did.
    pub budget: Option<&'static str>,
}

/// Renders a template (header already removed) over `vars`, within the `template_fuel` and
/// `template_bytes` budgets of `limits`.
pub trait Jinja: Sync {
    fn render(
        &self,
        template: &str,
        vars: &Value,
        limits: &Limits,
    ) -> Result<Rendered, TemplateError>;
}

/// The renderer a template's first line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Basic,
    Jinja,
}

/// cloud-init's header: a first line `##`, blanks, `template:` (any case), the renderer's
/// name (any case) picks it and is removed. `None` (the text whole) without such a line; an
/// error when it names another renderer.
pub fn split_header(text: &str) -> Result<(Option<Kind>, &str), String> {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let kind = first
        .strip_prefix("##")
        .map(str::trim_start)
        // `get`, not slicing: the first line is anyone's text, maybe not ASCII.
        .filter(|r| {
            r.get(..9)
                .is_some_and(|p| p.eq_ignore_ascii_case("template:"))
        })
        .map(|r| r[9..].trim().to_ascii_lowercase());
    match kind.as_deref() {
        None => Ok((None, text)),
        Some("basic") => Ok((Some(Kind::Basic), rest)),
        Some("jinja") => Ok((Some(Kind::Jinja), rest)),
        Some(_) => {
            Err("the template's first line names a renderer other than jinja or basic".into())
        }
    }
}

fn name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// The name a `$` at the start of `s` stands for and the bytes it spans: `${name}` first,
/// else `$name` (letters, digits, `_`, `.`), as cloud-init's pattern has them, except that
/// dots ending a bare name are the text's: `Up $UPTIME.` names `UPTIME` (cloud-init's render
/// fails on the empty key; the manual, "Deliberate differences").
fn reference(s: &[u8]) -> Option<(usize, usize, usize)> {
    let run = |from: usize| {
        from + s[from.min(s.len())..]
            .iter()
            .take_while(|b| name_char(**b))
            .count()
    };
    if s.get(1) == Some(&b'{') {
        let end = run(2);
        if end > 2 && s.get(end) == Some(&b'}') {
            return Some((2, end, end + 1));
        }
    }
    let mut end = run(1);
    while end > 1 && s[end - 1] == b'.' {
        end -= 1;
    }
    (end > 1).then_some((1, end, end))
}

/// cloud-init's basic renderer: each `${name}` or `$name` becomes `lookup(name)`. There is
/// no `$$` escape; a `$` starting no name stays. Names `lookup` does not know are left as
/// written and returned, in order, for the caller to judge (cloud-init fails on them).
pub fn basic(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let (mut out, mut unknown) = (String::with_capacity(text.len()), Vec::new());
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let at = &rest[i..];
        let Some((start, end, used)) = reference(at.as_bytes()) else {
            out.push('$');
            rest = &at[1..];
            continue;
        };
        let name = &at[start..end];
        match lookup(name) {
            Some(v) => out.push_str(&v),
            None => {
                out.push_str(&at[..used]);
                unknown.push(name.to_string());
            }
        }
        rest = &at[used..];
    }
    out.push_str(rest);
    (out, unknown)
}

/// A dotted name's value in `vars`, as cloud-init's basic renderer finds it: `a.b` is key
/// `b` of the mapping `a`.
pub fn walk<'a>(vars: &'a Value, name: &str) -> Option<&'a Value> {
    name.split('.')
        .try_fold(vars, |v, key| v.as_object()?.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(text: &str) -> (String, Vec<String>) {
        let vars = json!({"a": "1", "m": {"k": "v", "n": {"deep": "d"}}, "a_b": "2"});
        basic(text, &|n| walk(&vars, n)?.as_str().map(str::to_string))
    }

    #[test]
    fn dots_ending_a_bare_name_are_text() {
        assert_eq!(render("Up $a. $m.k.").0, "Up 1. v.");
        assert_eq!(render("$a...x").0, "$a...x");
        assert_eq!(render("${a.}").1, vec!["a.".to_string()]);
    }

    #[test]
    fn braced_and_bare_names() {
        assert_eq!(render("$a ${a}x $a_b ${a_b}").0, "1 1x 2 2");
        // Bare names run over letters, digits, `_` and `.`; braces end a name anywhere.
        assert_eq!(render("$ax ${a}x").0, "$ax 1x");
        // No `$$` escape, and a `$` before no name stays.
        assert_eq!(render("$$a $ ${ a } ${} ${a $").0, "$1 $ ${ a } ${} ${a $");
    }

    #[test]
    fn dotted_names_walk_mappings() {
        assert_eq!(render("$m.k ${m.n.deep}").0, "v d");
        let (out, unknown) = render("$m.x ${a.b} $m.");
        assert_eq!(out, "$m.x ${a.b} $m.");
        // The dot ending `$m.` is text: the name is `m`, a mapping, which has no text.
        assert_eq!(unknown, ["m.x", "a.b", "m"]);
    }

    #[test]
    fn unknown_names_are_left_and_listed() {
        let (out, unknown) = render("x $nope ${other}y $a é$");
        assert_eq!(out, "x $nope ${other}y 1 é$");
        assert_eq!(unknown, ["nope", "other"]);
    }

    #[test]
    fn header_kinds() {
        assert_eq!(
            split_header("## template:jinja\nx\n"),
            Ok((Some(Kind::Jinja), "x\n"))
        );
        assert_eq!(
            split_header("##  Template: JINJA \nx"),
            Ok((Some(Kind::Jinja), "x"))
        );
        assert_eq!(
            split_header("## template: basic\n$a"),
            Ok((Some(Kind::Basic), "$a"))
        );
        assert_eq!(
            split_header("## template: basic"),
            Ok((Some(Kind::Basic), ""))
        );
        assert_eq!(split_header("# plain\n$a"), Ok((None, "# plain\n$a")));
        assert_eq!(
            split_header("## tempé: jinja\n"),
            Ok((None, "## tempé: jinja\n"))
        );
        assert!(split_header("## template: mako\nx").is_err());
    }
}
