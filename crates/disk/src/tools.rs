//! Running the distribution's disk tools (mkfs.*, mkswap) from the initramfs: the
//! initramfs's own copy when its integration added one, else the target's, chrooted into
//! the mounted target with the initramfs's /dev, /proc and /sys bound in for the run. Also
//! the way to VMware's guestinfo tools, whose output is the answer (`output`).

use crate::child::{self, Bounds, ChildError};
use crate::host::Host;
use rustix::mount::{mount_bind, unmount, UnmountFlags};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Where a distribution keeps them.
const TARGET_DIRS: &[&str] = &["usr/sbin", "sbin", "usr/bin", "bin"];
const BOUND: &[&str] = &["dev", "proc", "sys"];
/// A disk tool's bounds: mkfs on a large disk takes minutes at most (cloud-init sets none; a
/// tool hung on a dying disk would hold the boot for ever). Only its last lines are read.
const DISK_TOOL: Bounds = Bounds {
    deadline: ember_core::bounds::DISK_TOOL,
    max_output: 1 << 20,
};

/// Why a tool gave no output: the message names the tool, never its arguments.
#[derive(Debug)]
pub struct ToolError {
    pub message: String,
    /// Killed at its deadline or output budget: it is there but hangs or floods, which is
    /// not the same as a tool that answers "no".
    pub killed: bool,
}

impl ToolError {
    fn other(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            killed: false,
        }
    }
}

pub struct Tools<'a> {
    pub host: &'a Host,
    /// The mounted target root.
    pub target: &'a Path,
}

enum Found {
    Here(PathBuf),
    InTarget,
}

impl Tools<'_> {
    fn find(&self, name: &str) -> Option<Found> {
        let path =
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/sbin:/usr/bin:/sbin:/bin".into());
        if let Some(p) = std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
        {
            return Some(Found::Here(p));
        }
        TARGET_DIRS
            .iter()
            .any(|d| self.target.join(d).join(name).is_file())
            .then_some(Found::InTarget)
    }

    pub fn available(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Runs `argv`; the error says what failed (never the arguments, which may be user-data)
    /// with the tool's last line of output.
    pub fn run(&self, argv: &[String]) -> Result<(), String> {
        let name = argv.first().ok_or("empty command")?;
        let out = self.output(argv, DISK_TOOL).map_err(|e| e.message)?;
        if out.status.success() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&out.stderr);
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        Err(format!("{name} failed ({}): {}", out.status, last.trim()))
    }

    /// Runs `argv` within `bounds` and returns what it printed and how it exited, for a tool
    /// whose output is the answer (VMware's `vmware-rpctool`); the error says only that it
    /// could not start, ran past its deadline or printed past its budget.
    pub fn output(&self, argv: &[String], bounds: Bounds) -> Result<Output, ToolError> {
        let name = argv.first().ok_or(ToolError::other("empty command"))?;
        let (mut cmd, bound) = match self.find(name) {
            Some(Found::Here(p)) => (Command::new(p), Vec::new()),
            Some(Found::InTarget) => {
                let mut c = Command::new("chroot");
                c.arg(self.target).arg(name);
                (c, self.bind().map_err(ToolError::other)?)
            }
            None => {
                let msg = format!("{name} is in neither the initramfs nor the target");
                return Err(ToolError::other(msg));
            }
        };
        cmd.args(&argv[1..])
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        let out = child::output(&mut cmd, bounds);
        for p in bound.iter().rev() {
            // Busy (a process left behind): detach it, so the pivot can go on.
            let _ = unmount(p, UnmountFlags::DETACH);
        }
        out.map_err(|e| ToolError {
            killed: matches!(e, ChildError::Deadline(_) | ChildError::TooMuchOutput(_)),
            message: format!("{name} {e}"),
        })
    }

    /// The initramfs's /dev, /proc and /sys bound on the target's own directories, which
    /// must be plain directories (a symlink there could point the mount anywhere).
    fn bind(&self) -> Result<Vec<PathBuf>, String> {
        let mut done = Vec::new();
        for d in BOUND {
            let at = self.target.join(d);
            let plain = std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir());
            let result = if plain {
                mount_bind(self.host.path(&format!("/{d}")), &at).map_err(|e| e.to_string())
            } else {
                Err("not a plain directory".into())
            };
            if let Err(e) = result {
                for p in done.iter().rev() {
                    let _ = unmount(p, UnmountFlags::DETACH);
                }
                return Err(format!(
                    "cannot bind /{d} into the target to run its tools: {e}"
                ));
            }
            done.push(at);
        }
        Ok(done)
    }
}
