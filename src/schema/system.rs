//! `schema --system`: the documents of this machine, as cloud-init's `--system` finds them: the
//! image's config (/etc/cloud/cloud.cfg, cloud.cfg.d/*.cfg, ember's /etc/ember/ember.cfg) and
//! the instance's user-data and vendor-data when they are cloud-config. User-data that is a
//! script has no cloud-config to check; MIME, `#include` or gzip user-data is checked through
//! the cloud-config ember extracted from it at boot (`cloud-config.txt`).

use super::Kind;
use crate::root::Root;

/// Largest document read; user-data is bounded far below this at boot.
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One document to check, or a note on why there is none.
pub enum Found {
    Doc {
        name: String,
        text: String,
        kind: Kind,
    },
    Note(String),
    Unreadable {
        name: String,
        reason: String,
    },
}

pub fn documents(root: &Root) -> Vec<Found> {
    let mut paths = vec!["/etc/cloud/cloud.cfg".to_string()];
    let mut names = root.list_dir("/etc/cloud/cloud.cfg.d").unwrap_or_default();
    names.sort();
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
    ] {
        let path = format!("{inst}/{file}");
        match read(root, &path, Kind::UserData) {
            Some(Found::Doc { text, .. }) if !text.starts_with(super::HEADER) => {
                out.push(not_cloud_config(root, what, &path, &text, &inst));
            }
            Some(found) => out.push(found),
            None if what == "user-data" => {
                out.push(Found::Note(format!("no {what} at {path}: not checked")))
            }
            None => {}
        }
    }
    out
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
