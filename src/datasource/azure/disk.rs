//! Azure's resource disk (the temporary local disk): found in sysfs the way cloud-init's
//! udev rule names it `/dev/disk/cloud/azure_resource` (a VMBus device id starting
//! `{00000000-0001-`), so it is known in an initramfs without that rule. It becomes the
//! `ephemeral0` alias; cloud-init's GPT + one ext4 partition layout is added only while the
//! disk is as Azure hands it out (one NTFS partition), so a formatted disk is never touched.

use crate::disk::io::DeviceFile;
use crate::disk::{signature, table};
use crate::host::Host;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The prefix of the VMBus `device_id` of the resource disk's SCSI controller slot.
const RESOURCE_ID_PREFIX: &str = "{00000000-0001-";

/// The resource disk's kernel name (`sdb`) and node, if there is one.
pub fn find(host: &Host) -> Option<(String, PathBuf)> {
    let mut names: Vec<String> = std::fs::read_dir(host.sys_block())
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("sd") && n.chars().skip(2).all(|c| c.is_ascii_lowercase()))
        .collect();
    ember_core::sort::sort(&mut names);
    names
        .into_iter()
        .find(|n| is_resource(host, n))
        .map(|n| (n.clone(), host.dev(&n)))
}

/// Walks from the block device up its sysfs ancestors to the VMBus device and its id.
fn is_resource(host: &Host, name: &str) -> bool {
    let Ok(mut dir) = std::fs::canonicalize(host.sys_block().join(name)) else {
        return false;
    };
    let top = host.path("/sys");
    // A few levels: block → scsi device → target → host → VMBus device.
    for _ in 0..12 {
        if let Ok(id) = std::fs::read_to_string(dir.join("device_id")) {
            return id
                .trim()
                .to_ascii_lowercase()
                .starts_with(RESOURCE_ID_PREFIX);
        }
        if !dir.pop() || !dir.starts_with(&top) {
            return false;
        }
    }
    false
}

/// Whether the disk holds what Azure puts on a new resource disk: one partition, NTFS.
/// Anything else (ext4 from an earlier boot, no table, two partitions) is not fresh.
pub fn fresh(node: &Path) -> bool {
    let Ok(mut dev) = DeviceFile::open(node, false) else {
        return false;
    };
    let Ok(parts) = table::partitions(&mut dev) else {
        return false;
    };
    let [part] = parts.as_slice() else {
        return false;
    };
    let offset = part
        .start
        .saturating_mul(crate::disk::io::BlockIo::sector_size(&dev));
    matches!(signature::probe(&mut dev, offset), Ok(Some("ntfs")))
}

/// The platform config for the disk: its alias, and cloud-init's layout when it is fresh.
pub fn config(node: &str, fresh: bool) -> Value {
    let mut cfg = json!({"device_aliases": {"ephemeral0": node}});
    if fresh {
        cfg["disk_setup"] = json!({
            "ephemeral0": {"table_type": "gpt", "layout": [100], "overwrite": true}
        });
        cfg["fs_setup"] = json!([{"filesystem": "ext4", "device": "ephemeral0.1"}]);
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn found_by_its_vmbus_id() {
        let dir = std::env::temp_dir().join(format!("ember-azure-disk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let devices = dir.join("sys/devices/vmbus");
        for (guid, disk, id) in [
            ("f8b3781a", "sda", "{00000000-0000-8899-0000-000000000000}"),
            ("f8b3781b", "sdb", "{00000000-0001-8899-0000-000000000000}"),
        ] {
            let block = devices
                .join(guid)
                .join("host0/target0/0:0:0:0/block")
                .join(disk);
            std::fs::create_dir_all(&block).unwrap();
            std::fs::write(devices.join(guid).join("device_id"), format!("{id}\n")).unwrap();
            std::fs::create_dir_all(dir.join("sys/class/block")).unwrap();
            symlink(&block, dir.join("sys/class/block").join(disk)).unwrap();
        }
        let host = Host::new(&dir);
        let (name, node) = find(&host).unwrap();
        assert_eq!(name, "sdb");
        assert_eq!(node, dir.join("dev/sdb"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A disk image with one MBR partition from sector 2048, holding `fs_magic` at offset 3.
    fn image(name: &str, parts: u8, fs_magic: &[u8]) -> PathBuf {
        let path = std::env::temp_dir().join(format!("ember-azure-{name}-{}", std::process::id()));
        let mut disk = vec![0u8; 4 << 20];
        for i in 0..parts as usize {
            let e = 446 + i * 16;
            disk[e + 4] = 0x07;
            let start = 2048 + i as u32 * 2048;
            disk[e + 8..e + 12].copy_from_slice(&start.to_le_bytes());
            disk[e + 12..e + 16].copy_from_slice(&2048u32.to_le_bytes());
        }
        disk[510..512].copy_from_slice(&[0x55, 0xAA]);
        let at = 2048 * 512 + 3;
        disk[at..at + fs_magic.len()].copy_from_slice(fs_magic);
        std::fs::write(&path, disk).unwrap();
        path
    }

    #[test]
    fn fresh_only_as_azure_hands_it_out() {
        let ntfs = image("ntfs", 1, b"NTFS    ");
        assert!(fresh(&ntfs));
        let two = image("two", 2, b"NTFS    ");
        assert!(!fresh(&two), "two partitions: not the platform's");
        let other = image("other", 1, b"MSDOS5.0");
        assert!(!fresh(&other), "not NTFS: ember's or the user's");
        for p in [ntfs, two, other] {
            std::fs::remove_file(p).unwrap();
        }
    }

    #[test]
    fn layout_only_for_a_fresh_disk() {
        let cfg = config("/dev/sdb", false);
        assert_eq!(cfg["device_aliases"]["ephemeral0"], "/dev/sdb");
        assert!(cfg.get("disk_setup").is_none());
        let cfg = config("/dev/sdb", true);
        assert_eq!(cfg["fs_setup"][0]["device"], "ephemeral0.1");
        assert!(!fresh(Path::new("/nonexistent")));
    }
}
