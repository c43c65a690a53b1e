//! `ember-initrd hotplug --action add|remove --devpath PATH [--host --target --run]`: what
//! cloud-init's `devel hotplug-hook handle` does for a NIC added or removed while the system
//! runs, called from the udev rule `install_hotplug` installs (through the runner's `devel
//! hotplug-hook`). When hotplug is in force (the boot's settled `updates.network.when`, or
//! the `hotplug.enabled` file), the boot's network config is rendered again by the local
//! stage's own step, which sees the new set of NICs (a new NIC matched by the config, or the
//! fallback's, gets its file; a removed one's naming rule goes), and the target's stack is
//! told to reload when the target is the running system. Events before the boot finished
//! (udev's coldplug) are left to the boot. Recorded as the `hotplug` entry of status.json. Not here: fetching the metadata again (cloud-init does, for clouds whose
//! per-NIC data grows, EC2's; ember renders the config of this boot), waiting for the NIC to
//! appear in the metadata, storage hotplug.

use super::network;
use crate::context::Ctx;
use crate::error::Diag;
use crate::host::Host;
use crate::paths::RunPaths;
use crate::reason::Reason;
use crate::record::Recorder;
use crate::status::StageState;
use lexopt::prelude::*;
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;

pub const USAGE: &str = "usage: ember-initrd hotplug --action add|remove --devpath /devices/... \
[--host DIR] [--target DIR] [--run DIR]";
struct Args {
    action: String,
    devpath: String,
    host: PathBuf,
    target: PathBuf,
    run: PathBuf,
}

fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut out = Args {
        action: String::new(),
        devpath: String::new(),
        host: "/".into(),
        target: "/".into(),
        run: "/run".into(),
    };
    let mut p = lexopt::Parser::from_args(args.iter().cloned());
    let text = |p: &mut lexopt::Parser| -> Result<String, String> {
        p.value()
            .map_err(|e| e.to_string())?
            .into_string()
            .map_err(|_| "not UTF-8".to_string())
    };
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("action") | Short('u') => out.action = text(&mut p)?,
            Long("devpath") | Short('d') => out.devpath = text(&mut p)?,
            Long("host") => out.host = text(&mut p)?.into(),
            Long("target") => out.target = text(&mut p)?.into(),
            Long("run") => out.run = text(&mut p)?.into(),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if !matches!(out.action.as_str(), "add" | "remove") {
        return Err(format!(
            "--action must be add or remove, not {:?}",
            out.action
        ));
    }
    // udev's DEVPATH of a network device: /devices/…/net/NAME.
    let nic = out.devpath.rsplit_once("/net/").map(|(_, n)| n);
    if !out.devpath.starts_with("/devices/") || nic.is_none_or(|n| n.is_empty() || n.contains('/'))
    {
        return Err(format!(
            "--devpath must be a network device's udev path (/devices/…/net/NAME), not {:?}",
            out.devpath
        ));
    }
    Ok(out)
}

/// A JSON file of this boot's run directory: a regular file within the state budget (a FIFO
/// planted there must not hold the udev worker that runs this).
fn run_json(run: &RunPaths, rel: &str) -> Option<Value> {
    let bytes = crate::regular::read(&run.at(rel), crate::regular::STATE_MAX).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Whether hotplug is in force: the boot's settled events, or the enabled file.
fn enabled(ctx: &Ctx, cfg: &Value) -> bool {
    let by_cfg = cfg
        .pointer("/updates/network/when")
        .and_then(Value::as_array)
        .is_some_and(|w| w.iter().any(|e| e == "hotplug"));
    let by_file = || {
        let root = ctx.target.as_ref()?;
        let data = root
            .read_file(&crate::paths::system().cloud("hotplug.enabled"), 64 * 1024)
            .ok()??;
        let v: Value = serde_json::from_slice(&data).ok()?;
        Some(v.get("scopes")?.as_array()?.iter().any(|s| s == "network"))
    };
    by_cfg || by_file().unwrap_or(false)
}

pub fn main(args: &[OsString]) -> i32 {
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ember-initrd hotplug: {e}\n{USAGE}");
            return 2;
        }
    };
    let ctx = Ctx::new(Host::new(&args.host), args.target, args.run, None);
    let handoff = run_json(&ctx.run, RunPaths::HANDOFF);
    let network = run_json(&ctx.run, RunPaths::NETWORK_CONFIG);
    let cfg = run_json(&ctx.run, RunPaths::CI_COMBINED_CLOUD_CONFIG).unwrap_or_default();
    let (Some(handoff), Some(network)) = (handoff, network) else {
        eprintln!(
            "ember-initrd hotplug: no handoff or network config of this boot in {}: nothing to render",
            ctx.run.ember_dir().display()
        );
        return 1;
    };
    // udev's coldplug replays `add` for every NIC while the system boots: the boot's own
    // rendering covers those, as cloud-init's hook waits for its result.json.
    if !ctx.run.at(RunPaths::CI_RESULT).exists() {
        println!(
            "ember hotplug: this boot is not finished: {} event left to it",
            args.action
        );
        return 0;
    }
    if !enabled(&ctx, &cfg) {
        println!(
            "ember hotplug: network hotplug is not enabled: {} event ignored",
            args.action
        );
        return 0;
    }
    let mut rec = match Recorder::begin(&ctx.run, "hotplug") {
        Ok(rec) => rec,
        Err(d) => {
            eprintln!("ember-initrd hotplug: {d}");
            return 1;
        }
    };
    let Some(root) = ctx.target.as_ref() else {
        let path = ctx.target_path.display().to_string();
        rec.record(Diag::error(Reason::TargetMissing, "target root not found").file(path));
        rec.finish(StageState::Done);
        return 1;
    };
    let id = handoff["instance_id"].as_str().unwrap_or_default();
    let stack = crate::network::stack::Choice::of(root, &cfg);
    network::apply(&ctx, &mut rec, root, id, &network, &cfg, stack);
    if ctx.target_path == std::path::Path::new("/") {
        network::reload(&mut rec, root);
    }
    let status = rec.finish(StageState::Done);
    let errors = status.stages.get("hotplug").map_or(0, |s| s.errors.len());
    for d in status.stages.get("hotplug").iter().flat_map(|s| &s.errors) {
        eprintln!("ember: {d}");
    }
    i32::from(errors > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Result<Args, String> {
        parse(&a.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn udev_s_arguments_are_checked() {
        let ok = args(&[
            "-u",
            "add",
            "-d",
            "/devices/pci0000:00/0000:00:04.0/virtio1/net/ens5",
        ]);
        assert_eq!(ok.map(|a| a.action), Ok("add".into()));
        for bad in [
            &["-u", "change", "-d", "/devices/virtual/net/eth1"][..],
            &["-u", "add", "-d", "/sys/class/net/eth1"],
            &["-u", "add", "-d", "/devices/virtual/net/"],
            &["-u", "add", "-d", "/devices/virtual/block/sda"],
            &["-u", "add"],
            &["--bogus"],
        ] {
            assert!(args(bad).is_err(), "{bad:?}");
        }
    }
}
