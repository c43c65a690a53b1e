//! `disable_ec2_metadata: true`: the route to the EC2 metadata service refused on every boot,
//! with `ip route add prohibit 169.254.169.254` (net-tools' `route add -host 169.254.169.254
//! reject` where only `ifconfig` is found), as cloud-init does. Routes belong to the running
//! system: with `--target` other than `/` the command would change the host's table, so ember
//! only says what it would run.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#disable-ec2-metadata>

use super::{ModCtx, RunnerModule};
use crate::common::distro::{flag, which};
use crate::common::system_tools as tools;
use crate::config::reader::Reader;
use crate::config::shape::Shape;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

pub struct DisableEc2Metadata;

const IP: &[&str] = &["ip", "route", "add", "prohibit", "169.254.169.254"];
const ROUTE: &[&str] = &["route", "add", "-host", "169.254.169.254", "reject"];

pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> bool {
    flag(
        cfg.get("disable_ec2_metadata"),
        "disable_ec2_metadata",
        diags,
    )
    .unwrap_or(false)
}

/// Its key's shape (cloud-init's schema) and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("disable_ec2_metadata", Shape::Bool)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// The command cloud-init chooses: iproute2 first, net-tools when only it is there.
pub fn reject_command(has_ip: bool, has_ifconfig: bool) -> Option<&'static [&'static str]> {
    if has_ip {
        Some(IP)
    } else if has_ifconfig {
        Some(ROUTE)
    } else {
        None
    }
}

impl RunnerModule for DisableEc2Metadata {
    fn name(&self) -> &'static str {
        "disable_ec2_metadata"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        if !read(cfg, diags) {
            return;
        }
        let has = |tool| which(ctx.root, tool).is_some();
        let Some(argv) = reject_command(has("ip"), has("ifconfig")) else {
            // cloud-init logs this at ERROR level and returns: a recoverable error (degraded),
            // not a failed module.
            let msg = "neither ip nor route is in the target: the metadata route stays open";
            diags.push(Diag::warning(Reason::ToolMissing, msg).key("disable_ec2_metadata"));
            return;
        };
        if !ctx.exec.is_live() {
            ctx.exec.say(&format!(
                "disable_ec2_metadata: would run: {} (not run: --target is not /)",
                argv.join(" ")
            ));
            return;
        }
        let outcome = tools::run(ctx, "disable_ec2_metadata", argv, &[]);
        if !outcome.ok() {
            let msg = format!("{} {}", argv[0], outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key("disable_ec2_metadata"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iproute2_first() {
        assert_eq!(
            reject_command(true, true).unwrap().join(" "),
            "ip route add prohibit 169.254.169.254"
        );
        assert_eq!(
            reject_command(false, true).unwrap().join(" "),
            "route add -host 169.254.169.254 reject"
        );
        assert_eq!(reject_command(false, false), None);
    }
}
