//! Templates of the user's own (`ntp.config.template`, or a `template_name` ember does not
//! carry, read from the image's `/etc/cloud/templates`), rendered as cloud-init's templater
//! does: a first line `## template: jinja` makes the rest Jinja, rendered by ember-initrd
//! (the runner has no Jinja engine; `ember-initrd render`, as `devel render` uses it) over
//! `servers`, `pools`, `allow` and `peers`; without it (or with `## template: basic`) the
//! text is cloud-init's basic template, where `$name` and `${name}` stand for those lists.

use super::render::Lists;
use crate::common::pyvalue::py_str;
use crate::initrd::{self, Missing, Rendered};
use crate::root::Root;
use crate::template::{self, Kind};

/// Renders `text` over `lists`.
pub fn render(root: &Root, text: &str, lists: &Lists) -> Result<Rendered, String> {
    match template::split_header(text)? {
        (Some(Kind::Jinja), body) => jinja(root, body, lists),
        (_, body) => basic(body, lists).map(|text| Rendered {
            text,
            warnings: Vec::new(),
        }),
    }
}

/// What a template sees: the four lists.
fn vars(lists: &Lists) -> serde_json::Value {
    serde_json::json!({"servers": lists.servers, "pools": lists.pools,
                       "allow": lists.allow, "peers": lists.peers})
}

/// The four lists, as Python's `str()` shows a list: `['a', 'b']`.
fn basic(text: &str, lists: &Lists) -> Result<String, String> {
    let vars = vars(lists);
    let (out, unknown) = template::basic(text, &|n| template::walk(&vars, n).map(py_str));
    if !unknown.is_empty() {
        return Err(
            "the basic template names a variable other than servers, pools, allow, peers".into(),
        );
    }
    Ok(out)
}

/// Jinja by ember-initrd, over the lists.
fn jinja(root: &Root, body: &str, lists: &Lists) -> Result<Rendered, String> {
    initrd::render_jinja(root, "ntp-template", body, &vars(lists), Missing::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> Lists {
        Lists {
            servers: vec!["a.example".into(), "10.0.0.1".into()],
            pools: vec!["p'ool".into()],
            ..Lists::default()
        }
    }

    #[test]
    fn basic_templates_show_python_lists() {
        let got = basic(
            "servers=$servers pools=${pools} $$ $ {x} allow=$allow\n",
            &lists(),
        );
        assert_eq!(
            got.unwrap(),
            "servers=['a.example', '10.0.0.1'] pools=[\"p'ool\"] $$ $ {x} allow=[]\n"
        );
        assert!(basic("x $other y", &lists()).is_err());
    }
}
