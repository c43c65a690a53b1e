//! What `ember schema --config-file` makes of user-data that is not plain `#cloud-config`, as
//! cloud-init's schema command does: a recognised part type other than cloud-config (a script,
//! a boothook, `#include`, a part-handler, a cloud-config-archive) is not evaluated and is no
//! error; `## template: jinja` is rendered over the instance data and the result checked (with
//! no instance data it is an error, as cloud-init's "not yet present"). An unrecognised first
//! line stays the header error of `check`.

use super::system::Found;
use super::Kind;
use crate::limits::Limits;
use crate::redact::printable;
use crate::userdata::{jinja, parts};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The instance data a template is rendered over, under `target`: the sensitive file when it
/// can be read (root), else the public one, else none.
const INSTANCE_DATA: [&str; 2] = [
    "run/ember/instance-data-sensitive.json",
    "run/ember/instance-data.json",
];

/// Where a template's variables come from: `--instance-data FILE`, else the machine's.
pub struct InstanceData<'a> {
    pub target: &'a Path,
    pub file: Option<&'a Path>,
}

pub fn classify(name: String, text: String, data: &InstanceData, limits: &Limits) -> Found {
    match parts::detect(text.as_bytes()) {
        Some("text/jinja2") => render(name, &text, data, limits),
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

fn render(name: String, text: &str, source: &InstanceData, limits: &Limits) -> Found {
    let (template, _) = jinja::strip_header(text).unwrap_or((text, 0));
    let paths: Vec<PathBuf> = match source.file {
        Some(file) => vec![file.to_path_buf()],
        None => INSTANCE_DATA
            .iter()
            .map(|r| source.target.join(r))
            .collect(),
    };
    let Some(bytes) = paths.iter().find_map(|p| std::fs::read(p).ok()) else {
        let path = paths.last().map(|p| p.display().to_string());
        return Found::Unreadable {
            name,
            reason: format!(
                "is a Jinja template and there is no instance data to render it with \
                 (not yet present at {})",
                printable(&path.unwrap_or_default())
            ),
        };
    };
    let data = match serde_json::from_slice::<Value>(&bytes) {
        Ok(data @ Value::Object(_)) => data,
        _ => {
            return Found::Unreadable {
                name,
                reason: "is a Jinja template and its instance data is not a JSON object".into(),
            }
        }
    };
    match jinja::render(template, &data, limits) {
        // The rendered text is what the boot would read; it is checked as user-data.
        Ok(rendered) => classify(
            format!("{name} (rendered from its Jinja template)"),
            rendered.text,
            source,
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
