//! Block devices and their filesystem labels, read from the superblocks directly: no blkid,
//! no udev, no mount. Devices come from /sys/class/block; nodes from /dev.

use crate::host::Host;
use crate::seedfs::{self, FsKind};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelledDevice {
    /// Kernel name: `sr0`, `vdb1`.
    pub name: String,
    /// The node as the host sees it (under the host prefix in tests).
    pub node: PathBuf,
    /// `iso9660`, `vfat`, `ext`.
    pub fs: String,
    pub labels: Vec<String>,
    /// The kernel's removable flag: a seed on removable media is a physical-access door.
    pub removable: bool,
}

impl LabelledDevice {
    pub fn has_label(&self, wanted: &str) -> bool {
        self.labels.iter().any(|l| l.eq_ignore_ascii_case(wanted))
    }
    /// How cloud-init names the device: `/dev/sr0`.
    pub fn dev_name(&self) -> String {
        format!("/dev/{}", self.name)
    }
}

/// RAM disks never hold a seed; an unconnected nbd device would only return errors.
fn skipped(name: &str) -> bool {
    ["ram", "zram", "nbd"].iter().any(|p| name.starts_with(p))
}

fn read_trimmed(path: PathBuf) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// Every block device with a recognised filesystem, sorted by name (so the choice is stable).
pub fn scan(host: &Host) -> Vec<LabelledDevice> {
    let Ok(entries) = std::fs::read_dir(host.sys_block()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| !skipped(n))
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| probe_one(host, name))
        .collect()
}

fn probe_one(host: &Host, name: String) -> Option<LabelledDevice> {
    let sys = host.sys_block().join(&name);
    if read_trimmed(sys.join("size")).as_deref() == Some("0") {
        return None; // an empty CD drive: opening it would only wait for media
    }
    let node = host.dev(&name);
    let mut file = std::fs::File::open(&node).ok()?;
    let probe = seedfs::probe(&mut file).ok()??;
    let fs = match probe.kind {
        FsKind::Udf => "udf",
        FsKind::Iso9660 => "iso9660",
        FsKind::Vfat => "vfat",
        FsKind::Ext => "ext",
    };
    // Partitions carry the flag on their parent disk.
    let removable = read_trimmed(sys.join("removable"))
        .or_else(|| read_trimmed(sys.join("../removable")))
        .as_deref()
        == Some("1");
    Some(LabelledDevice {
        name,
        node,
        fs: fs.to_string(),
        labels: probe.labels,
        removable,
    })
}
