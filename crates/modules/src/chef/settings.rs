//! `chef`, read once into `Settings`, and its shape for `ember schema` (after cloud-init's
//! schema, which lists fewer keys than its module reads: `exec_arguments`,
//! `delete_validation_post_exec`, `version` and `ruby_version` are honoured at boot and
//! reported by `schema`, as cloud-init does). The boot and `ember schema` both read it here.

use crate::common::cfgmgmt::read::{wrong, Obj};
use crate::config::shape::{list, Fields, Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{Map, Value};

const CHEF: Shape = Shape::Map(&Fields {
    fields: &[
        ("directories", list(&Shape::Str, 1)),
        ("validation_cert", Shape::Str),
        ("validation_key", Shape::Str),
        ("firstboot_path", Shape::Str),
        ("exec", Shape::Bool),
        ("client_key", Shape::Str),
        ("encrypted_data_bag_secret", Shape::Str),
        ("environment", Shape::Str),
        ("file_backup_path", Shape::Str),
        ("file_cache_path", Shape::Str),
        ("json_attribs", Shape::Str),
        ("log_level", Shape::Str),
        ("log_location", Shape::Str),
        ("node_name", Shape::Str),
        ("omnibus_url", Shape::Str),
        ("omnibus_url_retries", Shape::Int),
        ("omnibus_version", Shape::Str),
        ("pid_file", Shape::Str),
        ("server_url", Shape::Str),
        ("show_time", Shape::Bool),
        ("ssl_verify_mode", Shape::Str),
        ("validation_name", Shape::Str),
        ("force_install", Shape::Bool),
        ("initial_attributes", Shape::Dict(&Shape::Any)),
        (
            "install_type",
            Shape::Lit(&[Lit::S("packages"), Lit::S("gems"), Lit::S("omnibus")]),
        ),
        ("run_list", list(&Shape::Str, 0)),
        ("chef_license", Shape::Str),
    ],
    required: &[],
    open: false,
});

pub const SHAPES: &[(&str, Shape)] = &[("chef", CHEF)];

pub const VALIDATION_PEM: &str = "/etc/chef/validation.pem";
pub const FIRSTBOOT: &str = "/etc/chef/firstboot.json";

#[derive(Debug)]
pub struct Settings {
    /// The whole mapping (`validation_cert`'s text replaced): client.rb's values come from it
    /// as cloud-init takes them.
    pub raw: Map<String, Value>,
    /// `directories`; cloud-init's list when absent or empty.
    pub directories: Vec<String>,
    /// `validation_key`: where `validation_cert` is written.
    pub validation_key: String,
    /// `validation_cert`: the validator's private key (`system`: the file is already there).
    pub validation_cert: Option<Secret<String>>,
    /// `firstboot_path`; empty: no firstboot.json.
    pub firstboot_path: String,
    pub run_list: Option<Value>,
    pub initial_attributes: Option<Map<String, Value>>,
    pub force_install: bool,
    /// `exec`; by default false, but true after a gems install.
    pub exec: Option<bool>,
    /// `install_type`: `packages` by default.
    pub install_type: String,
    pub omnibus_url: Option<String>,
    pub omnibus_url_retries: Option<i64>,
    pub omnibus_version: Option<String>,
    /// `version` (gems): the chef gem's version.
    pub version: Option<String>,
    /// `ruby_version` (gems): `1.8` by default.
    pub ruby_version: String,
    /// `exec_arguments`: a list, or one string taken as one argument.
    pub exec_arguments: Option<Value>,
    pub delete_validation_post_exec: bool,
}

/// The mapping without the validation key's text: client.rb needs only to know it is there.
fn redacted(map: &Map<String, Value>) -> Map<String, Value> {
    let mut raw = map.clone();
    if let Some(Value::String(pem)) = raw.get_mut("validation_cert") {
        if !pem.is_empty() {
            *pem = "<redacted>".into();
        }
    }
    raw
}

/// `None` without the key or when it is not a mapping.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let c = Obj::of(cfg.get("chef")?, "chef", diags)?;
    if c.map.is_empty() {
        let msg = "must not be empty: give at least server_url and validation_name";
        diags.push(Diag::error(Reason::BadValue, msg).key("chef"));
    }
    let directories = match c.get("directories") {
        Some(Value::String(one)) => vec![one.clone()],
        Some(_) => c.strs("directories", diags).unwrap_or_default(),
        None => Vec::new(),
    };
    let mut seen = Vec::new();
    for d in &directories {
        if seen.contains(&d) {
            let msg = "has an item twice (cloud-init requires unique items)";
            diags.push(Diag::error(Reason::BadValue, msg).key("chef.directories"));
            break;
        }
        seen.push(d);
    }
    let run_list = c.get("run_list").cloned();
    if run_list.as_ref().is_some_and(|v| !v.is_array()) {
        diags.push(wrong("chef.run_list", "a list of strings"));
    }
    for key in [
        "client_key",
        "encrypted_data_bag_secret",
        "environment",
        "file_backup_path",
        "file_cache_path",
        "json_attribs",
        "log_level",
        "log_location",
        "node_name",
        "pid_file",
        "server_url",
        "ssl_verify_mode",
        "validation_name",
        "chef_license",
    ] {
        c.str(key, diags);
    }
    c.flag("show_time", diags);
    Some(Settings {
        directories,
        validation_key: c
            .str("validation_key", diags)
            .unwrap_or_else(|| VALIDATION_PEM.into()),
        validation_cert: c.str("validation_cert", diags).map(Secret::new),
        firstboot_path: c
            .str("firstboot_path", diags)
            .unwrap_or_else(|| FIRSTBOOT.into()),
        run_list,
        initial_attributes: c.obj("initial_attributes", diags).map(|o| o.map.clone()),
        force_install: c.flag("force_install", diags).unwrap_or(false),
        exec: c.flag("exec", diags),
        install_type: c
            .str("install_type", diags)
            .unwrap_or_else(|| "packages".into()),
        omnibus_url: c.str("omnibus_url", diags),
        omnibus_url_retries: c.int("omnibus_url_retries", diags),
        omnibus_version: c.str("omnibus_version", diags),
        version: c.str("version", diags),
        ruby_version: c.str("ruby_version", diags).unwrap_or_else(|| "1.8".into()),
        exec_arguments: c.get("exec_arguments").cloned(),
        delete_validation_post_exec: c
            .flag("delete_validation_post_exec", diags)
            .unwrap_or(false),
        raw: redacted(c.map),
    })
}
