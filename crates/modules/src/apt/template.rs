//! cloud-init's `templater.render_string` for apt's texts: the basic renderer (`$NAME`,
//! `${NAME}`, `crate::template`) and, after a `## template: jinja` first line, Jinja by
//! `ember-initrd render --mark-missing` (the runner has no Jinja engine), which prints a
//! variable the template lacks as cloud-init does for the image's templates:
//! `CI_MISSING_JINJA_VAR/name`.
//! <https://docs.cloud-init.io/en/latest/explanation/instancedata.html>

use crate::initrd::{self, Missing};
use crate::root::Root;
use crate::template::{self, Kind};
use serde_json::Value;

#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    /// The basic renderer met a `$NAME` with no value (cloud-init raises there).
    Undefined(String),
    /// A header naming another renderer, or Jinja that did not render; says why.
    Template(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Error::Undefined(name) => write!(f, "the variable ${name} has no value"),
            Error::Template(why) => f.write_str(why),
        }
    }
}

/// Renders `text` over `vars` (a mapping of names to strings) as cloud-init's
/// `templater.render_string` would; Jinja is rendered in the target `root`.
pub fn render(root: &Root, text: &str, vars: &Value) -> Result<String, Error> {
    match template::split_header(text).map_err(Error::Template)? {
        (Some(Kind::Jinja), body) => {
            initrd::render_jinja(root, "apt-template", body, vars, Missing::Marked)
                .map(|r| r.text)
                .map_err(Error::Template)
        }
        (_, body) => basic(body, vars),
    }
}

/// `$NAME` and `${NAME}`; the first name `vars` lacks fails, as in cloud-init.
fn basic(text: &str, vars: &Value) -> Result<String, Error> {
    let lookup = |name: &str| template::walk(vars, name)?.as_str().map(str::to_string);
    let (out, unknown) = template::basic(text, &lookup);
    match unknown.into_iter().next() {
        Some(name) => Err(Error::Undefined(name)),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(text: &str) -> Result<String, Error> {
        let vars = json!({"MIRROR": "http://m/debian", "mirror": "http://m/debian",
                          "RELEASE": "bookworm", "primary_key": ""});
        let root = Root::open(&std::env::temp_dir()).unwrap();
        render(&root, text, &vars)
    }

    #[test]
    fn basic_substitutes_dollar_names() {
        assert_eq!(
            r("deb $MIRROR ${RELEASE}-updates main $ 5$\n").unwrap(),
            "deb http://m/debian bookworm-updates main $ 5$\n"
        );
        // A dotted name looks into a mapping, which no apt variable is.
        assert_eq!(r("$RELEASE.x"), Err(Error::Undefined("RELEASE.x".into())));
        assert_eq!(r("a $NOPE b"), Err(Error::Undefined("NOPE".into())));
        assert_eq!(r("${MIRROR").unwrap(), "${MIRROR");
        // A `## template: basic` line goes; `{{ }}` stays as written without a jinja line.
        assert_eq!(
            r("## template:basic\n{{mirror}} $RELEASE").unwrap(),
            "{{mirror}} bookworm"
        );
        assert!(matches!(r("## template: mako\nx"), Err(Error::Template(_))));
    }
}
