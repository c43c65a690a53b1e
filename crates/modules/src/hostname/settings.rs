//! The keys the three hostname modules own, each read here: `hostname`, `fqdn`,
//! `preserve_hostname`, `prefer_fqdn_over_hostname`, `create_hostname_file` and
//! `manage_etc_hosts`. `read` reads them all (`ember schema`); at boot each module reads only
//! its own, with `read_hostname` or `read_etc_hosts`, so a mistake fails the modules that use
//! the key and no other, and a module switched off reports nothing, as before.

use super::invalid_reason;
use crate::config::reader::Reader;
use crate::config::shape::{Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

/// `hostname` and `fqdn` as configured; the names applied are decided from these, the
/// meta-data and the target's own files (`names::decide`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Configured {
    pub hostname: Option<String>,
    pub fqdn: Option<String>,
}

/// `manage_etc_hosts`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Manage {
    /// false or absent: /etc/hosts is left alone.
    #[default]
    Off,
    /// true (or the deprecated `template`): /etc/hosts rendered from the template.
    Render,
    /// Only the 127.0.1.1 line naming this machine is kept up to date.
    Localhost,
}

/// Every key of the three modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `None` when `hostname` or `fqdn` has the wrong type: no name is applied then.
    pub names: Option<Configured>,
    pub preserve_hostname: bool,
    /// `None`: the distribution's default.
    pub prefer_fqdn_over_hostname: Option<bool>,
    pub create_hostname_file: bool,
    pub manage_etc_hosts: Manage,
}

/// What `set_hostname` and `update_hostname` apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostnameSettings {
    pub names: Configured,
    /// `None`: the distribution's default.
    pub prefer_fqdn_over_hostname: Option<bool>,
    /// false: /etc/hostname is not created when the target has none.
    pub create_hostname_file: bool,
}

/// What `update_etc_hosts` applies; `manage` is never `Off`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcHostsSettings {
    pub manage: Manage,
    pub names: Configured,
}

/// The shapes of the hostname modules' keys and their reader, for `ember schema` (the three
/// modules share them; `set_hostname`'s row hands them out).
pub static READER: Reader = Reader {
    shapes: &[
        ("hostname", Shape::Str),
        ("fqdn", Shape::Str),
        ("preserve_hostname", Shape::Bool),
        ("prefer_fqdn_over_hostname", Shape::Bool),
        ("create_hostname_file", Shape::Bool),
        ("manage_etc_hosts", MANAGE_ETC_HOSTS),
    ],
    read: |cfg, d| {
        read(cfg, d);
        for key in ["hostname", "fqdn"] {
            let why = cfg
                .get(key)
                .and_then(Value::as_str)
                .and_then(invalid_reason);
            if let Some(why) = why {
                let msg = format!("not a valid host name: {why}");
                d.push(Diag::error(Reason::HostnameInvalid, msg).key(key));
            }
        }
    },
};

/// cloud-init's schema: true, false or `localhost` (`template` is its deprecated true).
const MANAGE_ETC_HOSTS: Shape = Shape::OneOf(&[
    Shape::Lit(&[Lit::B(true), Lit::B(false), Lit::S("localhost")]),
    Shape::Deprecated(&Shape::Lit(&[Lit::S("template")]), "use true"),
]);

/// Every key, each problem once with its key path.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Settings {
    Settings {
        preserve_hostname: preserve_hostname(cfg, diags),
        prefer_fqdn_over_hostname: opt_bool(cfg, "prefer_fqdn_over_hostname", diags),
        names: configured(cfg, diags),
        create_hostname_file: create_hostname_file(cfg, diags),
        manage_etc_hosts: manage_etc_hosts(cfg, diags),
    }
}

/// `set_hostname`'s and `update_hostname`'s keys. `None` when there is nothing to apply:
/// `preserve_hostname: true` (cloud-init leaves /etc/hostname alone; the other keys are not
/// read) or a name of the wrong type.
pub fn read_hostname(cfg: &Value, diags: &mut Vec<Diag>) -> Option<HostnameSettings> {
    if preserve_hostname(cfg, diags) {
        return None;
    }
    let prefer_fqdn_over_hostname = opt_bool(cfg, "prefer_fqdn_over_hostname", diags);
    let names = configured(cfg, diags)?;
    Some(HostnameSettings {
        names,
        prefer_fqdn_over_hostname,
        create_hostname_file: create_hostname_file(cfg, diags),
    })
}

/// `update_etc_hosts`'s keys. `None` when /etc/hosts is left alone: `manage_etc_hosts` off
/// (the names are not read) or a name of the wrong type.
pub fn read_etc_hosts(cfg: &Value, diags: &mut Vec<Diag>) -> Option<EtcHostsSettings> {
    let manage = manage_etc_hosts(cfg, diags);
    if manage == Manage::Off {
        return None;
    }
    let names = configured(cfg, diags)?;
    Some(EtcHostsSettings { manage, names })
}

fn preserve_hostname(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    opt_bool(cfg, "preserve_hostname", diags).unwrap_or(false)
}

fn create_hostname_file(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    opt_bool(cfg, "create_hostname_file", diags).unwrap_or(true)
}

/// Both names are read (and both type errors reported) before giving up.
fn configured(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Configured> {
    let hostname = opt_str(cfg, "hostname", diags);
    let fqdn = opt_str(cfg, "fqdn", diags);
    Some(Configured {
        hostname: hostname?,
        fqdn: fqdn?,
    })
}

fn manage_etc_hosts(cfg: &Value, diags: &mut Vec<Diag>) -> Manage {
    const KEY: &str = "manage_etc_hosts";
    // cloud-init leaves /etc/hosts alone on any other value (its schema warns).
    let bad = |diags: &mut Vec<Diag>| {
        let msg = "expected true, false or \"localhost\": /etc/hosts not managed";
        diags.push(Diag::warning(Reason::WrongType, msg).key(KEY));
        Manage::Off
    };
    match cfg.get(KEY) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Manage::Off,
        Some(Value::Bool(true)) => Manage::Render,
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Manage::Render,
            "false" | "no" | "off" | "0" => Manage::Off,
            "localhost" => Manage::Localhost,
            "template" => {
                diags.push(
                    Diag::deprecated(
                        Reason::Deprecated,
                        "manage_etc_hosts: template is deprecated (cloud-init 22.2); use true",
                    )
                    .key(KEY),
                );
                Manage::Render
            }
            _ => bad(diags),
        },
        Some(_) => bad(diags),
    }
}

fn wrong_type(key: &str, want: &str) -> Diag {
    Diag::error(Reason::WrongType, format!("expected {want}")).key(key)
}

/// A boolean setting as cloud-init's `get_cfg_option_bool` reads it (YAML booleans, and the
/// strings true/yes/on/1 and false/no/off/0). Anything else is false there, which its schema
/// only warns about: a warning here, and false.
fn opt_bool(cfg: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<bool> {
    let word = match cfg.get(key)? {
        Value::Null => return None,
        Value::Bool(b) => return Some(*b),
        Value::String(s) => s.trim().to_ascii_lowercase(),
        Value::Number(n) => n.to_string(), // Python's 1 == True
        _ => String::new(),
    };
    match word.as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => {
            let msg = "expected a boolean: taken as false";
            diags.push(Diag::warning(Reason::WrongType, msg).key(key));
            Some(false)
        }
    }
}

/// A string setting: `Some(None)` when absent, `None` after recording the type error.
fn opt_str(cfg: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<Option<String>> {
    match cfg.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => {
            diags.push(wrong_type(key, "a string"));
            None
        }
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
