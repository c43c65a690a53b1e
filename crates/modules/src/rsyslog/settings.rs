//! `rsyslog` read once into `Settings`, as cloud-init's `load_config` reads it: the mapping's
//! keys with their defaults, or the old list form (with `rsyslog_filename`, `rsyslog_dir`) and
//! its deprecations. A value of the wrong type fails the module, as cloud-init's raises.

use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// One `configs` entry: its index (for messages), content and file, or why it is skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Write {
        content: String,
        filename: Option<String>,
    },
    /// Skipped with a warning (cloud-init logs and goes on).
    Skip(&'static str),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reload {
    Auto,
    Argv(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The key path configs are named under: `rsyslog.configs`, or `rsyslog` (list form).
    pub configs_key: &'static str,
    pub configs: Vec<Entry>,
    pub config_dir: String,
    pub config_filename: String,
    /// `(name, line)`; an empty or null line is skipped, as in cloud-init.
    pub remotes: Vec<(String, Option<String>)>,
    pub reload: Reload,
    pub check_exe: String,
    pub packages: Vec<String>,
    pub install: bool,
}

impl Settings {
    /// The key `config_filename` was given at: the old list form's top-level key, or its own.
    pub fn config_filename_key(&self) -> &'static str {
        match self.configs_key {
            "rsyslog" => "rsyslog_filename",
            _ => "rsyslog.config_filename",
        }
    }
}

fn entry(v: &Value) -> Entry {
    match v {
        Value::String(s) => Entry::Write {
            content: s.clone(),
            filename: None,
        },
        Value::Object(m) => match (m.get("content"), m.get("filename")) {
            (None, _) => Entry::Skip("no content: skipped"),
            (Some(Value::String(c)), None) => Entry::Write {
                content: c.clone(),
                filename: None,
            },
            (Some(Value::String(c)), Some(Value::String(f))) => {
                if f.trim().is_empty() {
                    Entry::Skip("empty filename: skipped")
                } else {
                    Entry::Write {
                        content: c.clone(),
                        filename: Some(f.trim().to_string()),
                    }
                }
            }
            _ => Entry::Skip("content and filename must be strings: skipped"),
        },
        _ => Entry::Skip("neither a string nor a mapping with content: skipped"),
    }
}

fn wrong(key: &str, what: &str, diags: &mut Vec<Diag>) {
    diags.push(Diag::error(Reason::WrongType, format!("must be {what}")).key(key));
}

/// The `rsyslog` key (and the old `rsyslog_filename`, `rsyslog_dir`) as cloud-init's
/// `load_config` reads them. `None` when absent or unusable: a value of the wrong type fails
/// the module, as cloud-init's raises.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let old = |k: &str| cfg.get(k).is_some();
    let rs = cfg.get("rsyslog");
    let (map, configs_key) = match rs {
        None => {
            for k in ["rsyslog_filename", "rsyslog_dir"] {
                if old(k) {
                    let msg = "only read with the old list form of rsyslog; ignored";
                    diags.push(Diag::warning(Reason::UnsupportedKey, msg).key(k));
                }
            }
            return None;
        }
        Some(Value::Array(items)) => {
            let msg = "a list is deprecated (cloud-init 22.2): write rsyslog: {configs: [...]}";
            diags.push(Diag::deprecated(Reason::Deprecated, msg).key("rsyslog"));
            let mut m = Map::new();
            m.insert("configs".into(), Value::Array(items.clone()));
            for (old_key, new_key) in [
                ("rsyslog_filename", "config_filename"),
                ("rsyslog_dir", "config_dir"),
            ] {
                if let Some(v) = cfg.get(old_key) {
                    let msg = format!("deprecated with the list form: use rsyslog.{new_key}");
                    diags.push(Diag::deprecated(Reason::Deprecated, msg).key(old_key));
                    m.insert(new_key.into(), v.clone());
                }
            }
            (m, "rsyslog")
        }
        Some(Value::Object(m)) => {
            for k in ["rsyslog_filename", "rsyslog_dir"] {
                if old(k) {
                    let msg =
                        "only read with the old list form of rsyslog: use rsyslog.config_dir \
                               and rsyslog.config_filename";
                    diags.push(Diag::warning(Reason::UnsupportedKey, msg).key(k));
                }
            }
            (m.clone(), "rsyslog.configs")
        }
        Some(_) => {
            wrong("rsyslog", "a mapping (configs, remotes, ...)", diags);
            return None;
        }
    };
    let before = diags.iter().filter(|d| d.is_error()).count();
    let key = |k: &str| format!("rsyslog.{k}");
    let string = |k: &str, default: &str, diags: &mut Vec<Diag>| match map.get(k) {
        None => default.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            wrong(&key(k), "a string", diags);
            String::new()
        }
    };
    let configs = match map.get("configs") {
        None => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(entry).collect(),
        Some(_) => {
            wrong(&key("configs"), "a list", diags);
            Vec::new()
        }
    };
    let config_dir = string("config_dir", "/etc/rsyslog.d", diags);
    let config_filename = string("config_filename", "20-cloud-config.conf", diags);
    let remotes = match map.get("remotes") {
        None => Vec::new(),
        Some(Value::Object(r)) => {
            let mut out = Vec::new();
            for (name, v) in r {
                match v {
                    Value::Null => out.push((name.clone(), None)),
                    Value::String(s) => out.push((name.clone(), Some(s.clone()))),
                    _ => wrong(&format!("rsyslog.remotes.{name}"), "a string", diags),
                }
            }
            out
        }
        Some(_) => {
            wrong(&key("remotes"), "a mapping of names to remotes", diags);
            Vec::new()
        }
    };
    let reload = match map.get("service_reload_command") {
        None => Reload::Auto,
        Some(Value::String(s)) if s == "auto" => Reload::Auto,
        // cloud-init runs any other string as one program name.
        Some(Value::String(s)) => Reload::Argv(vec![s.clone()]),
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => Reload::Argv(
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        ),
        Some(_) => {
            wrong(
                &key("service_reload_command"),
                "auto or a list of words",
                diags,
            );
            Reload::Auto
        }
    };
    let check_exe = string("check_exe", "rsyslogd", diags);
    let packages = match map.get("packages") {
        None => vec!["rsyslog".to_string()],
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(_) => {
            wrong(&key("packages"), "a list of package names", diags);
            Vec::new()
        }
    };
    let install = match map.get("install_rsyslog") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            wrong(&key("install_rsyslog"), "true or false", diags);
            false
        }
    };
    if !config_dir.is_empty() && !config_dir.starts_with('/') {
        let msg = "must be an absolute path";
        diags.push(Diag::error(Reason::BadValue, msg).key(key("config_dir")));
    }
    if diags.iter().filter(|d| d.is_error()).count() > before {
        return None;
    }
    Some(Settings {
        configs_key,
        configs,
        config_dir,
        config_filename,
        remotes,
        reload,
        check_exe,
        packages,
        install,
    })
}

pub const RSYSLOG: Shape = Shape::Map(&Fields {
    fields: &[
        ("config_dir", Shape::Str),
        ("config_filename", Shape::Str),
        (
            "configs",
            list(
                &Shape::OneOf(&[
                    Shape::Str,
                    Shape::Map(&Fields {
                        fields: &[("filename", Shape::Str), ("content", Shape::Str)],
                        required: &["content"],
                        open: false,
                    }),
                ]),
                0,
            ),
        ),
        ("remotes", Shape::Dict(&Shape::Any)),
        (
            "service_reload_command",
            Shape::OneOf(&[
                Shape::Lit(&[crate::config::shape::Lit::S("auto")]),
                list(&Shape::Str, 0),
            ]),
        ),
        ("install_rsyslog", Shape::Bool),
        ("check_exe", Shape::Str),
        ("packages", list(&Shape::Str, 0)),
    ],
    required: &[],
    open: false,
});
