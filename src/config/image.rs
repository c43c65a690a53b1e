//! The image's own configuration: /etc/cloud/cloud.cfg, cloud.cfg.d/*.cfg (in name order) and
//! /etc/ember/ember.cfg, merged with later files winning, as cloud-init reads them. Read from
//! the target root, or from the initramfs itself when the target holds none (not mounted yet).
//! A file whose first line is `## template: jinja` is a template over the instance data, as
//! cloud-init reads it: rendered once instance data exists (the local stage loads the config
//! again for that), read as plain YAML before (the header is a comment).

use crate::config::ember::{self, EmberSettings};
use crate::config::merge::merge_replace;
use crate::error::Diag;
use crate::host::Host;
use crate::limits::Limits;
use crate::paths::SystemPaths;
use crate::reason::Reason;
use crate::root::Root;
use crate::yaml;
use serde_json::Value;
use std::collections::BTreeMap;

/// Largest image config file read; image configs are a few KiB.
const MAX_CFG_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Clone, Debug, Default)]
pub struct ImageConfig {
    /// The merged configuration (an empty map when there is none).
    pub value: Value,
    /// Files read, in merge order, named as on the machine (`/etc/cloud/cloud.cfg`).
    pub files: Vec<String>,
    pub diags: Vec<Diag>,
    /// ember's own settings (`ember:`): the budgets, the removable seeds accepted.
    pub ember: EmberSettings,
    /// Whether a file is a Jinja template (rendered only when loaded with instance data).
    pub templated: bool,
    /// `system_info.paths`: where cloud-init's state and the image's templates are.
    pub paths: SystemPaths,
    /// Each top-level key with the last file that set it, for diagnostics about its value.
    origins: BTreeMap<String, String>,
}

/// Where the files are read from: a target root that has them, else the host.
enum Source<'a> {
    Target(&'a Root),
    Host(&'a Host),
}

impl Source<'_> {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            Source::Target(root) => root
                .read_file(path, MAX_CFG_BYTES)
                .map_err(|e| e.to_string()),
            Source::Host(host) => match crate::regular::read(&host.path(path), MAX_CFG_BYTES) {
                Ok(data) => Ok(Some(data)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(format!("{path}: {e}")),
            },
        }
    }
    fn list(&self, dir: &str) -> Vec<String> {
        match self {
            Source::Target(root) => root.list_dir(dir).unwrap_or_default(),
            Source::Host(host) => std::fs::read_dir(host.path(dir))
                .map(|rd| {
                    let mut names: Vec<String> = rd
                        .filter_map(|e| e.ok()?.file_name().into_string().ok())
                        .collect();
                    ember_core::sort::sort(&mut names);
                    names
                })
                .unwrap_or_default(),
        }
    }
}

fn has_config(source: &Source) -> bool {
    ["/etc/cloud", "/etc/ember"].iter().any(|d| match source {
        Source::Target(root) => root.exists(d),
        Source::Host(host) => host.path(d).exists(),
    })
}

pub fn load(target: Option<&Root>, host: &Host) -> ImageConfig {
    load_with(target, host, None)
}

/// What becomes of a templated file.
pub enum Rendered {
    Text(String),
    /// Not a template Jinja can read: read as written, as cloud-init does.
    AsWritten,
    /// It failed while rendering: the file gives nothing, as in cloud-init.
    Ignored,
}

/// Renders a templated file's whole text (header included); its path names the diagnostics
/// it adds. The local stage's, over the instance data (`stages::system_template`): the
/// config knows no Jinja.
pub type Render<'r> = &'r dyn Fn(&str, &str, &mut Vec<Diag>) -> Rendered;

/// [`load`], the templated files rendered by `render`.
pub fn load_rendered(target: Option<&Root>, host: &Host, render: Render) -> ImageConfig {
    load_with(target, host, Some(render))
}

/// The first line that marks a template (matched without case, after leading blanks).
const TEMPLATE_HEADER: &str = "## template: jinja";

fn is_template(text: &str) -> bool {
    let head = text.trim_start().get(..TEMPLATE_HEADER.len());
    head.is_some_and(|h| h.eq_ignore_ascii_case(TEMPLATE_HEADER))
}

fn load_with(target: Option<&Root>, host: &Host, render: Option<Render>) -> ImageConfig {
    let source = match target {
        Some(root) if has_config(&Source::Target(root)) => Source::Target(root),
        _ => Source::Host(host),
    };
    let mut paths = vec!["/etc/cloud/cloud.cfg".to_string()];
    for name in source.list("/etc/cloud/cloud.cfg.d") {
        if name.ends_with(".cfg") {
            paths.push(format!("/etc/cloud/cloud.cfg.d/{name}"));
        }
    }
    paths.push("/etc/ember/ember.cfg".to_string());

    let mut cfg = ImageConfig {
        value: Value::Object(Default::default()),
        ..ImageConfig::default()
    };
    let parse_limits = Limits::default();
    for path in paths {
        let data = match source.read(&path) {
            Ok(Some(data)) => data,
            Ok(None) => continue,
            Err(e) => {
                cfg.diags
                    .push(Diag::error(Reason::ConfigRead, e).file(&path));
                continue;
            }
        };
        cfg.files.push(path.clone());
        let text = match std::str::from_utf8(&data) {
            Ok(text) => text,
            Err(e) => {
                let d = yaml::not_utf8(&data, e.valid_up_to(), "; file ignored");
                cfg.diags.push(d.file(&path));
                continue;
            }
        };
        let rendered;
        cfg.templated |= is_template(text);
        let text = match render.filter(|_| is_template(text)) {
            None => text,
            Some(render) => match render(text, &path, &mut cfg.diags) {
                Rendered::Text(t) => {
                    rendered = t;
                    &rendered
                }
                Rendered::AsWritten => text,
                Rendered::Ignored => continue,
            },
        };
        let mut parsed = yaml::parse(text, &parse_limits);
        if let Ok(doc) = &mut parsed {
            cfg.diags.extend(doc.drop_failed_keys(&path));
        }
        match parsed {
            Ok(doc) if doc.value.is_object() => {
                for key in doc.value.as_object().into_iter().flat_map(|m| m.keys()) {
                    cfg.origins.insert(key.clone(), path.clone());
                }
                merge_replace(&mut cfg.value, doc.value)
            }
            Ok(doc) if doc.value.is_null() => {}
            Ok(_) => cfg
                .diags
                .push(Diag::error(Reason::WrongType, "must be a mapping").file(&path)),
            Err(e) => cfg.diags.push(e.to_diag(&path)),
        }
    }
    let mut diags = Vec::new();
    cfg.ember = ember::read(&cfg.value, &mut diags);
    let file = cfg.origin("ember").map(str::to_string);
    cfg.diags.extend(diags.into_iter().map(|d| match &file {
        Some(f) => d.file(f.as_str()),
        None => d,
    }));
    let mut diags = Vec::new();
    cfg.paths = system_paths(&cfg.value, &mut diags);
    let file = cfg.origin("system_info").unwrap_or("").to_string();
    cfg.diags
        .extend(diags.into_iter().map(|d| d.file(file.as_str())));
    cfg
}

/// Where cloud-init keeps its run files; ember's stay there (see the manual, run_dir).
const RUN_DIR: &str = "/run/cloud-init";

/// `system_info.paths`: `cloud_dir` and `templates_dir` taken when each is a plain absolute
/// path (no `..`, no control character), else a warning and the default; `run_dir` other than
/// cloud-init's own is a warning (ember's run files are where the initramfs leaves them).
fn system_paths(cfg: &Value, diags: &mut Vec<Diag>) -> SystemPaths {
    let mut paths = SystemPaths::default();
    let Some(given) = cfg.get("system_info").and_then(|s| s.get("paths")) else {
        return paths;
    };
    let mut take = |key: &str, slot: &mut String| {
        let Some(value) = given.get(key).filter(|v| !v.is_null()) else {
            return;
        };
        let key = format!("system_info.paths.{key}");
        match value.as_str().map(plain_absolute) {
            Some(Some(dir)) => *slot = dir,
            Some(None) => {
                let msg = format!("must be an absolute path without `..`; {slot} is used");
                diags.push(Diag::warning(Reason::BadValue, msg).key(key));
            }
            None => {
                let msg = format!("must be a string; {slot} is used");
                diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            }
        }
    };
    take("cloud_dir", &mut paths.cloud_dir);
    take("templates_dir", &mut paths.templates_dir);
    let run_dir = given.get("run_dir").and_then(Value::as_str);
    if run_dir.is_some_and(|d| d.trim_end_matches('/') != RUN_DIR) {
        let msg = format!("not honoured: ember's run files stay in {RUN_DIR}");
        diags.push(Diag::warning(Reason::UnsupportedKey, msg).key("system_info.paths.run_dir"));
    }
    paths
}

/// `dir` without its trailing `/`, when it is absolute and names no `.`, `..` or control
/// character: a path that cannot climb out of where it says.
fn plain_absolute(dir: &str) -> Option<String> {
    let trimmed = dir.trim_end_matches('/');
    let plain = trimmed.starts_with('/')
        && !trimmed.chars().any(char::is_control)
        && trimmed
            .split('/')
            .skip(1)
            .all(|c| !c.is_empty() && c != "." && c != "..");
    plain.then(|| trimmed.to_string())
}

impl ImageConfig {
    /// The last file that set top-level `key` (`/etc/cloud/cloud.cfg.d/90-x.cfg`).
    pub fn origin(&self, key: &str) -> Option<&str> {
        self.origins.get(key).map(String::as_str)
    }

    /// `datasource_list` as written (cloud-init names such as `NoCloud`), if the image sets it.
    pub fn datasource_list(&self) -> Option<Vec<String>> {
        let list = self.value.get("datasource_list")?;
        // cloud-init also accepts a comma-separated string.
        match list {
            Value::String(s) => Some(s.split(',').map(|x| x.trim().to_string()).collect()),
            Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The settings of one datasource: `datasource: {NoCloud: {...}}`.
    pub fn datasource_settings(&self, cloud_init_name: &str) -> Option<&Value> {
        self.value.get("datasource")?.get(cloud_init_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn system_paths_are_plain_absolute_directories() {
        let mut diags = Vec::new();
        let cfg = json!({"system_info": {"paths": {
            "cloud_dir": "/new-cloud-dir/", "templates_dir": "/srv/t", "run_dir": "/run/cloud-init/",
        }}});
        let paths = system_paths(&cfg, &mut diags);
        assert_eq!(
            (paths.cloud_dir.as_str(), paths.templates_dir.as_str()),
            ("/new-cloud-dir", "/srv/t")
        );
        assert!(diags.is_empty(), "{diags:?}");
        let cfg = json!({"system_info": {"paths": {
            "cloud_dir": "/var/lib/../../etc", "templates_dir": 3, "run_dir": "/run/x",
        }}});
        let paths = system_paths(&cfg, &mut diags);
        assert_eq!(paths, SystemPaths::default());
        let keys: Vec<_> = diags
            .iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            keys,
            [
                ("bad-value", "system_info.paths.cloud_dir"),
                ("wrong-type", "system_info.paths.templates_dir"),
                ("unsupported-key", "system_info.paths.run_dir"),
            ]
        );
        for bad in ["relative", "/", "/a/./b", "/a\nb", ""] {
            assert_eq!(plain_absolute(bad), None, "{bad:?}");
        }
    }
}
