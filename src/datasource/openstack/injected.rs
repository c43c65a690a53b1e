//! A config drive's injected files, as cloud-init's ConfigDrive writes them on a new instance:
//! meta_data.json's `files` (`[{path, content_path}]`), each content read from the drive under
//! `openstack/` (`/content/0000`), written to `path` in the target (made absolute) with
//! cloud-init's mode 0660 by the local stage's one writer, which keeps every write inside the
//! target. A bad entry (not an object, no path, a content path leaving `openstack/`, content
//! missing) fails that file only, with a warning naming its index.
//! Not here: the metadata service's `files` (cloud-init keeps them and never writes them; the
//! OpenStack datasource warns), personality files' owners (Nova has none).

use crate::datasource::common::seed::FileRead;
use crate::datasource::instance::PlatformFile;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::Value;

/// cloud-init's `write_injected_files` mode.
const MODE: u32 = 0o660;
/// More than this many entries are not read: a budget, as for every input.
const MAX_FILES: usize = 64;

/// The drive path of a `content_path`, or `None` when it would leave `openstack/`.
fn drive_path(content_path: &str) -> Option<String> {
    let rel = content_path.trim_start_matches('/');
    let ok = !rel.is_empty()
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    ok.then(|| format!("openstack/{rel}"))
}

/// Reads the files `md` lists through `get` into `data.files`; `md_file` names meta_data.json
/// in warnings.
pub fn read(
    md: &Value,
    mut get: impl FnMut(&str) -> FileRead,
    md_file: &str,
    data: &mut InstanceData,
) {
    let Some(list) = md.get("files").and_then(Value::as_array) else {
        return;
    };
    let warn = |data: &mut InstanceData, i: usize, code, msg: &str| {
        let d = Diag::warning(code, format!("{msg}: this file is not written"));
        data.diags
            .push(d.key(format!("files.{i}")).file(md_file.to_string()));
    };
    if list.len() > MAX_FILES {
        let msg = format!("more than {MAX_FILES} injected files: the rest are not written");
        let d = Diag::warning(Reason::OpenstackFilesIgnored, msg).key("files");
        data.diags.push(d.file(md_file.to_string()));
    }
    for (i, entry) in list.iter().take(MAX_FILES).enumerate() {
        let field = |k: &str| {
            entry
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let (Some(path), Some(content_path)) = (field("path"), field("content_path")) else {
            warn(
                data,
                i,
                Reason::WrongType,
                "needs path and content_path strings",
            );
            continue;
        };
        let Some(on_drive) = drive_path(content_path) else {
            warn(
                data,
                i,
                Reason::OpenstackFilesIgnored,
                "content_path leaves openstack/",
            );
            continue;
        };
        let content = match get(&on_drive) {
            FileRead::Found(b) => b,
            FileRead::Absent => {
                warn(
                    data,
                    i,
                    Reason::OpenstackFilesIgnored,
                    "its content is not on the drive",
                );
                continue;
            }
            FileRead::Failed(mut d) => {
                d.severity = crate::error::Severity::Warning;
                data.diags.push(d);
                continue;
            }
        };
        let path = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("/{path}")
        };
        data.files.push(PlatformFile {
            path,
            mode: MODE,
            content: Secret::new(content),
            new_instance_only: true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_are_read_from_the_drive_and_bad_entries_named() {
        let md = json!({"files": [
            {"path": "/etc/motd", "content_path": "/content/0000"},
            {"path": "root/.hushlogin", "content_path": "/content/0001"},
            {"path": "/etc/x", "content_path": "/../../etc/shadow"},
            {"path": "/etc/y", "content_path": "/content/0009"},
            {"path": 5},
            "junk"
        ]});
        let mut asked = Vec::new();
        let get = |p: &str| {
            asked.push(p.to_string());
            match p {
                "openstack/content/0000" => FileRead::Found(b"hello\n".to_vec()),
                "openstack/content/0001" => FileRead::Found(Vec::new()),
                _ => FileRead::Absent,
            }
        };
        let mut data = InstanceData::default();
        read(&md, get, "sr0: meta_data.json", &mut data);
        let got: Vec<_> = data
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.mode, f.content.expose().clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("/etc/motd", 0o660, b"hello\n".to_vec()),
                ("/root/.hushlogin", 0o660, Vec::new())
            ]
        );
        assert!(data.files.iter().all(|f| f.new_instance_only));
        // Never asked outside openstack/.
        assert_eq!(
            asked,
            [
                "openstack/content/0000",
                "openstack/content/0001",
                "openstack/content/0009"
            ]
        );
        let keys: Vec<_> = data
            .diags
            .iter()
            .map(|d| d.key.clone().unwrap_or_default())
            .collect();
        assert_eq!(keys, ["files.2", "files.3", "files.4", "files.5"]);
    }
}
