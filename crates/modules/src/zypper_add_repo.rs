//! `zypper_add_repo`: each entry of `zypper.repos` (with `id` and `baseurl`) becomes
//! `<reposdir>/<id>.repo` as cloud-init writes it with configobj (the section, then its keys
//! indented by four spaces, `enabled` and `autorefresh` defaulting to 1), never replacing an
//! existing file; `zypper.config` is appended to /etc/zypp/zypp.conf under `# Added via
//! cloud.cfg` (`configdir` is refused). As in cloud-init, nothing is done without `repos`, and
//! it runs every boot, so zypp.conf gets the lines again each boot.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#zypper-add-repo>

use super::{ModCtx, RunnerModule};
use crate::common::pyvalue::{py_str, truthy};
use crate::conf_lang::{configobj, ini, Refused};
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::{Map, Value};

pub struct ZypperAddRepo;

const ZYPP_CONF: &str = "/etc/zypp/zypp.conf";
const DEFAULT_DIR: &str = "/etc/zypp/repos.d/";

#[derive(Debug, PartialEq, Eq)]
pub struct Repo {
    /// The file name: the id with spaces made `_`.
    pub file_id: String,
    /// The repository's text (configobj's, without a final newline).
    pub text: String,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    /// Whether `config` had any setting: zypp.conf is then read (and must exist).
    pub config_given: bool,
    /// The `key=value` lines to append to zypp.conf.
    pub config: Vec<String>,
    pub dir: String,
    pub repos: Vec<Repo>,
}

/// `zypper`: None when there is nothing to do, or a value cloud-init fails on (with its
/// diagnostic).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let zypper = cfg.get("zypper").filter(|v| truthy(v))?;
    let Some(zypper) = zypper.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("zypper"));
        return None;
    };
    let repos = zypper.get("repos").filter(|v| truthy(v))?;
    let empty = Map::new();
    let config = match zypper.get("config") {
        None => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => {
            let msg = "expected a mapping of zypp.conf settings";
            diags.push(Diag::error(Reason::WrongType, msg).key("zypper.config"));
            return None;
        }
    };
    let dir = match config.get("reposdir") {
        None => DEFAULT_DIR.to_string(),
        Some(Value::String(s)) if s.starts_with('/') && !s.chars().any(char::is_control) => {
            s.clone()
        }
        Some(_) => {
            let msg = "must be an absolute directory";
            diags.push(Diag::error(Reason::PathInvalid, msg).key("zypper.config.reposdir"));
            return None;
        }
    };
    let lines = zypp_lines(config, diags);
    let Some(list) = repos.as_array() else {
        let msg = "expected a list of repositories";
        diags.push(Diag::error(Reason::WrongType, msg).key("zypper.repos"));
        return None;
    };
    let mut out: Vec<Repo> = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    for (i, repo) in list.iter().enumerate() {
        let key = format!("zypper.repos.{i}");
        let Some(map) = repo.as_object() else {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key(key));
            continue;
        };
        if !map.contains_key("id") || !map.contains_key("baseurl") {
            let msg = "needs id and baseurl; repository skipped";
            diags.push(Diag::warning(Reason::MissingKey, msg).key(key));
            continue;
        }
        let Some(id) = map["id"].as_str() else {
            let msg = "must be a string";
            diags.push(Diag::error(Reason::WrongType, msg).key(format!("{key}.id")));
            continue;
        };
        let file_id = id.replace(' ', "_");
        if let Err(e) = crate::root::one_name(&file_id, ".repo") {
            diags.push(Diag::from(e).key(format!("{key}.id")));
            continue;
        }
        if ids.contains(&id) {
            continue;
        }
        match render(id, map) {
            Ok(text) => {
                ids.push(id);
                out.push(Repo { file_id, text });
            }
            Err((name, why)) => {
                let msg = format!("{why}; repository skipped");
                diags.push(Diag::error(Reason::BadValue, msg).key(format!("{key}.{name}")));
            }
        }
    }
    Some(Settings {
        config_given: !config.is_empty(),
        config: lines,
        dir,
        repos: out,
    })
}

/// The zypp.conf lines: `key=value` for each setting with a true value, `configdir` refused.
fn zypp_lines(config: &Map<String, Value>, diags: &mut Vec<Diag>) -> Vec<String> {
    let mut lines = Vec::new();
    for (k, v) in config {
        let key = format!("zypper.config.{k}");
        if k == "configdir" {
            let msg = "changing where zypper keeps its configuration is not supported; skipped";
            diags.push(Diag::warning(Reason::UnsupportedKey, msg).key(key));
            continue;
        }
        if !truthy(v) {
            continue;
        }
        match ini::name(k).and_then(|_| ini::value(&py_str(v)).map(str::to_string)) {
            Ok(value) => lines.push(format!("{k}={value}")),
            Err(why) => {
                let msg = format!("{why}; skipped");
                diags.push(Diag::error(Reason::BadValue, msg).key(key));
            }
        }
    }
    lines
}

/// The repository as configobj writes it: `[id]` then `    key = value` lines, keys
/// normalised, `enabled` and `autorefresh` added as 1 when absent. libzypp's reader takes each
/// line alone (trimmed, `[` a section, no quotes, no continuation), so a value is one line: a
/// list of more than one item, which cloud-init writes over several lines, is refused too.
/// The name (`id` or the option's, as given) and why, when configobj's writer refuses one.
fn render(id: &str, map: &Map<String, Value>) -> Result<String, (String, Refused)> {
    let mut opts: Vec<(String, String)> = Vec::new();
    for (k, v) in map.iter().filter(|(k, _)| !k.is_empty() && *k != "id") {
        let named = |why| (k.clone(), why);
        let name = k.trim().to_lowercase().replace('-', "_");
        let name = configobj::quote(&name, false).map_err(named)?;
        let value = configobj::quote(&format_value(v), false).map_err(named)?;
        match opts.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => opts.push((name, value)),
        }
    }
    for field in ["enabled", "autorefresh"] {
        if !opts.iter().any(|(n, _)| n == field) {
            opts.push((field.into(), "1".into()));
        }
    }
    let id = configobj::quote(id, false).map_err(|why| ("id".to_string(), why))?;
    let mut lines = vec![format!("[{id}]")];
    for (k, v) in &opts {
        lines.push(format!("    {k} = {v}"));
    }
    Ok(lines.join("\n"))
}

/// cloud-init's zypper `_format_repo_value`: booleans 1/0, a list's items joined by a
/// newline and four spaces, anything else as Python's `str()`.
fn format_value(v: &Value) -> String {
    match v {
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Array(items) => items
            .iter()
            .map(format_value)
            .collect::<Vec<_>>()
            .join("\n    "),
        other => py_str(other),
    }
}

const REPO_FIELDS: Fields = Fields {
    fields: &[("id", Shape::Str), ("baseurl", Shape::Str)],
    required: &["id", "baseurl"],
    open: true,
};
const ZYPPER_FIELDS: Fields = Fields {
    fields: &[
        ("repos", list(&Shape::Map(&REPO_FIELDS), 1)),
        ("config", Shape::Dict(&Shape::Any)),
    ],
    required: &[],
    open: true,
};
const SHAPES: &[(&str, Shape)] = &[("zypper", Shape::Map(&ZYPPER_FIELDS))];

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for ZypperAddRepo {
    fn name(&self) -> &'static str {
        "zypper_add_repo"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        if settings.config_given {
            let conf = match ctx.root.read_file(ZYPP_CONF, 4 << 20) {
                Ok(Some(data)) => String::from_utf8_lossy(&data).into_owned(),
                Ok(None) => {
                    let msg = format!("{ZYPP_CONF} not found in the target");
                    diags.push(Diag::error(Reason::ReadFailed, msg).key("zypper.config"));
                    return;
                }
                Err(e) => {
                    diags.push(Diag::error(e.code(), e.to_string()).key("zypper.config"));
                    return;
                }
            };
            if !settings.config.is_empty() {
                // As cloud-init: appended right after the file's text, no final newline.
                let text = format!(
                    "{conf}# Added via cloud.cfg\n{}",
                    settings.config.join("\n")
                );
                let spec = FileSpec::mode(0o644);
                if let Err(e) = ctx.root.write_file(ZYPP_CONF, text.as_bytes(), &spec) {
                    diags.push(Diag::error(e.code(), e.to_string()).key("zypper.config"));
                    return;
                }
            }
        }
        for repo in &settings.repos {
            let path = format!(
                "{}/{}.repo",
                settings.dir.trim_end_matches('/'),
                repo.file_id
            );
            if ctx.root.exists(&path) {
                ctx.exec.say(&format!(
                    "zypper_add_repo: skipping repo {}, file {path} already exists",
                    repo.file_id
                ));
                continue;
            }
            let spec = FileSpec::mode(0o644);
            if let Err(e) = ctx.root.write_file(&path, repo.text.as_bytes(), &spec) {
                diags.push(Diag::error(e.code(), e.to_string()).key("zypper.repos"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repos_as_configobj_writes_them() {
        let cfg = json!({"zypper": {
            "repos": [
                {"id": "opensuse oss", "name": "os-oss", "baseurl": "http://dl/oss/",
                 "Enabled": true, "gpg-key": ["a"], "note": "x, y"},
                {"id": "two", "baseurl": "http://two", "autorefresh": 0},
                {"id": "three", "baseurl": "http://3", "gpg-key": ["a", "[main]"]},
                {"name": "no id"}, {"id": "opensuse oss", "baseurl": "dup"},
            ],
            "config": {"download.use_deltarpm": true, "configdir": "/x", "empty": "",
                       "reposdir": "/etc/zypp/repos.dir"}}});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        assert_eq!(s.dir, "/etc/zypp/repos.dir");
        assert_eq!(
            s.config,
            ["download.use_deltarpm=True", "reposdir=/etc/zypp/repos.dir"]
        );
        assert_eq!(s.repos.len(), 2);
        assert_eq!(s.repos[0].file_id, "opensuse_oss");
        assert_eq!(
            s.repos[0].text,
            "[opensuse oss]\n    enabled = 1\n    baseurl = http://dl/oss/\n    \
             gpg_key = a\n    name = os-oss\n    note = \"x, y\"\n    \
             autorefresh = 1"
        );
        assert_eq!(
            s.repos[1].text,
            "[two]\n    autorefresh = 0\n    baseurl = http://two\n    enabled = 1"
        );
        let got: Vec<_> = d.iter().map(|d| d.key.as_deref().unwrap()).collect();
        let want = [
            "zypper.config.configdir",
            "zypper.repos.2.gpg-key",
            "zypper.repos.3",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn nothing_without_repos() {
        let mut d = Vec::new();
        let cfg = json!({"zypper": {"config": {"a": "b"}}});
        assert_eq!(read(&cfg, &mut d), None);
        let cfg = json!({"zypper": {"repos": [{"id": "a", "baseurl": "b"}], "config": null}});
        assert_eq!(read(&cfg, &mut d), None);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].key.as_deref(), Some("zypper.config"));
    }
}
