//! `mcollective`: installs the `mcollective` package, merges `conf` into
//! /etc/mcollective/server.cfg as cloud-init's ConfigObj does (the old file kept as
//! `server.cfg.old`), writes `public-cert` to /etc/mcollective/ssl/server-public.pem and
//! `private-cert` to server-private.pem (0600), each then named in server.cfg with
//! `securityprovider = ssl`, and runs `service mcollective restart`. Other keys, `ca-cert`
//! among them, go into server.cfg as they are. server.cfg is written 0640 (cloud-init: 0644)
//! since it often holds a pre-shared key. cloud-init 26 still ships this module without a
//! deprecation (its removal is only proposed), so ember logs none.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#mcollective>

mod configobj;

use super::{Guard, ModCtx, RunnerModule};
use crate::common::cfgmgmt::{self, read::py_str, read::Obj, Pkg};
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use configobj::{ConfigObj, Val};
use serde_json::{Map, Value};

pub struct Mcollective;

const SERVER_CFG: &str = "/etc/mcollective/server.cfg";
const PUBCERT: &str = "/etc/mcollective/ssl/server-public.pem";
const PRICERT: &str = "/etc/mcollective/ssl/server-private.pem";

/// cloud-init's schema: `conf` values are booleans, integers or strings.
const MCOLLECTIVE: Shape = Shape::Map(&Fields {
    fields: &[(
        "conf",
        Shape::Dict(&Shape::OneOf(&[Shape::Bool, Shape::Int, Shape::Str])),
    )],
    required: &[],
    open: false,
});

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("mcollective", MCOLLECTIVE)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// `mcollective`: `Some(conf)` (an empty mapping without `conf`), `None` without the key or
/// when it is not a mapping.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Map<String, Value>> {
    let m = Obj::of(cfg.get("mcollective")?, "mcollective", diags)?;
    let conf = m
        .obj("conf", diags)
        .map(|c| c.map.clone())
        .unwrap_or_default();
    for cert in ["public-cert", "private-cert"] {
        if conf.get(cert).is_some_and(|v| !v.is_string()) {
            let msg = "expected the certificate as a string";
            diags.push(Diag::error(Reason::WrongType, msg).key(format!("mcollective.conf.{cert}")));
        }
    }
    Some(conf)
}

impl RunnerModule for Mcollective {
    fn name(&self) -> &'static str {
        "mcollective"
    }
    /// It installs and restarts a service: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(conf) = read(cfg, diags) else {
            return;
        };
        let has_conf = cfg.get("mcollective").and_then(|m| m.get("conf")).is_some();
        if let Err(d) = apply(ctx, has_conf.then_some(&conf)) {
            diags.push(d);
        }
    }
}

fn apply(ctx: &ModCtx, conf: Option<&Map<String, Value>>) -> Result<(), Diag> {
    cfgmgmt::install(ctx, &[Pkg::new("mcollective")]).map_err(|d| d.key("mcollective"))?;
    if let Some(conf) = conf {
        configure(ctx, conf)?;
    }
    let outcome = ctx.exec.run(&["service", "mcollective", "restart"], &[]);
    if !outcome.ok() {
        return Err(cfgmgmt::failed("service", &outcome).key("mcollective"));
    }
    Ok(())
}

/// cloud-init's `configure`: the certificates into their files, everything into server.cfg.
fn configure(ctx: &ModCtx, conf: &Map<String, Value>) -> Result<(), Diag> {
    let old = ctx
        .root
        .read_file(SERVER_CFG, 4 << 20)
        .map_err(|e| Diag::from(e).key("mcollective.conf"))?;
    let text = old
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let mut server = ConfigObj::parse(&text);
    for (name, v) in conf {
        let key = format!("mcollective.conf.{name}");
        let cert = match name.as_str() {
            "public-cert" => Some((PUBCERT, 0o644, "plugin.ssl_server_public")),
            "private-cert" => Some((PRICERT, 0o600, "plugin.ssl_server_private")),
            _ => None,
        };
        match (cert, v) {
            (Some((path, mode, setting)), v) => {
                let pem = v.as_str().unwrap_or_default();
                cfgmgmt::write(ctx, path, pem.as_bytes(), mode, &key)?;
                server.set(setting, Val::Str(path.into()));
                server.set("securityprovider", Val::Str("ssl".into()));
            }
            (None, Value::Object(items)) => {
                for (o, item) in items {
                    server.set_in(name, o, val(item));
                }
            }
            (None, other) => server.set(name, Val::Str(py_str(other))),
        }
    }
    let out = server.write().map_err(|_| {
        let msg = "a value ConfigObj cannot quote (both quote kinds, or a line break in a key)";
        Diag::error(Reason::BadValue, msg).key("mcollective.conf")
    })?;
    if let Some(old) = old {
        let path = format!("{SERVER_CFG}.old");
        cfgmgmt::write(ctx, &path, &old, 0o640, "mcollective.conf")?;
    }
    cfgmgmt::write(ctx, SERVER_CFG, out.as_bytes(), 0o640, "mcollective.conf")
}

/// A section item as ConfigObj stores what cloud-init gives it: lists stay lists.
fn val(v: &Value) -> Val {
    match v {
        Value::Array(items) => Val::List(items.iter().map(py_str).collect()),
        other => Val::Str(py_str(other)),
    }
}
