//! Which block device lies under a mount point, a `root=` argument or a device path, and what
//! it is: a partition (of which disk, which number), a whole disk, or a device-mapper volume
//! (LVM, LUKS). Read from sysfs and /dev under the host prefix: no udev, no blkid.

use super::mountinfo::{self, Mount};
use crate::host::Host;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
pub enum Underlying {
    /// Partition `number` of `disk` (kernel names: `vda1` on `vda`).
    Partition {
        name: String,
        disk: String,
        number: u32,
    },
    Disk(String),
    /// `dm-0` and friends: LVM or LUKS, whose partitions ember does not grow.
    DeviceMapper(String),
}

impl Underlying {
    pub fn name(&self) -> &str {
        match self {
            Underlying::Partition { name, .. } => name,
            Underlying::Disk(n) | Underlying::DeviceMapper(n) => n,
        }
    }
}

fn read_trimmed(path: PathBuf) -> Option<String> {
    Some(std::fs::read_to_string(path).ok()?.trim().to_string())
}

/// The mount at `mountpoint` in the host's mountinfo (the last, if several).
pub fn mount_at(host: &Host, mountpoint: &Path) -> Option<Mount> {
    let text = std::fs::read_to_string(host.path("/proc/self/mountinfo")).ok()?;
    mountinfo::at(&mountinfo::parse(&text), mountpoint).cloned()
}

/// The kernel name of the block device with these numbers (sysfs `dev` files).
pub fn by_numbers(host: &Host, major: u32, minor: u32) -> Option<String> {
    let wanted = format!("{major}:{minor}");
    std::fs::read_dir(host.sys_block())
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|name| {
            read_trimmed(host.sys_block().join(name).join("dev")).as_deref() == Some(&*wanted)
        })
}

/// A `root=` value or a device path: `/dev/vda1`, `LABEL=…`, `UUID=…`, `PARTUUID=…`,
/// `PARTLABEL=…` (the last four through udev's /dev/disk/by-* links, which dracut and
/// systemd initramfs have; ember's own initramfs mounts the root itself, and its mount is
/// found first).
pub fn by_spec(host: &Host, spec: &str) -> Option<String> {
    let link = match spec.split_once('=') {
        Some(("LABEL", v)) => host.path("/dev/disk/by-label").join(v),
        Some(("UUID", v)) => host.path("/dev/disk/by-uuid").join(v.to_ascii_lowercase()),
        Some(("PARTUUID", v)) => host
            .path("/dev/disk/by-partuuid")
            .join(v.to_ascii_lowercase()),
        Some(("PARTLABEL", v)) => host.path("/dev/disk/by-partlabel").join(v),
        Some(_) => return None,
        None => PathBuf::from(spec),
    };
    if link.is_absolute() && !link.starts_with(host.prefix()) {
        // A plain /dev path: the host's.
        return by_spec(host, &host.path(spec).display().to_string());
    }
    let target = std::fs::read_link(&link).unwrap_or(link);
    let name = target.file_name()?.to_str()?.to_string();
    host.sys_block().join(&name).exists().then_some(name)
}

/// What the device `name` is.
pub fn describe(host: &Host, name: &str) -> Option<Underlying> {
    let sys = host.sys_block().join(name);
    if !sys.exists() {
        return None;
    }
    if name.starts_with("dm-") || sys.join("dm").exists() {
        return Some(Underlying::DeviceMapper(name.to_string()));
    }
    let Some(number) = read_trimmed(sys.join("partition")).and_then(|n| n.parse().ok()) else {
        return Some(Underlying::Disk(name.to_string()));
    };
    // In sysfs a partition is a directory inside its disk's.
    let disk = std::fs::read_dir(host.sys_block())
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|d| d != name && host.sys_block().join(d).join(name).is_dir())?;
    Some(Underlying::Partition {
        name: name.to_string(),
        disk,
        number,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (PathBuf, Host) {
        let dir = std::env::temp_dir().join(format!("ember-device-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let host = Host::new(&dir);
        for (rel, text) in [
            ("sys/class/block/vda/dev", "254:0\n"),
            ("sys/class/block/vda/vda1/partition", "1\n"),
            ("sys/class/block/vda1/dev", "254:1\n"),
            ("sys/class/block/vda1/partition", "1\n"),
            ("sys/class/block/dm-0/dev", "253:0\n"),
            ("sys/class/block/dm-0/dm/name", "vg-root\n"),
            (
                "proc/self/mountinfo",
                "30 1 254:1 / /sysroot rw - ext4 /dev/vda1 rw\n",
            ),
        ] {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        std::fs::create_dir_all(dir.join("dev/disk/by-label")).unwrap();
        std::os::unix::fs::symlink("../../vda1", dir.join("dev/disk/by-label/root")).unwrap();
        (dir, host)
    }

    #[test]
    fn finds_the_partition_under_a_mount_or_a_root_spec() {
        let (dir, host) = tree();
        let m = mount_at(&host, Path::new("/sysroot")).unwrap();
        assert_eq!(by_numbers(&host, m.major, m.minor).as_deref(), Some("vda1"));
        let part = Underlying::Partition {
            name: "vda1".into(),
            disk: "vda".into(),
            number: 1,
        };
        assert_eq!(describe(&host, "vda1"), Some(part));
        assert_eq!(by_spec(&host, "LABEL=root").as_deref(), Some("vda1"));
        assert_eq!(by_spec(&host, "/dev/vda1").as_deref(), Some("vda1"));
        assert_eq!(by_spec(&host, "UUID=nowhere"), None);
        assert_eq!(describe(&host, "vda"), Some(Underlying::Disk("vda".into())));
        assert_eq!(
            describe(&host, "dm-0"),
            Some(Underlying::DeviceMapper("dm-0".into()))
        );
        assert_eq!(describe(&host, "sdz"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
