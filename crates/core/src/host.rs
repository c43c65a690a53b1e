//! Every host path ember reads (the initramfs's own /proc, /sys, /dev, /etc) comes from here,
//! under a prefix, so tests point them at a fake tree and need no root.

use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Host {
    prefix: PathBuf,
}

impl Host {
    pub fn new(prefix: impl Into<PathBuf>) -> Host {
        Host {
            prefix: prefix.into(),
        }
    }
    pub fn prefix(&self) -> &Path {
        &self.prefix
    }
    /// An absolute host path (`/proc/cmdline`) under the prefix.
    pub fn path(&self, abs: &str) -> PathBuf {
        self.prefix.join(abs.trim_start_matches('/'))
    }
    pub fn proc_cmdline(&self) -> PathBuf {
        self.path("/proc/cmdline")
    }
    /// PID 1's command line: in a container, where cloud-init looks for `KERNEL_CMDLINE`.
    pub fn proc1_cmdline(&self) -> PathBuf {
        self.path("/proc/1/cmdline")
    }
    pub fn proc1_environ(&self) -> PathBuf {
        self.path("/proc/1/environ")
    }
    pub fn dmi_dir(&self) -> PathBuf {
        self.path("/sys/class/dmi/id")
    }
    pub fn sys_block(&self) -> PathBuf {
        self.path("/sys/class/block")
    }
    pub fn dev(&self, name: &str) -> PathBuf {
        self.path("/dev").join(name)
    }
    pub fn etc(&self, rel: &str) -> PathBuf {
        self.path("/etc").join(rel)
    }
    pub fn boot_id(&self) -> PathBuf {
        self.path("/proc/sys/kernel/random/boot_id")
    }
}

/// Whether `<proc>/<pid>` exists. The proc directory is a parameter so tests can use a fake
/// one; the runner passes the real `/proc` (not the target's: it is the running system).
pub fn pid_alive(proc: &std::path::Path, pid: u32) -> bool {
    proc.join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_pid_is_alive() {
        assert!(pid_alive(std::path::Path::new("/proc"), std::process::id()));
        assert!(!pid_alive(
            std::path::Path::new("/nonexistent-proc"),
            std::process::id()
        ));
    }
}
