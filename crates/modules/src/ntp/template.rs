//! Templates of the user's own (`ntp.config.template`, or a `template_name` ember does not
//! carry, read from the image's `/etc/cloud/templates`), rendered as cloud-init's templater
//! does: a first line `## template: jinja` makes the rest Jinja, rendered by ember-initrd
//! (the runner has no Jinja engine; `ember-initrd render`, as `devel render` uses it) over
//! `servers`, `pools`, `allow` and `peers`; without it (or with `## template: basic`) the
//! text is cloud-init's basic template, where `$name` and `${name}` stand for those lists.

use super::render::Lists;
use crate::pyvalue::py_str;
use crate::root::{FileSpec, Root};
use crate::state::EMBER_LIB;
use crate::template::{self, Kind};
use std::io::Write;
use std::process::Stdio;

/// The header of the file handed to `ember-initrd render` (the spelling it expects).
const JINJA_HEADER: &str = "## template: jinja\n";
/// Where the template waits for ember-initrd, 0600, while it renders.
const TMP: &str = "/var/lib/ember/ntp-template.tmpl";

/// A rendered template and the warnings ember-initrd gave (undefined variables).
pub struct Rendered {
    pub text: String,
    pub warnings: Vec<String>,
}

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

/// Jinja by ember-initrd: the template in a 0600 file of the target for the time it takes,
/// the lists on its standard input.
fn jinja(root: &Root, body: &str, lists: &Lists) -> Result<Rendered, String> {
    let file = format!("{JINJA_HEADER}{body}");
    root.write_file(TMP, file.as_bytes(), &FileSpec::mode(0o600))
        .map_err(|e| e.to_string())?;
    debug_assert!(TMP.starts_with(EMBER_LIB));
    let result = run_initrd(root, lists);
    let _ = root.remove_file(TMP);
    let (stdout, stderr) = result?;
    // Jinja drops the template's last newline; cloud-init's templater puts it back.
    let mut text = stdout;
    if body.ends_with('\n') {
        text.push('\n');
    }
    let warnings = stderr
        .lines()
        .filter_map(|l| l.split_once("undefined template variable"))
        .map(|(_, rest)| format!("undefined template variable{rest}"))
        .collect();
    Ok(Rendered { text, warnings })
}

fn run_initrd(root: &Root, lists: &Lists) -> Result<(String, String), String> {
    let path = root.path().join(TMP.trim_start_matches('/'));
    let mut cmd = crate::initrd::command("render").map_err(|tried| {
        let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        format!(
            "ember render needs ember-initrd (the binary with the parsers), found at none of {}; install it or set EMBER_INITRD",
            list.join(", ")
        )
    })?;
    cmd.arg(&path)
        .args(["--instance-data", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("ember-initrd render could not be started: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        let data = serde_json::to_vec(&vars(lists)).unwrap_or_default();
        let _ = stdin.write_all(&data);
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("ember-initrd render: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        // Its message names the file, the line and the kind of error, never template text.
        let why = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("failed")
            .chars()
            .take(200)
            .collect::<String>();
        let why = why.replace(&path.display().to_string(), "template");
        let why = why.trim_start_matches("ember: ");
        return Err(format!("the template did not render: {why}"));
    }
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), stderr))
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
