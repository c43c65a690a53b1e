//! What `ember schema --config-file` makes of user-data that is not plain `#cloud-config`, as
//! cloud-init's schema command does: a recognised part type other than cloud-config (a script,
//! a boothook, `#include`, a part-handler, a cloud-config-archive) is not evaluated and is no
//! error; `## template: jinja` is rendered over the instance data (when the machine has some)
//! and the result checked. An unrecognised first line stays the header error of `check`.

use super::system::Found;
use super::Kind;
use crate::limits::Limits;
use crate::userdata::{jinja, parts};
use serde_json::Value;
use std::path::Path;

/// The instance data a template is rendered over, under `target`: the sensitive file when it
/// can be read (root), else the public one, else none.
const INSTANCE_DATA: [&str; 2] = [
    "run/ember/instance-data-sensitive.json",
    "run/ember/instance-data.json",
];

pub fn classify(name: String, text: String, target: &Path, limits: &Limits) -> Found {
    match parts::detect(text.as_bytes()) {
        Some("text/jinja2") => render(name, &text, target, limits),
        None | Some("text/cloud-config") => Found::Doc {
            name,
            text,
            kind: Kind::UserData,
        },
        Some(other) => Found::Note(format!(
            "User-data type '{other}' not currently evaluated by cloud-init schema"
        )),
    }
}

fn render(name: String, text: &str, target: &Path, limits: &Limits) -> Found {
    let (template, _) = jinja::strip_header(text).unwrap_or((text, 0));
    let data = INSTANCE_DATA.iter().find_map(|rel| {
        let bytes = std::fs::read(target.join(rel)).ok()?;
        serde_json::from_slice::<Value>(&bytes).ok()
    });
    let data = data.unwrap_or_else(|| Value::Object(Default::default()));
    match jinja::render(template, &data, limits) {
        // The rendered text is what the boot would read; it is checked as user-data.
        Ok(rendered) => classify(
            format!("{name} (rendered from its Jinja template)"),
            rendered.text,
            target,
            limits,
        ),
        Err(e) => {
            let line = e.line.map(|l| format!(" at line {l}")).unwrap_or_default();
            Found::Unreadable {
                name,
                reason: format!("is a Jinja template that does not render: {}{line}", e.what),
            }
        }
    }
}
