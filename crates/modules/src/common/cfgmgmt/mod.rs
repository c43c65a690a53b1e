//! What the configuration-management modules (ansible, puppet, chef, salt_minion,
//! mcollective) share: installing packages as cloud-init's `distro.install_packages` does,
//! managing a service as its `distro.manage_service` does, running a command and reading what
//! it printed, downloading an installer with the target's own curl or wget, and writing files
//! in the formats cloud-init's Python libraries write (`json.dumps`, PyYAML). Everything runs
//! in the target through `ModCtx`; nothing here reads cloud-config.

pub mod pyjson;
pub mod read;

use crate::common::distro::{which, Family, OsRelease};
use crate::common::exec::Outcome;
use crate::common::package_manager::{Manager, Op};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::state::Frequency;
use crate::ModCtx;

/// Where `capture` has a command's standard output written, in the target.
const CAPTURE: &str = "/var/lib/ember/cfgmgmt.out";
/// At most this much of a command's output is read back.
const CAPTURE_MAX: u64 = 1 << 20;
/// Where a downloaded installer runs from (cloud-init uses a directory under /var/tmp too:
/// /tmp may be mounted noexec).
pub const EXEC_DIR: &str = "/var/tmp/ember";
/// The largest installer script taken.
const SCRIPT_MAX: u64 = 16 << 20;

/// A package to install, pinned when `version` is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pkg {
    pub name: String,
    pub version: Option<String>,
}

impl Pkg {
    pub fn new(name: &str) -> Pkg {
        Pkg {
            name: name.into(),
            version: None,
        }
    }

    /// The package as `manager` names it on its command line (cloud-init's pinning).
    fn spelled(&self, manager: Manager) -> String {
        match (&self.version, manager) {
            (None, _) => self.name.clone(),
            (Some(v), Manager::Apt | Manager::Apk) => format!("{}={v}", self.name),
            (Some(v), _) => format!("{}-{v}", self.name),
        }
    }
}

/// Installs `pkgs` with the target's package manager, refreshing apt's or apk's sources first
/// once per instance (cloud-init's `update-sources` semaphore). `Err` says what failed; the
/// caller adds its key.
pub fn install(ctx: &ModCtx, pkgs: &[Pkg]) -> Result<(), Diag> {
    let Some(m) = Manager::detect(ctx) else {
        let msg = "no package manager (apt-get, dnf, yum, apk, zypper) in the target";
        return Err(Diag::error(Reason::PackageManagerMissing, msg));
    };
    let env: &[(&str, &str)] = if m == Manager::Apt {
        &[("DEBIAN_FRONTEND", "noninteractive")]
    } else {
        &[]
    };
    let run = |argv: Vec<String>| -> Result<(), Diag> {
        ctx.exec.say(&format!("running {}", argv.join(" ")));
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        let outcome = ctx.exec.run(&args, env);
        match outcome.ok() {
            true => Ok(()),
            false => Err(Diag::error(
                Reason::PackageCommandFailed,
                format!("{} {}", args[0], outcome.describe()),
            )),
        }
    };
    if matches!(m, Manager::Apt | Manager::Apk) {
        let mut failed = None;
        crate::once(
            ctx,
            "update-sources",
            Frequency::PerInstance,
            &mut Vec::new(),
            |_| {
                failed = run(m.argv(Op::Update, &[])).err();
            },
        );
        if let Some(d) = failed {
            return Err(d);
        }
    }
    let names: Vec<String> = pkgs.iter().map(|p| p.spelled(m)).collect();
    run(m.argv(Op::Install, &names))
}

/// `distro.manage_service`'s actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Enable,
    Disable,
    Start,
    Stop,
    Restart,
}

impl Action {
    fn word(self) -> &'static str {
        match self {
            Action::Enable => "enable",
            Action::Disable => "disable",
            Action::Start => "start",
            Action::Stop => "stop",
            Action::Restart => "restart",
        }
    }
}

/// The command cloud-init runs for `action` on `service`: systemctl where systemd runs the
/// machine (`/run/systemd/system`), OpenRC's on Alpine, else SysV's `service` (where enable
/// means start and disable stop, as cloud-init has it).
pub fn service_argv(ctx: &ModCtx, action: Action, service: &str) -> Vec<String> {
    let words: Vec<&str> = if OsRelease::read(ctx.root).family() == Family::Alpine {
        match action {
            Action::Enable => vec!["rc-update", "add", service],
            Action::Disable => vec!["rc-update", "del", service],
            other => vec!["rc-service", service, other.word()],
        }
    } else if ctx.root.exists("/run/systemd/system") {
        vec!["systemctl", action.word(), service]
    } else {
        let word = match action {
            Action::Enable => "start",
            Action::Disable => "stop",
            other => other.word(),
        };
        vec!["service", service, word]
    };
    words.into_iter().map(str::to_string).collect()
}

/// Runs `service_argv`; `Err` says which action failed on which service.
pub fn manage_service(ctx: &ModCtx, action: Action, service: &str) -> Result<(), Diag> {
    let argv = service_argv(ctx, action, service);
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let outcome = ctx.exec.run(&args, &[]);
    if outcome.ok() {
        return Ok(());
    }
    let msg = format!(
        "{} {} {service}: {}",
        args[0],
        action.word(),
        outcome.describe()
    );
    Err(Diag::error(Reason::CommandFailed, msg))
}

/// Whether `path` is a directory in the target.
pub fn is_dir(ctx: &ModCtx, path: &str) -> bool {
    ctx.root.exists(path) && ctx.root.list_dir(path).is_ok()
}

/// Runs `argv` as `run` does and returns what it printed on standard output (its standard
/// error still goes to the output log). The output passes through a 0600 file in the target,
/// since the runner's commands write only to the log.
pub fn capture(ctx: &ModCtx, argv: &[&str], env: &[(&str, &str)]) -> (Outcome, String) {
    if let Err(e) = ctx.root.write_file(CAPTURE, b"", &FileSpec::mode(0o600)) {
        return (Outcome::NotStarted(e.to_string()), String::new());
    }
    let redirect = format!("\"$@\" >{CAPTURE}");
    let mut all = vec!["sh", "-c", redirect.as_str(), "sh"];
    all.extend_from_slice(argv);
    let outcome = ctx.exec.run(&all, env);
    let out = ctx.root.read_file(CAPTURE, CAPTURE_MAX).ok().flatten();
    let _ = ctx.root.remove_file(CAPTURE);
    (
        outcome,
        String::from_utf8_lossy(&out.unwrap_or_default()).into(),
    )
}

/// `argv` run from the directory `dir` (subp's `cwd`).
pub fn in_dir<'a>(dir: &'a str, argv: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir];
    all.extend_from_slice(argv);
    all
}

/// Downloads `url` with the target's curl (else wget), `retries` times more on failure, and
/// runs it as a 0700 script `EXEC_DIR/name` with `args`, as cloud-init runs the puppet and chef
/// installers it fetches; the script is removed afterwards. `Err` says what failed.
pub fn fetch_and_run(
    ctx: &ModCtx,
    url: &str,
    retries: u32,
    name: &str,
    args: &[&str],
) -> Result<(), Diag> {
    let path = format!("{EXEC_DIR}/{name}");
    ctx.root
        .create_dir_all(EXEC_DIR, &FileSpec::mode(0o700))
        .map_err(Diag::from)?;
    let n = retries.to_string();
    let tries = (retries + 1).to_string();
    let argv: Vec<&str> = if which(ctx.root, "curl").is_some() {
        vec!["curl", "-fsSL", "--retry", &n, "-o", &path, url]
    } else if which(ctx.root, "wget").is_some() {
        vec!["wget", "-q", "-t", &tries, "-O", &path, url]
    } else {
        let msg = format!("no curl or wget in the target: {name} not downloaded");
        return Err(Diag::error(Reason::ToolMissing, msg));
    };
    ctx.exec.say(&format!("downloading {name}"));
    let outcome = ctx.exec.run(&argv, &[]);
    if !outcome.ok() {
        let _ = ctx.root.remove_file(&path);
        let msg = format!("{name} not downloaded: {} {}", argv[0], outcome.describe());
        return Err(Diag::error(Reason::CommandFailed, msg));
    }
    let script = ctx.root.read_file(&path, SCRIPT_MAX).map_err(Diag::from)?;
    let script = script.unwrap_or_default();
    ctx.root
        .write_file(&path, &script, &FileSpec::mode(0o700))
        .map_err(Diag::from)?;
    let mut run = vec![path.as_str()];
    run.extend_from_slice(args);
    let outcome = ctx.exec.run(&run, &[]);
    let _ = ctx.root.remove_file(&path);
    match outcome.ok() {
        true => Ok(()),
        false => Err(Diag::error(
            Reason::CommandFailed,
            format!("{name} {}", outcome.describe()),
        )),
    }
}

/// Writes `data` to `path` in the target; a failure is an error at `key`.
pub fn write(ctx: &ModCtx, path: &str, data: &[u8], mode: u32, key: &str) -> Result<(), Diag> {
    write_as(ctx, path, data, FileSpec::mode(mode), key)
}

/// `write` with an owner.
pub fn write_as(
    ctx: &ModCtx,
    path: &str,
    data: &[u8],
    spec: FileSpec,
    key: &str,
) -> Result<(), Diag> {
    // Paths come from the config and may lead through directories others can write (a
    // daemon's own, /tmp): no link there is followed (RELIABILITY rule 13).
    ctx.root
        .write_user_file(path, data, &spec, false)
        .map_err(|e| Diag::error(e.code(), e.to_string()).key(key))
}

/// Makes the directory `path` (and its parents) in the target; a failure is an error at `key`.
pub fn mkdir(ctx: &ModCtx, path: &str, spec: FileSpec, key: &str) -> Result<(), Diag> {
    ctx.root
        .create_user_dir(path, &spec)
        .map_err(|e| Diag::error(e.code(), e.to_string()).key(key))
}

/// A command that failed, as an error naming only its program (its arguments may carry
/// user-data).
pub fn failed(program: &str, outcome: &Outcome) -> Diag {
    Diag::error(
        Reason::CommandFailed,
        format!("{program} {}", outcome.describe()),
    )
}

/// The machine's fully qualified name as Python's `socket.getfqdn()` finds it with files
/// lookups: the hostname (the target's /etc/hostname), or the first name with a dot on the
/// /etc/hosts line that names it.
pub fn fqdn(ctx: &ModCtx) -> String {
    let read = |p: &str| {
        let data = ctx.root.read_file(p, 1 << 20).ok().flatten();
        String::from_utf8_lossy(&data.unwrap_or_default()).into_owned()
    };
    let host = read("/etc/hostname").trim().to_string();
    let host = if host.is_empty() {
        "localhost".to_string()
    } else {
        host
    };
    for line in read("/etc/hosts").lines() {
        let line = line.split('#').next().unwrap_or_default();
        let names: Vec<&str> = line.split_whitespace().skip(1).collect();
        if names.contains(&host.as_str()) {
            if let Some(full) = names.iter().find(|n| n.contains('.')) {
                return full.to_string();
            }
            break;
        }
    }
    host
}
