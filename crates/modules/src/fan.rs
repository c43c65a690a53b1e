//! `fan` (`config`, `config_path`, default /etc/network/fan): Ubuntu's fan networking as
//! cloud-init sets it up: the config written, the `ubuntu-fan` package installed when
//! `fanctl` is missing, then the `ubuntu-fan` service stopped, the config written again with
//! a final newline, started (a failure to stop or start is a warning) and enabled (a failure
//! is an error). Without `config` it does nothing.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#fan>

use super::{ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::system_tools::{self as tools, Action, Distro};
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct Fan;

const SERVICE: &str = "ubuntu-fan";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub config: String,
    pub path: String,
}

/// The `fan` mapping; `None` when it gives no config or is unusable.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let map = match cfg.get("fan")? {
        Value::Object(m) => m,
        Value::Null => return None,
        _ => {
            let msg = "must be a mapping with config and config_path";
            diags.push(Diag::error(Reason::WrongType, msg).key("fan"));
            return None;
        }
    };
    let text = |k: &str, diags: &mut Vec<Diag>| match map.get(k) {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => {
            diags.push(Diag::error(Reason::WrongType, "must be a string").key(format!("fan.{k}")));
            None
        }
    };
    let config = text("config", diags)?;
    let path = text("config_path", diags)?.unwrap_or_else(|| "/etc/network/fan".into());
    if !path.starts_with('/') {
        let msg = "must be an absolute path";
        diags.push(Diag::error(Reason::BadValue, msg).key("fan.config_path"));
        return None;
    }
    let config = config.filter(|c| !c.is_empty())?;
    Some(Settings { config, path })
}

const FAN: Shape = Shape::Map(&Fields {
    fields: &[("config", Shape::Str), ("config_path", Shape::Str)],
    required: &["config"],
    open: false,
});

/// Its key's shape (cloud-init's schema) and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("fan", FAN)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

fn write(ctx: &ModCtx, path: &str, text: &str) -> Result<(), Diag> {
    ctx.root
        .write_file(path, text.as_bytes(), &FileSpec::mode(0o644))
        .map_err(|e| Diag::error(e.code(), e.to_string()).key("fan.config_path"))
}

impl RunnerModule for Fan {
    fn name(&self) -> &'static str {
        "fan"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        if let Err(d) = write(ctx, &s.path, &s.config) {
            return diags.push(d);
        }
        if which(ctx.root, "fanctl").is_none()
            && !tools::install(ctx, "fan", &[SERVICE], "fan", diags)
        {
            return;
        }
        let distro = Distro::of(ctx, cfg);
        let service = |action| tools::service(ctx, "fan", distro, action, SERVICE);
        let warn = |what: &str, outcome: crate::common::exec::Outcome| {
            let msg = format!("{what} {SERVICE} {}", outcome.describe());
            Diag::warning(Reason::CommandFailed, msg).key("fan")
        };
        let stopped = service(Action::Stop);
        if !stopped.ok() {
            diags.push(warn("stopping", stopped));
        }
        let mut text = s.config.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if let Err(d) = write(ctx, &s.path, &text) {
            return diags.push(d);
        }
        let started = service(Action::Start);
        if !started.ok() {
            diags.push(warn("starting", started));
        }
        let enabled = service(Action::Enable);
        if !enabled.ok() {
            let msg = format!("enabling {SERVICE} {}", enabled.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key("fan"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_config_and_path() {
        let mut d = Vec::new();
        let s = read(
            &json!({"fan": {"config": "10.0.0.0/8 eth0/16 dhcp"}}),
            &mut d,
        )
        .unwrap();
        assert_eq!(s.path, "/etc/network/fan");
        assert_eq!(read(&json!({"fan": {}}), &mut d), None);
        assert_eq!(read(&json!({"fan": null}), &mut d), None);
        assert!(d.is_empty());
        assert_eq!(read(&json!({"fan": {"config": 5}}), &mut d), None);
        assert_eq!(
            read(
                &json!({"fan": {"config": "x", "config_path": "fan"}}),
                &mut d
            ),
            None
        );
        let keys: Vec<_> = d.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(keys, ["fan.config", "fan.config_path"]);
    }
}
