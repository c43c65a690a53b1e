//! `ember clean [--logs] [--seed] [--configs all|network|ssh_config]… [--machine-id]
//! [--reboot]`: cloud-init's `clean`, which image builders run before capturing an image so
//! its next boot provisions a new instance. Removes cloud-init's and ember's state (the seed
//! stays unless `--seed`), runs /etc/cloud/clean.d/ scripts, and with the options the logs,
//! the network files ember rendered (those its record lists that are still ember's own: see
//! `network::render::owned`), the sshd drop-in, and the machine id (`uninitialized`, as
//! systemd's first boot wants it). Everything goes through the target root.
//! <https://docs.cloud-init.io/en/latest/reference/cli.html#clean>

use super::exec::Exec;
use super::{global_flag, CliError, Ctx};
use crate::network::render::owned::{self, RECORD as NETWORK_RENDERED};
use crate::root::{FileSpec, Root};
use crate::state::EMBER_LIB;
use lexopt::prelude::*;
use serde_json::Value;

const LOGS: &[&str] = &["/var/log/cloud-init.log", "/var/log/cloud-init-output.log"];
const CLEAN_D: &str = "/etc/cloud/clean.d";
const SSHD_DROP_IN: &str = "/etc/ssh/sshd_config.d/50-cloud-init.conf";
const SYSTEMD: &[&str] = &["/usr/lib/systemd/systemd", "/lib/systemd/systemd"];

#[derive(Default)]
struct Opts {
    logs: bool,
    seed: bool,
    network: bool,
    ssh: bool,
    machine_id: bool,
    reboot: bool,
}

fn parse(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<Opts, CliError> {
    let mut o = Opts::default();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('l') | Long("logs") => o.logs = true,
            Short('s') | Long("seed") => o.seed = true,
            Short('r') | Long("reboot") => o.reboot = true,
            Short('m') | Long("machine-id") => o.machine_id = true,
            Short('c') | Long("configs") => {
                for which in parser.value()?.string()?.split(',') {
                    match which {
                        "all" => (o.network, o.ssh) = (true, true),
                        "network" => o.network = true,
                        "ssh_config" => o.ssh = true,
                        other => {
                            let msg =
                                format!("--configs: '{other}' is not all, network or ssh_config");
                            return Err(CliError::Usage(msg));
                        }
                    }
                }
            }
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    Ok(o)
}

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let o = parse(ctx, parser)?;
    let root = Root::open(&ctx.target).map_err(|e| CliError::Failed(e.to_string()))?;
    let mut failed = Vec::new();
    // Scripts first: they may want to read what is about to go.
    let exec = Exec::new(&root, &ctx.target);
    for script in root.list_dir(CLEAN_D).unwrap_or_default() {
        let path = format!("{CLEAN_D}/{script}");
        if exec.executable(&path) && !script.starts_with('.') {
            let outcome = exec.run(&[&path], &[]);
            if !outcome.ok() {
                eprintln!("{}: clean: {path} {}", ctx.prog, outcome.describe());
            }
        }
    }
    if o.network {
        // The files ember's rendering recorded, those still ember's own; then the record,
        // with the state. A stale or corrupt record removes nothing else.
        let listed = match root.read_file(NETWORK_RENDERED, owned::MAX_RECORD) {
            Ok(None) => None,
            Ok(Some(bytes)) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) if v["files"].is_array() => Some(v),
                _ => {
                    failed.push(format!("{NETWORK_RENDERED}: {}", owned::UNREADABLE));
                    None
                }
            },
            Err(e) => {
                failed.push(e.to_string());
                None
            }
        };
        for f in listed
            .iter()
            .flat_map(|v| v["files"].as_array().into_iter().flatten())
        {
            if let Some(path) = f.as_str() {
                if let Err(refusal) = owned::remove(&root, path) {
                    failed.push(refusal.message(path));
                }
            }
        }
    }
    let mut remove = |rel: &str| {
        if let Err(e) = root.remove_tree(rel) {
            failed.push(e.to_string());
        }
    };
    if o.ssh {
        remove(SSHD_DROP_IN);
    }
    let cloud_dir = &crate::paths::system().cloud_dir;
    for entry in root.list_dir(cloud_dir).unwrap_or_default() {
        if entry != "seed" || o.seed {
            remove(&format!("{cloud_dir}/{entry}"));
        }
    }
    remove(EMBER_LIB);
    if o.logs {
        LOGS.iter().for_each(|l| remove(l));
    }
    if o.machine_id {
        let systemd = SYSTEMD.iter().any(|p| root.exists(p));
        let done = if systemd {
            root.write_file(
                "/etc/machine-id",
                b"uninitialized\n",
                &FileSpec::mode(0o444),
            )
        } else {
            root.remove_file("/etc/machine-id")
        };
        if let Err(e) = done {
            failed.push(e.to_string());
        }
    }
    for f in &failed {
        eprintln!("{}: clean: {f}", ctx.prog);
    }
    if !failed.is_empty() {
        return Ok(1);
    }
    if o.reboot {
        if !exec.is_live() {
            eprintln!("{}: clean: --reboot ignored: --target is not /", ctx.prog);
            return Ok(0);
        }
        let outcome = exec.run(&["shutdown", "-r", "now"], &[]);
        return Ok(i32::from(!outcome.ok()));
    }
    Ok(0)
}
