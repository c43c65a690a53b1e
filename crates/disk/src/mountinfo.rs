//! `/proc/self/mountinfo`, read: which device is mounted where, with which filesystem.
//! proc(5): `id parent major:minor root mountpoint options [optional…] - fstype source superoptions`.

use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
pub struct Mount {
    pub major: u32,
    pub minor: u32,
    pub mountpoint: PathBuf,
    pub fstype: String,
    pub source: String,
}

/// Every mount, in the file's order (a later mount on the same point hides earlier ones).
pub fn parse(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Mount> {
    let (head, tail) = line.split_once(" - ")?;
    let mut head = head.split(' ');
    let (major, minor) = head.nth(2)?.split_once(':')?;
    let mountpoint = unescape(head.nth(1)?);
    let mut tail = tail.split(' ');
    Some(Mount {
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
        mountpoint: PathBuf::from(mountpoint),
        fstype: tail.next()?.to_string(),
        source: unescape(tail.next()?),
    })
}

/// The kernel writes space, tab, newline and backslash as `\ooo`.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (bytes[i], octal) {
            (b'\\', Some(d)) => {
                out.push((d[0] - b'0') << 6 | (d[1] - b'0') << 3 | (d[2] - b'0'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The mount visible at `mountpoint`: the last one listed there.
pub fn at<'a>(mounts: &'a [Mount], mountpoint: &Path) -> Option<&'a Mount> {
    mounts.iter().rev().find(|m| m.mountpoint == mountpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_device_numbers_type_and_escaped_paths() {
        let text = "22 1 0:5 / / rw shared:1 - rootfs rootfs rw\n\
                    30 22 254:1 / /sys\\040root rw,relatime shared:9 master:1 - ext4 /dev/vda1 rw\n\
                    31 22 254:1 / /sysroot rw - ext4 /dev/vda1 rw\n\
                    32 22 254:2 / /sysroot ro - xfs /dev/vda2 ro\n\
                    broken line\n";
        let mounts = parse(text);
        assert_eq!(mounts.len(), 4);
        assert_eq!(mounts[1].mountpoint, Path::new("/sys root"));
        let root = at(&mounts, Path::new("/sysroot")).unwrap();
        assert_eq!(
            (root.major, root.minor, root.fstype.as_str()),
            (254, 2, "xfs")
        );
        assert_eq!(root.source, "/dev/vda2");
        assert!(at(&mounts, Path::new("/nowhere")).is_none());
    }
}
