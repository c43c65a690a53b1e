//! Loop devices for the disk tests: image files attached with `losetup --partscan`, detached
//! on drop. They need root and a kernel with loop devices; elsewhere the tests say SKIP.

use super::Machine;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Loop {
    /// `/dev/loop3`; partitions are `/dev/loop3p1`…
    pub dev: String,
    pub file: PathBuf,
}

impl Loop {
    /// A sparse image of `mib` MiB at `file`, attached.
    pub fn new(file: &Path, mib: u64) -> Loop {
        let f = std::fs::File::create(file).unwrap();
        f.set_len(mib << 20).unwrap();
        Loop::attach(file)
    }

    pub fn attach(file: &Path) -> Loop {
        let out = Command::new("losetup")
            .args(["--find", "--partscan", "--show"])
            .arg(file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "losetup: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        // Some kernels (this CI's) parse no partition tables: partx adds them with BLKPG.
        if !Path::new(&format!("{dev}p1")).exists() {
            let _ = Command::new("partx").args(["-a", &dev]).output();
        }
        Loop {
            dev,
            file: file.to_path_buf(),
        }
    }

    /// `/dev/loop3p1`.
    pub fn part(&self, n: u32) -> String {
        format!("{}p{n}", self.dev)
    }

    /// The kernel's idea of a device's size, in 512-byte sectors.
    pub fn kernel_sectors(name: &str) -> u64 {
        let name = name.trim_start_matches("/dev/");
        std::fs::read_to_string(format!("/sys/class/block/{name}/size"))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// Whether loop devices can be made here; prints SKIP when not.
pub fn available() -> bool {
    let root = rustix_uid_is_root();
    let ok = root && Path::new("/dev/loop-control").exists() && super::have("losetup");
    if !ok {
        super::skip("loop devices need root and /dev/loop-control");
    }
    ok
}

fn rustix_uid_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
    })
}

/// Points the machine's host tree at this machine's real /dev, block devices, mount table
/// and memory size, so ember-initrd sees the loop devices.
pub fn real_host(m: &Machine) {
    for (rel, real) in [
        ("dev", "/dev"),
        ("sys/class/block", "/sys/class/block"),
        ("proc/self", "/proc/self"),
        ("proc/meminfo", "/proc/meminfo"),
    ] {
        let at = m.host.join(rel);
        let _ = std::fs::remove_dir_all(&at);
        let _ = std::fs::remove_file(&at);
        std::os::unix::fs::symlink(real, &at).unwrap();
    }
}

/// Runs a command, failing the test with its stderr.
pub fn sh(cmd: &str) -> String {
    let out = Command::new("sh").args(["-c", cmd]).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
