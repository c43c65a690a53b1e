//! Block devices and their filesystem labels, read from the superblocks directly: no blkid,
//! no udev, no mount. Devices come from /sys/class/block; nodes from /dev.

use crate::host::Host;
use crate::seedfs::{self, FsKind};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelledDevice {
    /// Kernel name: `sr0`, `vdb1`.
    pub name: String,
    /// The node as the host sees it (under the host prefix in tests).
    pub node: PathBuf,
    /// `iso9660`, `vfat`, `ext`.
    pub fs: String,
    pub labels: Vec<String>,
    /// The filesystem UUID as blkid shows it, where ember reads one (a VFAT serial:
    /// IBM Cloud marks its config drive so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The kernel's removable flag, or a hot-plug bus (USB, FireWire, MMC/SD, Memory Stick)
    /// in its sysfs path: a seed on removable media is a physical-access door.
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

/// Whether a sysfs device path component names a hot-plug bus: `usb2` (a USB root hub; every
/// USB disk and card reader hangs below one), `fw1` / `ieee1394` (FireWire), `mmc0`,
/// `mmc_host` (SD/MMC, SDIO), `memstick0`.
fn hotplug_bus(component: &str) -> bool {
    let numbered = |prefix: &str| {
        component
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    ["usb", "fw", "mmc", "memstick"].iter().any(|p| numbered(p))
        || matches!(component, "ieee1394" | "firewire" | "mmc_host" | "memstick")
}

/// Whether `/sys/class/block/<dev>` leads (through its link into /sys/devices) to a device
/// on a hot-plug bus. Most USB disks and sticks report `removable` 0, so the flag alone
/// would let anyone with a USB port re-provision the machine.
fn on_hotplug_bus(sys: &Path) -> bool {
    std::fs::read_link(sys).is_ok_and(|target| {
        target
            .components()
            .any(|c| c.as_os_str().to_str().is_some_and(hotplug_bus))
    })
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
    ember_core::sort::sort(&mut names);
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
    let flagged = read_trimmed(sys.join("removable"))
        .or_else(|| read_trimmed(sys.join("../removable")))
        .as_deref()
        == Some("1");
    let removable = flagged || on_hotplug_bus(&sys);
    Some(LabelledDevice {
        name,
        node,
        fs: fs.to_string(),
        labels: probe.labels,
        uuid: probe.uuid,
        removable,
    })
}

#[cfg(test)]
mod tests {
    use super::hotplug_bus;

    #[test]
    fn hotplug_bus_components() {
        let yes = ["usb2", "fw1", "ieee1394", "mmc0", "mmc_host", "memstick0"];
        let no = [
            "pci0000:00",
            "0000:00:14.0",
            "virtio2",
            "ata1",
            "host6",
            "block",
            "fw",
        ];
        assert!(yes.iter().all(|c| hotplug_bus(c)), "{yes:?}");
        assert!(no.iter().all(|c| !hotplug_bus(c)), "{no:?}");
    }
}
