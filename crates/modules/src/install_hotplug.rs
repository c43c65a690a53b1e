//! `install_hotplug` (`updates.network.when: [hotplug]`, the default on EC2): cloud-init
//! installs a udev rule (/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules) that hands
//! network add and remove events to its hotplug hook. ember's rule runs `ember devel
//! hotplug-hook` for them, which has ember-initrd render the network again (its
//! stages/hotplug.rs); no daemon and no socket (RELIABILITY rule 12). The events in force are
//! the boot's, as the local stage settled them from the datasource's default and the config
//! (`hotplug.enabled`, which `cloud-init devel hotplug-hook enable` writes, adds hotplug).
//! When hotplug is not in force a rule left by an earlier instance is removed. Either way udev
//! is told to reload its rules. It runs without keys, as in cloud-init.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#install-hotplug>

use super::{ModCtx, RunnerModule};
use crate::common::distro::which;
use crate::common::system_tools as tools;
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub struct InstallHotplug;

pub const RULES: &str = "/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules";
/// Where the packages install the runner.
const EMBER: &str = "/usr/bin/ember";

/// cloud-init's EC2 rule lines: only the NICs EC2 attaches (Xen's vif, ENA, Intel's VF),
/// not a container's veth or a bridge.
const EC2_DRIVERS: &str = "ENV{ID_NET_DRIVER}!=\"vif|ena|ixgbevf\", GOTO=\"cloudinit_end\"\n";

/// The rule: network devices added or removed, handed to the runner's hook; on EC2
/// (`datasource`, cloud-init's description) only its NIC drivers.
fn rule(ember: &str, datasource: &str) -> String {
    let ec2 = if datasource.starts_with("DataSourceEc2") {
        EC2_DRIVERS
    } else {
        ""
    };
    format!(
        "# Installed by ember (cloud-init's install_hotplug) for network hotplug\n\
ACTION!=\"add|remove\", GOTO=\"cloudinit_end\"\n\
SUBSYSTEM!=\"net\", GOTO=\"cloudinit_end\"\n\
{ec2}\
RUN+=\"{ember} devel hotplug-hook -s net handle -d $devpath -u $env{{ACTION}}\"\n\
LABEL=\"cloudinit_end\"\n"
    )
}

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

/// Whether the cloud dir's hotplug.enabled file (`cloud-init devel hotplug-hook enable` writes
/// `{"scopes": ["network"]}`) names the network scope.
fn enabled_by_file(ctx: &ModCtx) -> bool {
    let Ok(Some(data)) = ctx
        .root
        .read_file(&crate::paths::system().cloud("hotplug.enabled"), 64 * 1024)
    else {
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
            let ember = which(ctx.root, "ember").unwrap_or_else(|| EMBER.to_string());
            let text = rule(&ember, &ctx.datasource);
            if ctx
                .root
                .read_file(RULES, 64 * 1024)
                .ok()
                .flatten()
                .as_deref()
                == Some(text.as_bytes())
            {
                return; // installed already, by this instance or an earlier boot
            }
            ctx.exec
                .say("install_hotplug: installing the network hotplug udev rule");
            if let Err(e) = ctx
                .root
                .write_file(RULES, text.as_bytes(), &FileSpec::mode(0o644))
            {
                diags.push(Diag::error(e.code(), e.to_string()).key("updates"));
                return;
            }
            reload(ctx, diags);
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
        reload(ctx, diags);
    }
}

/// udev reads its rules again.
fn reload(ctx: &ModCtx, diags: &mut Vec<Diag>) {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn ec2_s_rule_takes_only_its_nic_drivers() {
        let ec2 = super::rule(
            "/usr/bin/ember",
            "DataSourceEc2 [http://169.254.169.254][IMDSv2]",
        );
        assert!(ec2.contains("ENV{ID_NET_DRIVER}!=\"vif|ena|ixgbevf\", GOTO=\"cloudinit_end\""));
        let other = super::rule("/usr/bin/ember", "DataSourceNoCloud [seed=/dev/sr0]");
        assert!(!other.contains("ID_NET_DRIVER"));
        assert!(other.contains("RUN+=\"/usr/bin/ember devel hotplug-hook -s net handle"));
    }

    #[test]
    fn hotplug_is_asked_for_by_the_when_list() {
        let mut d = Vec::new();
        let cfg = |w: serde_json::Value| json!({"updates": {"network": {"when": w}}});
        assert!(super::read(&cfg(json!(["boot", "hotplug"])), &mut d));
        assert!(!super::read(&cfg(json!(["boot"])), &mut d));
        assert!(!super::read(&json!({}), &mut d));
    }
}
