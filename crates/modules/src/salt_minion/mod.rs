//! `salt_minion`: installs `pkg_name` (salt-minion), writes `conf` to `<config_dir>/minion`
//! and `grains` to `<config_dir>/grains` as cloud-init's `safeyaml.dumps` writes YAML, the key
//! pair to `<pki_dir>/minion.pub` and `minion.pem` (0600; cloud-init leaves it 0644), then
//! enables and restarts the service, or, for a masterless minion (`conf.file_client: local`),
//! disables and stops it and runs `salt-call --local state.apply`. FreeBSD's names are not
//! used (ember runs on Linux).
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#salt-minion>

mod settings;

use super::{Guard, ModCtx, RunnerModule};
use crate::common::cfgmgmt::{self, manage_service, Action, Pkg};
use crate::config::reader::Reader;
use crate::error::Diag;
use crate::root::FileSpec;
use crate::yaml_emit as yaml;
use serde_json::Value;
pub use settings::{read, Settings};

pub struct SaltMinion;

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: settings::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for SaltMinion {
    fn name(&self) -> &'static str {
        "salt_minion"
    }
    /// It installs and starts software: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(s) = read(cfg, diags) else {
            return;
        };
        if let Err(d) = apply(ctx, &s) {
            diags.push(d);
        }
    }
}

fn apply(ctx: &ModCtx, s: &Settings) -> Result<(), Diag> {
    let key = "salt_minion";
    cfgmgmt::install(ctx, &[Pkg::new(&s.pkg_name)]).map_err(|d| d.key(key))?;
    let dir = s.config_dir.trim_end_matches('/');
    let dir = if dir.is_empty() { "/" } else { dir };
    cfgmgmt::mkdir(ctx, dir, FileSpec::DIR, "salt_minion.config_dir")?;
    for (name, data) in [("minion", &s.conf), ("grains", &s.grains)] {
        if let Some(map) = data {
            let text = yaml::dump(&Value::Object(map.clone()), yaml::SAFE_DUMPS);
            cfgmgmt::write(ctx, &format!("{dir}/{name}"), text.as_bytes(), 0o644, key)?;
        }
    }
    if let (Some(public), Some(private)) = (&s.public_key, &s.private_key) {
        let pki = match &s.pki_dir {
            Some(p) => p.clone(),
            None if cfgmgmt::is_dir(ctx, &format!("{dir}/pki/minion")) => {
                format!("{dir}/pki/minion")
            }
            None => format!("{dir}/pki"),
        };
        let k = "salt_minion.private_key";
        cfgmgmt::mkdir(ctx, &pki, FileSpec::mode(0o700), k)?;
        cfgmgmt::write(
            ctx,
            &format!("{pki}/minion.pub"),
            public.as_bytes(),
            0o644,
            k,
        )?;
        let pem = private.expose().as_bytes();
        cfgmgmt::write(ctx, &format!("{pki}/minion.pem"), pem, 0o600, k)?;
    }
    let masterless = s
        .conf
        .as_ref()
        .and_then(|c| c.get("file_client"))
        .is_some_and(|v| v == "local");
    let actions = if masterless {
        [Action::Disable, Action::Stop]
    } else {
        [Action::Enable, Action::Restart]
    };
    for action in actions {
        manage_service(ctx, action, &s.service_name).map_err(|d| d.key(key))?;
    }
    if masterless {
        // A masterless minion applies its states itself rather than run as a daemon.
        let outcome = ctx.exec.run(&["salt-call", "--local", "state.apply"], &[]);
        if !outcome.ok() {
            return Err(cfgmgmt::failed("salt-call", &outcome).key(key));
        }
    }
    Ok(())
}
