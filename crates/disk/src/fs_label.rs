//! A filesystem's label, from its superblock, for the types fs_setup makes (blkid's LABEL):
//! fs_setup reuses a filesystem only when its type and label are the ones asked for.

use super::io::BlockIo;

/// (offset, length) of the label of `fstype` (blkid's name), as the on-disk formats put it.
fn field(fstype: &str, io: &mut dyn BlockIo) -> Option<(u64, usize)> {
    Some(match fstype {
        "ext2" | "ext3" | "ext4" => (1024 + 0x78, 16),
        "xfs" => (108, 12),
        "btrfs" => (65536 + 0x12b, 256),
        "swap" => (1024 + 28, 16),
        "vfat" => {
            // FAT32 keeps it further in: its BPB has 0 root entries and 0 16-bit sectors per FAT.
            let mut bpb = [0u8; 2];
            io.read_at(0x16, &mut bpb).ok()?;
            if bpb == [0, 0] {
                (0x47, 11)
            } else {
                (0x2b, 11)
            }
        }
        _ => return None,
    })
}

/// The label, `None` when empty or unknown. A FAT volume without a label says "NO NAME".
pub fn read(io: &mut dyn BlockIo, fstype: &str) -> Option<String> {
    let (off, len) = field(fstype, io)?;
    let mut raw = vec![0u8; len];
    io.read_at(off, &mut raw).ok()?;
    let end = raw.iter().position(|&b| b == 0).unwrap_or(len);
    let label = String::from_utf8_lossy(&raw[..end]).trim_end().to_string();
    let unnamed = label.is_empty() || (fstype == "vfat" && label == "NO NAME");
    (!unnamed).then_some(label)
}
