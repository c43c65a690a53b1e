//! The `ember` binary's command line: dispatch on the subcommand, answering as `ember` or as
//! `cloud-init` (argv[0]). It runs no stage itself and never links the YAML parser, the
//! datasources or the user-data code, so the runner stays small.
//!
//! Architecture invariant: this crate's dependencies are `ember-core`, `ember-disk`,
//! `ember-network` and `ember-modules` (and lexopt for the command line), so the compiler, not
//! a strings check, keeps YAML, TLS, Jinja and every datasource out of the runner. What needs
//! them (`schema`, `net-convert`, `devel render`, `query --format`) is handed to ember-initrd.

mod analyze;
mod clean;
mod cloud_id;
mod collect_logs;
mod deferred;
mod devel;
mod early;
mod finish;
mod hotplug_hook;
mod make_mime;
mod net_convert;
mod new_file;
mod output;
mod part_handlers;
mod plot;
mod query;
mod render;
mod schema;
mod single;
mod stage_cmd;
mod status_cmd;
mod tar;
mod verdict;

use ember_core::{
    child, clock, cmdline, date, error, handoff, host, instance, mime, module_specs, paths, reason,
    record, regular, root, state, status, xml, yaml_emit,
};
use ember_disk as disk;
use ember_modules as modules;
use ember_modules::common::exec;
use ember_network as network;

use crate::paths::RunPaths;
use lexopt::prelude::*;
use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit code for a bad command line: Python's argparse, which cloud-init uses, exits 2.
pub const EXIT_USAGE: i32 = 2;

/// What every subcommand gets: the program name it was called by and the global flags.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// `ember` or `cloud-init`: used in usage and error lines.
    pub prog: String,
    /// `--target DIR`: the root of the booted system (default `/`).
    pub target: PathBuf,
    /// `--run DIR`: where ember's and cloud-init's runtime files are (default `/run`).
    pub run: PathBuf,
    /// `--host DIR`: the prefix of the running system's `/proc` (default `/`), as
    /// ember-initrd's: tests point it at a tree that names the boot.
    pub host: PathBuf,
}

impl Ctx {
    pub fn run_paths(&self) -> RunPaths {
        RunPaths::new(&self.run)
    }

    /// Applies a global flag taken by `global_flag`, reading its value.
    pub fn set_global(
        &mut self,
        flag: Global,
        parser: &mut lexopt::Parser,
    ) -> Result<(), CliError> {
        let value: PathBuf = parser.value()?.into();
        match flag {
            Global::Target => self.target = value,
            Global::Run => self.run = value,
            Global::Host => self.host = value,
        }
        Ok(())
    }
}

/// The flags every command accepts, before or after its name.
#[derive(Clone, Copy, Debug)]
pub enum Global {
    Target,
    Run,
    Host,
}

/// Recognises `--target`/`--run`/`--host`; subcommands call it for arguments they do not know, so
/// global flags work wherever they appear.
pub fn global_flag(arg: &lexopt::Arg<'_>) -> Option<Global> {
    match arg {
        Long("target") => Some(Global::Target),
        Long("run") => Some(Global::Run),
        Long("host") => Some(Global::Host),
        _ => None,
    }
}

/// Why a command failed. Usage errors exit 2 (as argparse), everything else 1.
#[derive(Debug)]
pub enum CliError {
    Usage(String),
    /// A file that could not be read or parsed, with the reason.
    File {
        path: PathBuf,
        reason: String,
    },
    /// A failure already worded for the user.
    Failed(String),
}

impl CliError {
    pub fn file(path: &Path, reason: impl fmt::Display) -> CliError {
        CliError::File {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

impl From<lexopt::Error> for CliError {
    fn from(e: lexopt::Error) -> CliError {
        CliError::Usage(e.to_string())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(msg) | CliError::Failed(msg) => f.write_str(msg),
            CliError::File { path, reason } => write!(f, "{}: {reason}", path.display()),
        }
    }
}

/// One subcommand. Adding a command (`run`, `analyze`, `schema`, `clean`) is one row in
/// `COMMANDS`; the function parses its own flags from the parser it is handed. `-h`/`--help`
/// anywhere among its arguments prints `usage` and the summary instead, and exits 0.
pub struct Command {
    pub name: &'static str,
    pub summary: &'static str,
    /// The arguments after the command's name, for `--help`.
    pub usage: &'static str,
    pub run: fn(&mut Ctx, &mut lexopt::Parser) -> Result<i32, CliError>,
}

/// Runs `cmd` on the rest of the command line, or prints its help. `path` is how it was
/// named (`status`, `devel render`).
pub fn run_command(
    ctx: &mut Ctx,
    cmd: &Command,
    path: &str,
    parser: &mut lexopt::Parser,
) -> Result<i32, CliError> {
    let rest: Vec<OsString> = parser.raw_args()?.collect();
    // `devel` has commands of its own: a help after one of them is that command's.
    let nested = cmd.name == "devel";
    let asks_help = rest
        .iter()
        .take_while(|a| *a != "--" && (!nested || a.to_string_lossy().starts_with('-')))
        .any(|a| a == "-h" || a == "--help");
    if asks_help {
        print!("{}", command_help(&ctx.prog, path, cmd));
        return Ok(0);
    }
    load_system_paths(&ctx.run_paths());
    (cmd.run)(ctx, &mut lexopt::Parser::from_args(rest))
}

/// The image's `system_info.paths` as ember-initrd recorded them for this boot; cloud-init's
/// defaults when it recorded none (no boot yet, or an older ember), or not readably.
fn load_system_paths(run: &RunPaths) {
    let path = run.at(RunPaths::SYSTEM_PATHS);
    let Ok(data) = crate::regular::read(&path, crate::regular::STATE_MAX) else {
        return;
    };
    // Read as a plain JSON value: the runner parses those anyway, a typed reader would be
    // code of its own in a binary with a size budget.
    let paths = serde_json::from_slice(&data)
        .ok()
        .and_then(|v| crate::paths::SystemPaths::from_json(&v));
    match paths {
        Some(paths) => crate::paths::set_system(paths),
        None => eprintln!("ember: {}: not valid; default paths used", path.display()),
    }
}

fn command_help(prog: &str, path: &str, cmd: &Command) -> String {
    let name = if path.is_empty() {
        prog.to_string()
    } else {
        format!("{prog} {path}")
    };
    format!("usage: {name} {}\n\n{}\n", cmd.usage, cmd.summary).replace(" \n", "\n")
}

/// Also `devel` commands, cloud-init's older spelling.
const NET_CONVERT: Command = Command {
    name: "net-convert",
    summary: "render a network config offline (runs ember-initrd net-convert)",
    usage: net_convert::USAGE,
    run: net_convert::run,
};

const SCHEMA: Command = Command {
    name: "schema",
    summary: "validate cloud-config: --config-file F | --system [--annotate]",
    // ember-initrd's schema parses these (src/schema/cli.rs; the runner cannot name it there:
    // schema reads the runner's module table).
    usage: "(-c FILE | --config-file FILE | --system) [-t cloud-config|network-config] \
            [--annotate] [-i FILE] [--target DIR]",
    run: schema::run,
};

const COMMANDS: &[Command] = &[
    Command {
        name: "status",
        summary: "report ember's (cloud-init's) run status; --wait blocks until done",
        usage: "[-w|--wait] [-l|--long] [--format tabular|json|yaml] [--timeout S] [--grace S]",
        run: status_cmd::run,
    },
    Command {
        name: "query",
        summary: "print instance-data values by dotted key, or a Jinja --format",
        usage: "[VARNAME] [-a|--all] [-l|--list-keys] [-f|--format TEMPLATE] \
                [-i|--instance-data FILE] [-u|--user-data FILE] [-v|--vendor-data FILE] [-d|--debug]",
        run: query::run,
    },
    Command {
        name: "cloud-id",
        summary: "print the cloud id from instance-data.json (also called as cloud-id)",
        usage: cloud_id::USAGE,
        run: cloud_id::run,
    },
    Command {
        name: "features",
        summary: "list the feature flags, as cloud-init's command does",
        usage: "",
        run: features,
    },
    Command {
        name: "init",
        summary: "early boot: boothooks, bootcmd, pending host keys and SELinux labels",
        usage: "[--deferred-hostkeys]",
        run: stage_cmd::init,
    },
    Command {
        name: "modules",
        summary: "run the handoff's modules: --mode init (as init), config or final",
        usage: "--mode init|config|final",
        run: stage_cmd::modules,
    },
    Command {
        name: "config",
        summary: "the config stage (same as modules --mode config)",
        usage: "",
        run: stage_cmd::config,
    },
    Command {
        name: "final",
        summary: "the final stage (same as modules --mode final)",
        usage: "",
        run: stage_cmd::final_stage,
    },
    Command {
        name: "analyze",
        summary: "per-stage and per-step times from status.json: show, blame, dump, plot (SVG)",
        usage: "show|blame|dump|plot [-i|--infile FILE] [-o|--outfile FILE] [--format text|json]",
        run: analyze::run,
    },
    Command {
        name: "clean",
        summary: "reset the instance so the next boot provisions again (image builders)",
        usage: "[--logs] [--seed] [--configs all|network|ssh_config] [--machine-id] [--reboot]",
        run: clean::run,
    },
    Command {
        name: "collect-logs",
        summary: "a tarball of status, logs and instance data for bug reports (redacted; a new file, --replace to replace one)",
        usage: "[-t|--tarfile FILE] [--replace] [--include-sensitive | -r|--redact-sensitive] [-v]",
        run: collect_logs::run,
    },
    NET_CONVERT,
    SCHEMA,
    Command {
        name: "devel",
        summary: "devel net-convert | schema | render | make-mime: cloud-init's devel tools; pcr-predict: ember's",
        usage: "net-convert|schema|render|make-mime|pcr-predict [options]",
        run: devel::run,
    },
    Command {
        name: "single",
        summary: "run one module of the handoff now: --name MODULE [--frequency always]",
        usage: "-n|--name MODULE [--frequency always]",
        run: single::run,
    },
    Command {
        name: "help",
        summary: "print this help",
        usage: "",
        run: help,
    },
];

fn usage(prog: &str) -> String {
    let mut s = format!(
        "usage: {prog} [--target DIR] [--run DIR] [--host DIR] <command> [options]\n       \
         {prog} --help | --version\n\ncommands:\n"
    );
    for c in COMMANDS {
        s.push_str(&format!("  {:<13} {}\n", c.name, c.summary));
    }
    s.push_str(
        "\nglobal options (before or after the command):\n  \
         --target DIR  root of the booted system (default /)\n  \
         --run DIR     runtime directory holding ember/ and cloud-init/ (default /run)\n  \
         --host DIR    prefix of the running system's /proc (default /)\n\n\
         exit codes:\n  \
         0  success (status: done, running, not started or disabled)\n  \
         1  error (a stage failed or died, a key is missing, a file unreadable or invalid, --wait timed out)\n  \
         2  recoverable errors (status: degraded), or a bad command line\n",
    );
    s
}

fn help(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    while let Some(arg) = parser.next()? {
        match global_flag(&arg) {
            Some(flag) => ctx.set_global(flag, parser)?,
            None => return Err(arg.unexpected().into()),
        }
    }
    print!("{}", usage(&ctx.prog));
    Ok(0)
}

/// cloud-init's `features`: the flags of its `version.FEATURES`, sorted, one per line. ember
/// reads network config v1 and v2, the two flags cloud-init has.
const FEATURES: &[&str] = &["NETWORK_CONFIG_V1", "NETWORK_CONFIG_V2"];

fn features(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    while let Some(arg) = parser.next()? {
        match global_flag(&arg) {
            Some(flag) => ctx.set_global(flag, parser)?,
            None => return Err(arg.unexpected().into()),
        }
    }
    println!("{}", FEATURES.join("\n"));
    Ok(0)
}

/// Entry point of the `ember` binary: returns the process exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    let mut parser = lexopt::Parser::from_iter(args);
    // argv[0] is a path (`/usr/bin/cloud-init`); the name it was called by is its basename.
    let called = parser.bin_name().and_then(|p| Path::new(p).file_name());
    let prog = match called.and_then(|n| n.to_str()) {
        Some("cloud-init") => "cloud-init",
        Some("cloud-id") => "cloud-id",
        _ => "ember",
    };
    let mut ctx = Ctx {
        prog: prog.to_string(),
        target: PathBuf::from("/"),
        run: PathBuf::from("/run"),
        host: PathBuf::from("/"),
    };
    let result = if prog == "cloud-id" {
        // cloud-init installs `cloud-id` as a command of its own: the whole line is its.
        let cmd = COMMANDS.iter().find(|c| c.name == "cloud-id");
        cmd.map_or(Ok(1), |c| run_command(&mut ctx, c, "", &mut parser))
    } else {
        dispatch(&mut ctx, &mut parser)
    };
    let code = match result {
        Ok(code) => code,
        Err(CliError::Usage(msg)) => {
            match ctx.prog.as_str() {
                "cloud-id" => eprintln!("usage: cloud-id {}", cloud_id::USAGE),
                prog => eprint!("{}", usage(prog)),
            }
            eprintln!("{}: error: {msg}", ctx.prog);
            EXIT_USAGE
        }
        Err(e) => {
            eprintln!("{}: {e}", ctx.prog);
            1
        }
    };
    // A closed stdout (`| head`) is not worth a panic; the exit code already says enough.
    let _ = std::io::stdout().flush();
    code
}

fn dispatch(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return help(ctx, parser),
            Long("version") => {
                println!("{} {} (ember)", ctx.prog, env!("CARGO_PKG_VERSION"));
                return Ok(0);
            }
            Value(name) => {
                let name = name.string()?;
                let Some(cmd) = COMMANDS.iter().find(|c| c.name == name) else {
                    return Err(CliError::Usage(format!("unknown command '{name}'")));
                };
                return run_command(ctx, cmd, cmd.name, parser);
            }
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    Err(CliError::Usage("a command is required".into()))
}
