//! `schema --system`: the documents of this machine, as cloud-init's `--system` finds them: the
//! image's config (/etc/cloud/cloud.cfg, cloud.cfg.d/*.cfg, ember's /etc/ember/ember.cfg) and
//! the instance's user-data, vendor-data and vendor-data2, each named by its type as cloud-init
//! names them (`Valid schema user-data`). User-data that is a script has no cloud-config to
//! check; MIME user-data or vendor-data has each of its parts checked on its own, with its
//! lines (a part of another type is noted, not evaluated); `#include` or gzip user-data is
//! checked through the cloud-config ember extracted from it at boot (`cloud-config.txt`).

use super::user_data_type::{classify, InstanceData};
use super::Kind;
use crate::limits::Limits;
use crate::redact::printable;
use crate::root::Root;
use crate::userdata::mime;

/// Largest document read; user-data is bounded far below this at boot.
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Deepest multipart nesting walked, as the boot's own bound keeps a crafted message small.
const MAX_NESTING: usize = 8;

/// One document to check, or a note on why there is none.
pub enum Found {
    Doc {
        name: String,
        text: String,
        kind: Kind,
    },
    /// A network-config document (`--schema-type network-config`).
    Network {
        name: String,
        text: String,
    },
    Note(String),
    Unreadable {
        name: String,
        reason: String,
    },
}

pub fn documents(root: &Root, data: &InstanceData, limits: &Limits) -> Vec<Found> {
    let mut paths = vec!["/etc/cloud/cloud.cfg".to_string()];
    let mut names = root.list_dir("/etc/cloud/cloud.cfg.d").unwrap_or_default();
    ember_core::sort::sort(&mut names);
    for name in names.iter().filter(|n| n.ends_with(".cfg")) {
        paths.push(format!("/etc/cloud/cloud.cfg.d/{name}"));
    }
    paths.push("/etc/ember/ember.cfg".to_string());
    let mut out: Vec<Found> = paths
        .iter()
        .filter_map(|p| read(root, p, Kind::ImageConfig))
        .collect();
    let inst = format!("{}/instance", crate::paths::system().cloud_dir);
    for (what, file) in [
        ("user-data", "user-data.txt"),
        ("vendor-data", "vendor-data.txt"),
        ("vendor2-data", "vendor-data2.txt"),
    ] {
        let path = format!("{inst}/{file}");
        let found = read(root, &path, Kind::UserData);
        if found.is_some() {
            out.push(Found::Note(format!("{what} at {path}:")));
        }
        match found {
            Some(Found::Doc { text, .. }) if mime::looks_like_mime(text.as_bytes()) => {
                let entity = mime::parse_entity(text.as_bytes());
                mime_parts(what, &entity, data, limits, &mut 0, 0, &mut out);
            }
            Some(Found::Doc { text, .. }) if !text.starts_with(super::HEADER) => {
                out.push(not_cloud_config(root, what, &path, &text, &inst));
            }
            Some(Found::Doc { text, kind, .. }) => out.push(Found::Doc {
                name: what.to_string(),
                text,
                kind,
            }),
            Some(found) => out.push(found),
            None if what == "user-data" => {
                out.push(Found::Note(format!("no {what} at {path}: not checked")))
            }
            None => {}
        }
    }
    out
}

/// Each part of a MIME message on its own: cloud-config (and what a template renders) is
/// checked with its own lines, a part of another type is noted as not evaluated.
fn mime_parts(
    what: &str,
    e: &mime::Entity,
    data: &InstanceData,
    limits: &Limits,
    count: &mut usize,
    depth: usize,
    out: &mut Vec<Found>,
) {
    let ctype = e.content_type();
    if ctype.starts_with("multipart/") {
        let boundary = e
            .header("content-type")
            .and_then(|v| mime::param(v, "boundary"));
        match boundary.filter(|b| !b.is_empty() && depth < MAX_NESTING) {
            Some(b) => {
                for body in mime::split_multipart(e.body, &b) {
                    let inner = mime::parse_entity(body);
                    mime_parts(what, &inner, data, limits, count, depth + 1, out);
                }
            }
            None => out.push(Found::Unreadable {
                name: what.to_string(),
                reason: "has a multipart part without a boundary (or nested too deep)".into(),
            }),
        }
        return;
    }
    *count += 1;
    let file = e.filename().map(|f| format!(" ({})", printable(&f)));
    let name = format!("{what} part {count}{}", file.unwrap_or_default());
    let text = match e.decoded_body().map(String::from_utf8) {
        Ok(Ok(text)) => text,
        _ => {
            let reason = "cannot be decoded as UTF-8 text".to_string();
            return out.push(Found::Unreadable { name, reason });
        }
    };
    // A part's type comes from its header; text/plain and the like, from its first line. A
    // part declared cloud-config needs no `#cloud-config` line.
    if ctype == "text/cloud-config" && !text.starts_with(super::HEADER) {
        let kind = Kind::ImageConfig;
        return out.push(Found::Doc { name, text, kind });
    }
    out.push(classify(name, text, data, limits));
}

/// User-data that is not `#cloud-config` at its top, handled as cloud-init handles it.
fn not_cloud_config(root: &Root, what: &str, path: &str, text: &str, inst: &str) -> Found {
    if text.starts_with("#!") {
        return Found::Note(format!(
            "{what} at {path} is a script: no cloud-config to check"
        ));
    }
    // Only user-data's cloud-config is kept apart at boot.
    let extracted = format!("{inst}/cloud-config.txt");
    if what == "user-data" {
        if let Some(found) = read(root, &extracted, Kind::UserData) {
            return match found {
                Found::Doc { text, kind, .. } => Found::Doc {
                    name: format!("{extracted} (the cloud-config of {what} {path})"),
                    text,
                    kind,
                },
                other => other,
            };
        }
    }
    Found::Note(format!(
        "{what} at {path} is not cloud-config (MIME, #include, gzip or another part type) \
         and holds none ember kept: not checked"
    ))
}

fn read(root: &Root, path: &str, kind: Kind) -> Option<Found> {
    let name = path.to_string();
    match root.read_file(path, MAX_BYTES) {
        Ok(None) => None,
        // gzip user-data: handled below as any other non-cloud-config user-data.
        Ok(Some(data)) if data.starts_with(&[0x1f, 0x8b]) => Some(Found::Doc {
            name,
            text: String::new(),
            kind,
        }),
        Ok(Some(data)) => Some(match String::from_utf8(data) {
            Ok(text) => Found::Doc { name, text, kind },
            Err(_) => Found::Unreadable {
                name,
                reason: "is not valid UTF-8".into(),
            },
        }),
        Err(e) => Some(Found::Unreadable {
            name,
            reason: e.to_string(),
        }),
    }
}
