//! `salt_minion`, read once into `Settings`, and its shape for `ember schema` (after
//! cloud-init's schema). The boot and `ember schema` both read it here.

use crate::common::cfgmgmt::read::Obj;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{Map, Value};

const SALT: Shape = Shape::Map(&Fields {
    fields: &[
        ("pkg_name", Shape::Str),
        ("service_name", Shape::Str),
        ("config_dir", Shape::Str),
        ("conf", Shape::Dict(&Shape::Any)),
        ("grains", Shape::Dict(&Shape::Any)),
        ("public_key", Shape::Str),
        ("private_key", Shape::Str),
        ("pki_dir", Shape::Str),
    ],
    required: &[],
    open: false,
});

pub const SHAPES: &[(&str, Shape)] = &[("salt_minion", SALT)];

#[derive(Debug)]
pub struct Settings {
    /// `pkg_name`, default `salt-minion`.
    pub pkg_name: String,
    /// `service_name`, default `salt-minion`.
    pub service_name: String,
    /// `config_dir`, default `/etc/salt`.
    pub config_dir: String,
    /// `conf`: written to `<config_dir>/minion`.
    pub conf: Option<Map<String, Value>>,
    /// `grains`: written to `<config_dir>/grains`.
    pub grains: Option<Map<String, Value>>,
    /// `public_key` and `private_key`: written only when both are given.
    pub public_key: Option<String>,
    pub private_key: Option<Secret<String>>,
    /// `pki_dir`; by default `<config_dir>/pki/minion` where that directory exists, else
    /// `<config_dir>/pki`.
    pub pki_dir: Option<String>,
}

/// `None` without the key or when it is not a mapping.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let s = Obj::of(cfg.get("salt_minion")?, "salt_minion", diags)?;
    let word = |f: &str, default: &str, diags: &mut Vec<Diag>| {
        s.str(f, diags).unwrap_or_else(|| default.to_string())
    };
    let out = Settings {
        pkg_name: word("pkg_name", "salt-minion", diags),
        service_name: word("service_name", "salt-minion", diags),
        config_dir: word("config_dir", "/etc/salt", diags),
        conf: s.obj("conf", diags).map(|o| o.map.clone()),
        grains: s.obj("grains", diags).map(|o| o.map.clone()),
        public_key: s.str("public_key", diags),
        private_key: s.str("private_key", diags).map(Secret::new),
        pki_dir: s.str("pki_dir", diags),
    };
    if out.public_key.is_some() != out.private_key.is_some() {
        // cloud-init writes the key pair only whole, and says nothing.
        let (given, other) = if out.public_key.is_some() {
            ("public_key", "private_key")
        } else {
            ("private_key", "public_key")
        };
        let msg = format!("ignored without {other}: the key pair is written only whole");
        diags.push(Diag::warning(Reason::UnsupportedKey, msg).key(s.path(given)));
    }
    Some(out)
}
