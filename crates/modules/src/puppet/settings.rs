//! `puppet`, read once into `Settings`, and its shape for `ember schema` (after cloud-init's
//! schema). The boot and `ember schema` both read it here.

use crate::common::cfgmgmt::read::{py_str, wrong, Obj};
use crate::config::shape::{list, Fields, Lit, Shape};
use crate::error::Diag;
use crate::secret::Secret;
use serde_json::{Map, Value};

const SECTION: Shape = Shape::Dict(&Shape::Any);

const PUPPET: Shape = Shape::Map(&Fields {
    fields: &[
        ("install", Shape::Bool),
        ("version", Shape::Str),
        (
            "install_type",
            Shape::Lit(&[Lit::S("packages"), Lit::S("aio")]),
        ),
        ("collection", Shape::Str),
        ("aio_install_url", Shape::Str),
        ("cleanup", Shape::Bool),
        ("conf_file", Shape::Str),
        ("ssl_dir", Shape::Str),
        ("csr_attributes_path", Shape::Str),
        ("package_name", Shape::Str),
        ("exec", Shape::Bool),
        ("exec_args", list(&Shape::Str, 0)),
        ("start_service", Shape::Bool),
        (
            "conf",
            Shape::Map(&Fields {
                fields: &[
                    ("main", SECTION),
                    ("server", SECTION),
                    ("agent", SECTION),
                    ("user", SECTION),
                    ("ca_cert", Shape::Str),
                ],
                required: &[],
                open: false,
            }),
        ),
        (
            "csr_attributes",
            Shape::Map(&Fields {
                fields: &[
                    ("custom_attributes", SECTION),
                    ("extension_requests", SECTION),
                ],
                required: &[],
                open: false,
            }),
        ),
    ],
    required: &[],
    open: false,
});

pub const SHAPES: &[(&str, Shape)] = &[("puppet", PUPPET)];

/// puppetlabs' one-shot installer, cloud-init's default `aio_install_url`.
pub const AIO_INSTALL_URL: &str =
    "https://raw.githubusercontent.com/puppetlabs/install-puppet/main/install.sh";

#[derive(Debug)]
pub struct Settings {
    /// `install`: true by default.
    pub install: bool,
    pub version: Option<String>,
    pub collection: Option<String>,
    /// `install_type`: `packages` (default) or `aio`; another word is the run's warning.
    pub install_type: String,
    /// `cleanup`: purge puppetlabs' repository after an aio install (true by default).
    pub cleanup: bool,
    /// `exec`: run `puppet agent` once (false by default).
    pub exec: bool,
    /// `start_service`: enable and start the service (true by default).
    pub start_service: bool,
    pub aio_install_url: String,
    pub package_name: Option<String>,
    pub conf_file: Option<String>,
    pub ssl_dir: Option<String>,
    pub csr_attributes_path: Option<String>,
    /// `conf`: sections of options, and `ca_cert` (the server's CA certificate).
    pub conf: Option<Map<String, Value>>,
    /// `csr_attributes`: may hold a challenge password or a pre-shared key.
    pub csr_attributes: Option<Secret<Value>>,
    /// `exec_args`: a list, or a string split at spaces (`--test` when absent).
    pub exec_args: Option<Value>,
}

/// `None` without the key or when it is not a mapping.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let p = Obj::of(cfg.get("puppet")?, "puppet", diags)?;
    // cloud-init takes a version written as a number (`version: 7`) as its text.
    let version = match p.get("version") {
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => p.str("version", diags),
    };
    let conf = p.obj("conf", diags).map(|c| c.map.clone());
    for (name, v) in conf.iter().flatten() {
        let ok = if name == "ca_cert" {
            v.is_string()
        } else {
            v.is_object()
        };
        if !ok {
            let expected = if name == "ca_cert" {
                "a certificate (PEM text)"
            } else {
                "a mapping of options"
            };
            diags.push(wrong(&format!("puppet.conf.{name}"), expected));
        }
    }
    let exec_args = p.get("exec_args").cloned();
    if exec_args
        .as_ref()
        .is_some_and(|a| !a.is_array() && !a.is_string())
    {
        diags.push(wrong("puppet.exec_args", "a list of arguments"));
    }
    Some(Settings {
        install: p.flag("install", diags).unwrap_or(true),
        version,
        collection: p.str("collection", diags),
        install_type: p
            .str("install_type", diags)
            .unwrap_or_else(|| "packages".into()),
        cleanup: p.flag("cleanup", diags).unwrap_or(true),
        exec: p.flag("exec", diags).unwrap_or(false),
        start_service: p.flag("start_service", diags).unwrap_or(true),
        aio_install_url: p
            .str("aio_install_url", diags)
            .unwrap_or_else(|| AIO_INSTALL_URL.into()),
        package_name: p.str("package_name", diags),
        conf_file: p.str("conf_file", diags),
        ssl_dir: p.str("ssl_dir", diags),
        csr_attributes_path: p.str("csr_attributes_path", diags),
        conf,
        csr_attributes: p.get("csr_attributes").cloned().map(Secret::new),
        exec_args,
    })
}

/// `exec_args` as words: a list's items, or a string split at whitespace.
pub fn words(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Array(items) => Some(items.iter().map(py_str).collect()),
        Value::String(s) => Some(s.split_whitespace().map(str::to_string).collect()),
        _ => None,
    }
}
