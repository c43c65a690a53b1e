//! `ubuntu_drivers`: with `drivers.nvidia.license-accepted` true, installs the NVIDIA driver
//! (`nvidia`, or `nvidia:VERSION`) with `ubuntu-drivers install --gpgpu`, installing
//! ubuntu-drivers-common first when the tool is missing. Before that it answers debconf's
//! `linux/nvidia/latelink` with true, so linux-restricted-modules links the modules: cloud-init
//! loads its own template through python3-debconf; ember sets the same answer with
//! `debconf-set-selections` from a 0600 file, and like cloud-init without python3-debconf,
//! skips the module with a warning when the target lacks that tool.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#ubuntu-drivers>

use super::{Guard, ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::pyvalue::{py_str, translate_bool, truthy};
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct UbuntuDrivers;

const SELECTIONS: &str = "/var/lib/ember/nvidia.debconf";
/// The answer cloud-init's template gives (owner cloud-init, default true).
const LATELINK: &str = "cloud-init linux/nvidia/latelink boolean true\n";

/// `drivers`: the driver argument to install (`nvidia`, `nvidia:470`), or None when the
/// licence is not accepted or the value is one cloud-init fails on (with its diagnostic).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<String> {
    let drivers = cfg.get("drivers")?;
    let Some(drivers) = drivers.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("drivers"));
        return None;
    };
    let nvidia = drivers.get("nvidia").and_then(Value::as_object);
    if !translate_bool(nvidia.and_then(|n| n.get("license-accepted"))) {
        return None;
    }
    match nvidia.and_then(|n| n.get("version")).filter(|v| truthy(v)) {
        Some(v) => Some(format!("nvidia:{}", py_str(v))),
        None => Some("nvidia".into()),
    }
}

const NVIDIA: Fields = Fields {
    fields: &[("license-accepted", Shape::Bool), ("version", Shape::Str)],
    required: &["license-accepted"],
    open: false,
};
const DRIVERS: Fields = Fields {
    fields: &[("nvidia", Shape::Map(&NVIDIA))],
    required: &[],
    open: false,
};
const SHAPES: &[(&str, Shape)] = &[("drivers", Shape::Map(&DRIVERS))];

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for UbuntuDrivers {
    fn name(&self) -> &'static str {
        "ubuntu_drivers"
    }
    /// It installs packages: an interrupted run is reported, not repeated.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        if cfg.get("drivers").is_none() {
            return;
        }
        if which(ctx.root, "debconf-set-selections").is_none() {
            let msg = "debconf-set-selections not in the target (cloud-init needs \
                       python3-debconf); module skipped";
            diags.push(Diag::warning(Reason::ToolMissing, msg).key("drivers"));
            return;
        }
        let Some(driver) = read(cfg, diags) else {
            return;
        };
        let key = "drivers.nvidia";
        if which(ctx.root, "ubuntu-drivers").is_none() {
            let pkgs = ["ubuntu-drivers-common".to_string()];
            if let Err(why) = super::packages::install(ctx, &pkgs) {
                let msg = format!("ubuntu-drivers-common not installed: {why}");
                diags.push(Diag::error(Reason::PackageCommandFailed, msg).key(key));
                return;
            }
        }
        let spec = FileSpec::mode(0o600);
        if let Err(e) = ctx.root.write_file(SELECTIONS, LATELINK.as_bytes(), &spec) {
            diags.push(Diag::error(e.code(), e.to_string()).key(key));
            return;
        }
        let outcome = ctx.exec.run(&["debconf-set-selections", SELECTIONS], &[]);
        let _ = ctx.root.remove_file(SELECTIONS);
        if !outcome.ok() {
            let msg = format!("debconf-set-selections {}", outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
            return;
        }
        let argv = ["ubuntu-drivers", "install", "--gpgpu", driver.as_str()];
        ctx.exec
            .say(&format!("ubuntu_drivers: running {}", argv.join(" ")));
        let outcome = ctx.exec.run(&argv, &[]);
        if !outcome.ok() {
            let msg = format!("ubuntu-drivers install {}", outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key(key));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn driver_argument_as_cloud_init_builds_it() {
        let mut d = Vec::new();
        let r = |v: Value, d: &mut Vec<Diag>| read(&json!({ "drivers": v }), d);
        assert_eq!(
            r(json!({"nvidia": {"license-accepted": true}}), &mut d).as_deref(),
            Some("nvidia")
        );
        let v = json!({"nvidia": {"license-accepted": "yes", "version": "470"}});
        assert_eq!(r(v, &mut d).as_deref(), Some("nvidia:470"));
        let v = json!({"nvidia": {"license-accepted": true, "version": 535}});
        assert_eq!(r(v, &mut d).as_deref(), Some("nvidia:535"));
        for no in [
            json!({}),
            json!({"nvidia": {"license-accepted": "nah"}}),
            json!({"x": 1}),
        ] {
            assert_eq!(r(no, &mut d), None);
        }
        assert!(d.is_empty());
        assert_eq!(r(json!("nvidia"), &mut d), None);
        assert_eq!(d[0].code, "wrong-type");
    }
}
