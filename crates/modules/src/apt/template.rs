//! cloud-init's two renderers for apt's texts, without a Jinja engine (the runner carries
//! none): the basic one (`$NAME`, `${NAME}`) whole, and of Jinja (a `## template: jinja`
//! first line) what cloud-init's shipped sources templates use: `{{ name }}` with `default`
//! filters, `{% if %}`/`{% elif %}`/`{% else %}`/`{% endif %}` over names, quoted strings,
//! tuples and lists with `==`, `!=`, `in`, `not in` and `not`, and `{# comments #}`, with
//! cloud-init's `trim_blocks`. Anything else is refused, never rendered differently.
//! <https://docs.cloud-init.io/en/latest/explanation/instancedata.html>

use crate::template::{self, Kind};

/// What cloud-init prints for an undefined Jinja variable.
const MISSING: &str = "CI_MISSING_JINJA_VAR/";

#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    /// The basic renderer met a `$NAME` with no value (cloud-init raises there).
    Undefined(String),
    /// Jinja beyond the part described above; says what.
    Unsupported(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Error::Undefined(name) => write!(f, "the variable ${name} has no value"),
            Error::Unsupported(what) => write!(f, "Jinja ember does not render: {what}"),
        }
    }
}

/// The variables a template sees.
pub type Vars<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Renders `text` as cloud-init's `templater.render_string` would.
pub fn render(text: &str, vars: Vars) -> Result<String, Error> {
    match template::split_header(text).map_err(Error::Unsupported)? {
        (Some(Kind::Jinja), body) => jinja(body, vars),
        (_, body) => basic(body, vars),
    }
}

/// `$NAME` and `${NAME}`; a dotted name is one name here, as no apt variable is a mapping.
pub fn basic(text: &str, vars: Vars) -> Result<String, Error> {
    let (out, unknown) = template::basic(text, vars);
    match unknown.into_iter().next() {
        Some(name) => Err(Error::Undefined(name)),
        None => Ok(out),
    }
}

enum Tok<'a> {
    Text(&'a str),
    Var(&'a str),
    Block(&'a str),
}

/// Splits at `{{ }}`, `{% %}` and `{# #}`; comments go, and the newline after a block or
/// comment tag with them (`trim_blocks`).
fn tokens(mut s: &str) -> Result<Vec<Tok<'_>>, Error> {
    let mut out = Vec::new();
    let mut trim = false;
    loop {
        if trim {
            s = s.strip_prefix('\n').unwrap_or(s);
        }
        let open = ["{{", "{%", "{#"]
            .iter()
            .filter_map(|o| s.find(o).map(|at| (at, *o)))
            .min();
        let Some((at, open)) = open else {
            out.push(Tok::Text(s));
            return Ok(out);
        };
        out.push(Tok::Text(&s[..at]));
        let close = match open {
            "{{" => "}}",
            "{%" => "%}",
            _ => "#}",
        };
        let body_at = at + 2;
        let len = s[body_at..]
            .find(close)
            .ok_or_else(|| Error::Unsupported(format!("{open} without {close}")))?;
        let mut body = &s[body_at..body_at + len];
        if body.starts_with('-') || body.ends_with('-') {
            return Err(Error::Unsupported("whitespace control".into()));
        }
        // `{%+` concerns lstrip_blocks, which cloud-init leaves off; `+%}` keeps the newline.
        let keep = open != "{{" && body.ends_with('+');
        body = body.trim_start_matches('+').trim_end_matches('+');
        match open {
            "{{" => out.push(Tok::Var(body.trim())),
            "{%" => out.push(Tok::Block(body.trim())),
            _ => {}
        }
        trim = open != "{{" && !keep;
        s = &s[body_at + len + 2..];
    }
}

enum Node<'a> {
    Text(&'a str),
    Var(&'a str),
    /// `if`/`elif` branches with their conditions, `else` as `None`.
    If(Vec<(Option<&'a str>, Vec<Node<'a>>)>),
}

/// A run of nodes and the block tag that ended it (its word and the rest), if one did.
type Parsed<'a> = (Vec<Node<'a>>, Option<(&'a str, &'a str)>);

/// The nodes up to a block tag of `stops` (returned with its condition text) or the end.
fn parse<'a>(toks: &[Tok<'a>], pos: &mut usize, stops: &[&str]) -> Result<Parsed<'a>, Error> {
    let mut nodes = Vec::new();
    while let Some(tok) = toks.get(*pos) {
        *pos += 1;
        match tok {
            Tok::Text(t) => nodes.push(Node::Text(t)),
            Tok::Var(v) => nodes.push(Node::Var(v)),
            Tok::Block(b) => {
                let (word, rest) = b.split_once(char::is_whitespace).unwrap_or((b, ""));
                if stops.contains(&word) {
                    return Ok((nodes, Some((word, rest.trim()))));
                }
                if word != "if" {
                    return Err(Error::Unsupported(format!("the {word:?} tag")));
                }
                nodes.push(parse_if(toks, pos, rest.trim())?);
            }
        }
    }
    Ok((nodes, None))
}

fn parse_if<'a>(toks: &[Tok<'a>], pos: &mut usize, cond: &'a str) -> Result<Node<'a>, Error> {
    let mut branches = Vec::new();
    let mut cond = Some(cond);
    loop {
        let stops: &[&str] = if cond.is_some() {
            &["elif", "else", "endif"]
        } else {
            &["endif"]
        };
        let (body, stop) = parse(toks, pos, stops)?;
        branches.push((cond, body));
        match stop {
            Some(("elif", c)) => cond = Some(c),
            Some(("else", _)) => cond = None,
            Some(("endif", _)) => return Ok(Node::If(branches)),
            _ => return Err(Error::Unsupported("an if without endif".into())),
        }
    }
}

/// Renders the Jinja part of a template (after its `## template` line).
fn jinja(text: &str, vars: Vars) -> Result<String, Error> {
    let toks = tokens(text)?;
    let mut pos = 0;
    let (nodes, stop) = parse(&toks, &mut pos, &[])?;
    if let Some((word, _)) = stop {
        return Err(Error::Unsupported(format!("a stray {word}")));
    }
    let mut out = String::new();
    emit(&nodes, vars, &mut out)?;
    // Jinja drops one trailing newline; cloud-init puts it back.
    Ok(out)
}

fn emit(nodes: &[Node], vars: Vars, out: &mut String) -> Result<(), Error> {
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Var(v) => out.push_str(&expr::eval(v, vars)?.shown()?),
            Node::If(branches) => {
                for (cond, body) in branches {
                    let taken = match cond {
                        Some(c) => expr::eval(c, vars)?.truthy(),
                        None => true,
                    };
                    if taken {
                        emit(body, vars, out)?;
                        break;
                    }
                }
            }
        }
    }
    Ok(())
}

mod expr;

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<String> {
        match name {
            "MIRROR" | "mirror" => Some("http://m/debian".into()),
            "RELEASE" | "codename" => Some("bookworm".into()),
            "security" => Some("http://s/debian-security".into()),
            "primary_key" => Some(String::new()),
            _ => None,
        }
    }

    fn r(text: &str) -> Result<String, Error> {
        render(text, &vars)
    }

    #[test]
    fn basic_substitutes_dollar_names() {
        assert_eq!(
            r("deb $MIRROR ${RELEASE}-updates main $ 5$\n").unwrap(),
            "deb http://m/debian bookworm-updates main $ 5$\n"
        );
        assert_eq!(r("a $NOPE b"), Err(Error::Undefined("NOPE".into())));
        assert_eq!(r("${MIRROR").unwrap(), "${MIRROR");
        // A `## template: basic` line goes; `{{ }}` stays as written without a jinja line.
        assert_eq!(
            r("## template:basic\n{{mirror}} $RELEASE").unwrap(),
            "{{mirror}} bookworm"
        );
    }

    #[test]
    fn jinja_subset_as_cloud_inits_templates_use_it() {
        let t = "## template:jinja\n## {{codename}}\nURIs: {{ mirror }}\n\
                 Suites: {{codename}}{% if codename in ('buster', 'stretch') %}/updates{% else %}-security{% endif %} main\n\
                 Signed-By: {{primary_key | default('/usr/share/keyrings/k.gpg', true)}}\n\
                 X: {{ security_key | default(primary_key, true) | default('d', true) }} {{ nope }}\n\
                 {% if codename != 'bullseye' %}deb {{mirror}} {{codename}}-backports main\n{% endif %}\
                 {# gone #}\nend\n";
        assert_eq!(
            r(t).unwrap(),
            "## bookworm\nURIs: http://m/debian\nSuites: bookworm-security main\n\
             Signed-By: /usr/share/keyrings/k.gpg\nX: d CI_MISSING_JINJA_VAR/nope\n\
             deb http://m/debian bookworm-backports main\nend\n"
        );
        // trim_blocks joins a line ending in a tag to the next (cloud-init's issue 6380),
        // unless the tag ends `+%}`.
        let t =
            "## template:jinja\nA{% if mirror %}b{% endif %}\nC{% if mirror %}d{% endif +%}\nE\n";
        assert_eq!(r(t).unwrap(), "AbCd\nE\n");
        let t = "## template: Jinja\n{% if not nope %}a{% elif mirror %}b{% endif %}\
                 {% if nope == 'x' %}c{% elif codename not in ['sid'] %}d{% else %}e{% endif %}";
        assert_eq!(r(t).unwrap(), "ad");
    }

    #[test]
    fn jinja_beyond_the_subset_is_refused() {
        for t in [
            "{% for x in y %}{% endfor %}",
            "{{ mirror | upper }}",
            "{% if a and b %}{% endif %}",
            "{% if a %}",
            "{{- mirror }}",
            "{{ x.y }}",
            "{% endif %}",
            "{{ f(x) }}",
        ] {
            let got = r(&format!("## template:jinja\n{t}"));
            assert!(matches!(got, Err(Error::Unsupported(_))), "{t}: {got:?}");
        }
        assert!(r("## template: mako\nx").is_err());
    }
}
