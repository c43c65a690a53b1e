//! `install_hotplug` (`updates.network.when: [hotplug]`): cloud-init installs a udev rule
//! (/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules) whose hook hands network add and
//! remove events to its `hotplug-hook` daemon, which fetches the metadata again and applies
//! the new network config. ember has no such daemon: when hotplug is asked for (the key, or
//! the `hotplug.enabled` file `cloud-init devel hotplug-hook enable` writes) it installs no
//! rule and says so with a warning naming the key. What it does as cloud-init does: when
//! hotplug is not asked for, a rule left by an earlier instance is removed and udev told to
//! reload its rules. It runs without keys, as in cloud-init.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#install-hotplug>

use super::distro::which;
use super::system_tools as tools;
use super::{ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

pub struct InstallHotplug;

pub const RULES: &str = "/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules";
/// Written by `cloud-init devel hotplug-hook enable`: `{"scopes": ["network"]}`.
const ENABLED_FILE: &str = "/var/lib/cloud/hotplug.enabled";

/// Whether `updates.network.when` lists `hotplug`.
pub fn read(cfg: &Value, _diags: &mut Vec<Diag>) -> bool {
    cfg.pointer("/updates/network/when")
        .and_then(Value::as_array)
        .is_some_and(|w| w.iter().any(|e| e == "hotplug"))
}

const WHEN: Shape = list(
    &Shape::Lit(&[
        Lit::S("boot-new-instance"),
        Lit::S("boot-legacy"),
        Lit::S("boot"),
        Lit::S("hotplug"),
    ]),
    0,
);

const UPDATES: Shape = Shape::Map(&Fields {
    fields: &[(
        "network",
        Shape::Map(&Fields {
            fields: &[("when", WHEN)],
            required: &["when"],
            open: false,
        }),
    )],
    required: &[],
    open: false,
});

/// Its key's shape (cloud-init's schema) and reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("updates", UPDATES)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// Whether the hotplug.enabled file names the network scope.
fn enabled_by_file(ctx: &ModCtx) -> bool {
    let Ok(Some(data)) = ctx.root.read_file(ENABLED_FILE, 64 * 1024) else {
        return false;
    };
    serde_json::from_slice::<Value>(&data)
        .ok()
        .and_then(|v| v.get("scopes")?.as_array().cloned())
        .is_some_and(|s| s.iter().any(|x| x == "network"))
}

impl RunnerModule for InstallHotplug {
    fn name(&self) -> &'static str {
        "install_hotplug"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let by_key = read(cfg, diags);
        if by_key || enabled_by_file(ctx) {
            if which(ctx.root, "udevadm").is_none() {
                ctx.exec
                    .say("install_hotplug: no udevadm in the target: nothing to install");
                return;
            }
            let msg = "network hotplug is not handled by ember (cloud-init's hotplug-hook \
                       daemon): no udev rule installed; devices added later are not configured";
            let key = if by_key {
                "updates.network.when"
            } else {
                "updates"
            };
            diags.push(Diag::warning(Reason::UnsupportedUpdateEvent, msg).key(key));
            return;
        }
        if !ctx.root.exists(RULES) {
            return;
        }
        ctx.exec
            .say("install_hotplug: hotplug not enabled: removing the udev rule");
        if let Err(e) = ctx.root.remove_file(RULES) {
            diags.push(Diag::error(e.code(), e.to_string()).key("updates"));
            return;
        }
        let outcome = tools::run(
            ctx,
            "install_hotplug",
            &["udevadm", "control", "--reload-rules"],
            &[],
        );
        if !outcome.ok() {
            let msg = format!("udevadm {}", outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key("updates"));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn hotplug_is_asked_for_by_the_when_list() {
        let mut d = Vec::new();
        let cfg = |w: serde_json::Value| json!({"updates": {"network": {"when": w}}});
        assert!(super::read(&cfg(json!(["boot", "hotplug"])), &mut d));
        assert!(!super::read(&cfg(json!(["boot"])), &mut d));
        assert!(!super::read(&json!({}), &mut d));
    }
}
