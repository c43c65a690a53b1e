//! `ansible`, read once into `Settings`. The boot and `ember schema` both read it here. What
//! cloud-init's module checks only when it runs (`install_method` and `package_name` given,
//! `pull.url`) is the run's to report, as cloud-init's schema does not require them.

use crate::common::cfgmgmt::read::{py_str, wrong, Obj};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// `distro` or `pip` (another word is the reader's error, and nothing runs).
    pub install_method: Option<String>,
    pub package_name: Option<String>,
    pub run_user: Option<String>,
    /// `ansible_config`: the config file ansible is pointed at.
    pub ansible_config: Option<String>,
    /// `galaxy.actions`: commands run as given (`None` without `galaxy`).
    pub galaxy: Option<Vec<Vec<String>>>,
    /// `pull`: one mapping or a list, each one `ansible-pull` run (or one per playbook).
    pub pulls: Vec<Pull>,
    /// `setup_controller`, when given.
    pub controller: Option<Controller>,
}

/// One `pull` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pull {
    /// Its key path (`ansible.pull` or `ansible.pull.1`).
    pub key: String,
    pub url: Option<String>,
    /// `playbook_names`, or `playbook_name` split at spaces (cloud-init 25.2 reads it as a
    /// space-separated list).
    pub playbooks: Vec<String>,
    /// Every key but the playbooks, in the mapping's order, as `--key-with-dashes=value`
    /// words (`--key` alone for true; false left out): cloud-init's `filter_args`.
    pub flags: Vec<String>,
    pub diff: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Controller {
    pub key: String,
    /// `(source, path)` of each repository to clone.
    pub repositories: Vec<(String, String)>,
    pub run_ansible: Vec<RunAnsible>,
}

/// One `setup_controller.run_ansible` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunAnsible {
    pub key: String,
    pub playbook_dir: Option<String>,
    pub playbook_name: Option<String>,
    /// The other keys as `--key=value` (cloud-init writes `True` for true here).
    pub flags: Vec<String>,
}

/// Python's truth of a config value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// `None` without the key or when it is not a mapping.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let v = cfg.get("ansible")?;
    let a = Obj::of(v, "ansible", diags)?;
    let install_method = a.str("install_method", diags);
    if install_method
        .as_deref()
        .is_some_and(|m| m != "distro" && m != "pip")
    {
        let msg = "expected one of 'distro', 'pip'";
        diags.push(Diag::error(Reason::BadValue, msg).key(a.path("install_method")));
    }
    let galaxy = a.obj("galaxy", diags).map(|g| {
        let Some(actions) = g.get("actions") else {
            diags.push(Diag::error(Reason::MissingKey, "needs the key actions").key(&g.key));
            return Vec::new();
        };
        let key = g.path("actions");
        let Some(items) = actions.as_array() else {
            diags.push(wrong(&key, "a list of commands"));
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, c)| command(c, &format!("{key}.{i}"), diags))
            .collect()
    });
    Some(Settings {
        install_method,
        package_name: a.str("package_name", diags),
        run_user: a.str("run_user", diags),
        ansible_config: a.str("ansible_config", diags),
        galaxy,
        pulls: pulls(a.get("pull"), diags),
        controller: a
            .obj("setup_controller", diags)
            .map(|c| controller(&c, diags)),
    })
}

/// A command as a list of strings.
fn command(v: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    let words: Option<Vec<String>> = v
        .as_array()
        .and_then(|a| a.iter().map(|w| w.as_str().map(str::to_string)).collect());
    if words.is_none() {
        diags.push(wrong(key, "a command as a list of strings"));
    }
    words
}

fn pulls(v: Option<&Value>, diags: &mut Vec<Diag>) -> Vec<Pull> {
    match v {
        None => Vec::new(),
        Some(one @ Value::Object(_)) => pull(one, "ansible.pull", diags).into_iter().collect(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, p)| pull(p, &format!("ansible.pull.{i}"), diags))
            .collect(),
        Some(_) => {
            diags.push(wrong("ansible.pull", "a mapping or a list of mappings"));
            Vec::new()
        }
    }
}

const PULL_BOOLS: &[&str] = &["accept_host_key", "clean", "full", "diff", "verify_commit"];

fn pull(v: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<Pull> {
    let p = Obj::of(v, key, diags)?;
    let mut out = Pull {
        key: key.to_string(),
        url: p.get("url").and_then(Value::as_str).map(str::to_string),
        ..Pull::default()
    };
    if let Some(name) = p.str("playbook_name", diags) {
        out.playbooks
            .extend(name.split_whitespace().map(str::to_string));
    }
    if let Some(names) = p.strs("playbook_names", diags) {
        out.playbooks.extend(names);
    }
    if out.playbooks.is_empty() {
        let msg = "needs playbook_name or playbook_names";
        diags.push(Diag::error(Reason::MissingKey, msg).key(key));
    }
    for (k, val) in p.map {
        if k == "playbook_name" || k == "playbook_names" || val.is_null() {
            continue;
        }
        let boolean = PULL_BOOLS.contains(&k.as_str());
        let fits = if boolean {
            val.is_boolean()
        } else {
            val.is_string()
        };
        if !fits {
            let expected = if boolean { "true or false" } else { "a string" };
            diags.push(wrong(&p.path(k), expected));
        }
        if k == "diff" {
            out.diff = truthy(val);
        }
        // cloud-init's filter_args: false is left out, true is the bare flag.
        let flag = format!("--{}", k.replace('_', "-"));
        match val {
            Value::Bool(false) => {}
            Value::Bool(true) => out.flags.push(flag),
            other => out.flags.push(format!("{flag}={}", py_str(other))),
        }
    }
    Some(out)
}

fn controller(c: &Obj, diags: &mut Vec<Diag>) -> Controller {
    let mut out = Controller {
        key: c.key.clone(),
        ..Controller::default()
    };
    if let Some(repos) = c.get("repositories") {
        let key = c.path("repositories");
        match repos.as_array() {
            None => diags.push(wrong(&key, "a list of mappings")),
            Some(items) => {
                for (i, r) in items.iter().enumerate() {
                    let Some(r) = Obj::of(r, &format!("{key}.{i}"), diags) else {
                        continue;
                    };
                    match (r.str("source", diags), r.str("path", diags)) {
                        (Some(s), Some(p)) => out.repositories.push((s, p)),
                        _ => {
                            let msg = "needs the keys source and path";
                            diags.push(Diag::error(Reason::MissingKey, msg).key(&r.key));
                        }
                    }
                }
            }
        }
    }
    if let Some(runs) = c.get("run_ansible") {
        let key = c.path("run_ansible");
        match runs.as_array() {
            None => diags.push(wrong(&key, "a list of mappings")),
            Some(items) => {
                for (i, r) in items.iter().enumerate() {
                    if let Some(r) = Obj::of(r, &format!("{key}.{i}"), diags) {
                        out.run_ansible.push(run_ansible(&r, diags));
                    }
                }
            }
        }
    }
    out
}

/// The `number` keys of a `run_ansible` entry (at least 0).
const NUMBERS: &[&str] = &["timeout", "background", "poll", "forks"];

fn run_ansible(r: &Obj, diags: &mut Vec<Diag>) -> RunAnsible {
    let mut out = RunAnsible {
        key: r.key.clone(),
        playbook_dir: r.str("playbook_dir", diags),
        playbook_name: r.str("playbook_name", diags),
        flags: Vec::new(),
    };
    for (k, val) in r.map {
        if k == "playbook_dir" || k == "playbook_name" || *val == Value::Bool(false) {
            continue;
        }
        if NUMBERS.contains(&k.as_str()) && !val.as_f64().is_some_and(|n| n >= 0.0) {
            diags.push(wrong(&r.path(k), "a number, at least 0"));
        }
        out.flags
            .push(format!("--{}={}", k.replace('_', "-"), py_str(val)));
    }
    out
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
