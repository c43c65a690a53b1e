//! Running commands in the target: chrooted (`chroot <target> …`, the distribution's binary,
//! since `pre_exec` would need unsafe code outside `src/sys/`) when the target is not `/`,
//! directly otherwise. Output is streamed to our stdout (the console and journal under the
//! units) and appended to the target's `/var/log/cloud-init-output.log`, cloud-init's minimal
//! `output: {all: "| tee -a /var/log/cloud-init-output.log"}`, or to the file the `output:`
//! setting names (see `output.rs`). It does not interpret output.

use crate::common::accounts::Accounts;
use crate::root::{FileSpec, Owner, Root};
use std::cell::{Cell, OnceCell};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// cloud-init's output log, in the target.
pub const OUTPUT_LOG: &str = "/var/log/cloud-init-output.log";
/// Logs are 0640 or stricter (RELIABILITY rule 2): command output may say more than it should.
const LOG_MODE: u32 = 0o640;
/// The group a new log gets, as cloud-init's output pipe makes it: the log readers' group.
const LOG_GROUP: &str = "adm";
/// systemd's default PATH: a chrooted command must not search the host's tool directories.
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// Exports the `NAME=value` words up to `--`, then becomes the command with stderr on stdout.
const SHIM: &str = "while [ \"$1\" != -- ]; do export \"$1\"; shift; done; shift; exec \"$@\" 2>&1";

pub struct Exec<'a> {
    root: &'a Root,
    target: PathBuf,
    chroot: bool,
    /// The output log in the target.
    log: String,
    /// Flush the root before the next command: an at-most-once module's "started" marker
    /// must be on the disk before what it guards happens.
    flush_first: Cell<bool>,
    /// How a new log is made, found when the first line is logged (the target's groups).
    log_spec: OnceCell<FileSpec>,
}

/// How a command ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Exited(i32),
    /// Killed by a signal (no exit code).
    Signalled,
    /// Could not be started at all (no `chroot`, no `/bin/sh` in the target).
    NotStarted(String),
}

impl Outcome {
    pub fn ok(&self) -> bool {
        *self == Outcome::Exited(0)
    }

    /// For a diagnostic: never the command line, which may carry user-data.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Exited(code) => format!("exited with status {code}"),
            Outcome::Signalled => "was killed by a signal".into(),
            Outcome::NotStarted(why) => format!("could not be started: {why}"),
        }
    }
}

/// A new log: 0640, root and the target's `adm` group where it has one (cloud-init creates its
/// output log with umask 037 and the adm group, so the log readers' group can read it), else
/// root's own group. A runner that is not root (a test's directory) makes it as itself.
fn log_spec(root: &Root) -> FileSpec {
    let spec = FileSpec::mode(LOG_MODE);
    if !rustix::process::geteuid().is_root() {
        return spec;
    }
    let gid = Accounts::load(root).group_gid(LOG_GROUP).unwrap_or(0);
    spec.with_owner(Owner { uid: 0, gid })
}

impl<'a> Exec<'a> {
    /// Output goes to cloud-init's default log; see `with_log`.
    pub fn new(root: &'a Root, target: &Path) -> Exec<'a> {
        // chroot runs in the target's directory (see `run`), so a relative path would not do.
        let target = crate::paths::absolute(target);
        Exec {
            root,
            chroot: target != Path::new("/"),
            target,
            log: OUTPUT_LOG.to_string(),
            flush_first: Cell::new(false),
            log_spec: OnceCell::new(),
        }
    }

    /// Sends the output to `log` (a path in the target) instead: the `output:` setting.
    pub fn with_log(mut self, log: String) -> Exec<'a> {
        self.log = log;
        self
    }

    pub fn root(&self) -> &'a Root {
        self.root
    }

    /// Whether commands really run on this machine (`--target /`), rather than in a
    /// directory standing for it.
    pub fn is_live(&self) -> bool {
        !self.chroot
    }

    /// Whether the next command waits for the root's flush (see `flush_first`).
    pub fn flush_before_commands(&self, on: bool) {
        self.flush_first.set(on);
    }

    /// Appends to the output log and prints: the one sink for everything the stages say.
    pub fn say(&self, line: &str) {
        println!("{line}");
        self.log(format!("{line}\n").as_bytes());
    }

    /// Log lines are incidental to the root's durability: no module's marker stands for them.
    fn log(&self, data: &[u8]) {
        let spec = self.log_spec.get_or_init(|| log_spec(self.root));
        let appended = self
            .root
            .incidental(|| self.root.append_file(&self.log, data, spec));
        if let Err(e) = appended {
            eprintln!("ember: cannot append to {}: {e}", self.log);
        }
    }

    /// Runs `argv` (looked up on PATH in the target) with extra environment (names and values
    /// that are not secret: they show in the process list), stdin closed and stderr merged into
    /// stdout so the log keeps their order. `/bin/sh` does that, so it is the one program the
    /// target must have.
    pub fn run(&self, argv: &[&str], env: &[(&str, &str)]) -> Outcome {
        let mut cmd = if self.chroot {
            let mut c = Command::new("chroot");
            c.arg(&self.target).arg("/bin/sh");
            c
        } else {
            Command::new("/bin/sh")
        };
        // The environment goes through the shell too (`NAME=value` words before `--`): std's
        // `Command::env` would link an environment map into the light runner for two names.
        cmd.args(["-c", SHIM, "sh"])
            .arg(format!("PATH={PATH}"))
            .args(env.iter().map(|(k, v)| format!("{k}={v}")))
            .arg("--")
            .args(argv);
        if self.chroot {
            // Relative to the target's root, not the runner's working directory.
            cmd.current_dir(&self.target);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if self.flush_first.replace(false) {
            if let Err(e) = self.root.flush() {
                return Outcome::NotStarted(format!("its start could not be recorded: {e}"));
            }
        }
        self.root.commands_ran();
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => return Outcome::NotStarted(e.to_string()),
        };
        // Stream rather than collect: a long runcmd shows progress on the console as it goes.
        // Only chroot itself writes to stderr (`chroot: cannot change root`): say it too. The
        // stage goes on when the command exits, even if a daemon it started keeps the pipes.
        let streamed = ember_core::child::stream(&mut child, |chunk| {
            let _ = std::io::stdout().write_all(chunk);
            self.log(chunk);
        });
        match streamed {
            Ok(status) => status.code().map_or(Outcome::Signalled, Outcome::Exited),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Outcome::NotStarted(e.to_string())
            }
        }
    }

    /// Whether `rel` is an executable regular file in the target. A read-only `stat` through
    /// the target's path: what runs is then resolved inside the target by the chroot.
    pub fn executable(&self, rel: &str) -> bool {
        use std::os::unix::fs::PermissionsExt;
        let path = self.target.join(rel.trim_start_matches('/'));
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
}
