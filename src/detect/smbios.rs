//! The DMI fields ember reads, taken from the firmware's SMBIOS tables
//! (`/sys/firmware/dmi/tables/{smbios_entry_point,DMI}`) on a kernel without
//! /sys/class/dmi/id: the BIOS (type 0), system (1), baseboard (2) and chassis (3) structures,
//! named as sysfs names them. Read as the kernel's `dmi_id` does: strings by their 1-based
//! number, the system UUID in SMBIOS 2.6's byte order (the first three fields little-endian).

use crate::host::Host;
use std::collections::BTreeMap;

/// Far beyond any real table (a few KiB), far below what would hurt an initramfs.
const TABLE_MAX: u64 = 1 << 20;

/// (structure type, offset of its string number, sysfs name).
const STRINGS: [(u8, usize, &str); 9] = [
    (0, 0x04, "bios_vendor"),
    (1, 0x04, "sys_vendor"),
    (1, 0x05, "product_name"),
    (1, 0x07, "product_serial"),
    (2, 0x04, "board_vendor"),
    (2, 0x05, "board_name"),
    (2, 0x07, "board_serial"),
    (3, 0x07, "chassis_serial"),
    (3, 0x08, "chassis_asset_tag"),
];
const UUID_OFFSET: usize = 0x08;
const END_OF_TABLE: u8 = 127;

/// The fields the host's tables hold; empty when there are none or they cannot be read.
pub fn read(host: &Host) -> BTreeMap<String, String> {
    let dir = host.path("/sys/firmware/dmi/tables");
    let Ok(table) = crate::regular::read(&dir.join("DMI"), TABLE_MAX) else {
        return BTreeMap::new();
    };
    let entry = crate::regular::read(&dir.join("smbios_entry_point"), 64).unwrap_or_default();
    parse(&table, version(&entry))
}

/// The SMBIOS version the entry point states as (major, minor); 3.0 when it states none, as
/// a kernel new enough to lack /sys/class/dmi/id runs on modern firmware.
pub fn version(entry: &[u8]) -> (u8, u8) {
    if entry.starts_with(b"_SM3_") && entry.len() > 8 {
        return (entry[7], entry[8]);
    }
    if entry.starts_with(b"_SM_") && entry.len() > 7 {
        return (entry[6], entry[7]);
    }
    (3, 0)
}

/// The fields of a table, first structure of each type winning, as the kernel keeps them.
pub fn parse(table: &[u8], version: (u8, u8)) -> BTreeMap<String, String> {
    let mut fields = BTreeMap::new();
    let mut at = 0;
    while at + 4 <= table.len() {
        let kind = table[at];
        let len = usize::from(table[at + 1]);
        if len < 4 || at + len > table.len() {
            break;
        }
        let formatted = &table[at..at + len];
        let strings_end = end_of_strings(table, at + len);
        let strings: Vec<&[u8]> = table[at + len..strings_end.min(table.len())]
            .split(|b| *b == 0)
            .collect();
        for (t, offset, name) in STRINGS {
            if t != kind || fields.contains_key(name) {
                continue;
            }
            let number = formatted.get(offset).copied().unwrap_or(0);
            let Some(text) = usize::from(number)
                .checked_sub(1)
                .and_then(|i| strings.get(i))
            else {
                continue;
            };
            let text = String::from_utf8_lossy(text).trim().to_string();
            if !text.is_empty() {
                fields.insert(name.to_string(), text);
            }
        }
        if kind == 1 && !fields.contains_key("product_uuid") {
            if let Some(uuid) = formatted.get(UUID_OFFSET..UUID_OFFSET + 16) {
                if let Some(text) = uuid_text(uuid, version >= (2, 6)) {
                    fields.insert("product_uuid".into(), text);
                }
            }
        }
        if kind == END_OF_TABLE {
            break;
        }
        at = strings_end + 2;
    }
    fields
}

/// Where the string set after a structure's formatted area ends: the first of two NULs (a set
/// with no strings is two NULs at once).
fn end_of_strings(table: &[u8], from: usize) -> usize {
    let mut i = from;
    while i + 1 < table.len() {
        if table[i] == 0 && table[i + 1] == 0 {
            return i;
        }
        i += 1;
    }
    table.len()
}

/// A UUID as the kernel shows it, lowercase; None when the firmware says "not present" (all
/// 0xFF) or "not set" (all zero).
fn uuid_text(b: &[u8], little_endian: bool) -> Option<String> {
    if b.iter().all(|x| *x == 0xFF) || b.iter().all(|x| *x == 0) {
        return None;
    }
    let order: [usize; 16] = if little_endian {
        [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15]
    } else {
        std::array::from_fn(|i| i)
    };
    let mut out = String::new();
    for (n, i) in order.iter().enumerate() {
        if [4, 6, 8, 10].contains(&n) {
            out.push('-');
        }
        out.push_str(&format!("{:02x}", b[*i]));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One structure: type, formatted area after the 4-byte header, strings.
    fn structure(kind: u8, formatted: &[u8], strings: &[&str]) -> Vec<u8> {
        let mut s = vec![kind, (4 + formatted.len()) as u8, 0, 0];
        s.extend_from_slice(formatted);
        for text in strings {
            s.extend_from_slice(text.as_bytes());
            s.push(0);
        }
        if strings.is_empty() {
            s.push(0);
        }
        s.push(0);
        s
    }

    #[test]
    fn reads_the_four_structures_as_sysfs_names_them() {
        let uuid = [
            0x2A, 0xEC, 0x23, 0xEC, 0xBE, 0x54, 0x43, 0x48, 0x8D, 0x24, 0x8C, 0x81, 0x9F, 0x88,
            0x45, 0x3E,
        ];
        let mut system = vec![1, 2, 0, 3];
        system.extend_from_slice(&uuid);
        let mut table = structure(0, &[1, 0, 0], &["Amazon EC2"]);
        table.extend(structure(1, &system, &["Hetzner", "vServer", "1234"]));
        table.extend(structure(2, &[1, 2, 0, 0], &["Board Inc", "LXD"]));
        table.extend(structure(
            3,
            &[0, 1, 0, 0, 2],
            &["Other", "OracleCloud.com"],
        ));
        table.extend(structure(END_OF_TABLE, &[], &[]));
        let f = parse(&table, (3, 0));
        let get = |k: &str| f.get(k).map(String::as_str);
        assert_eq!(get("bios_vendor"), Some("Amazon EC2"));
        assert_eq!(get("sys_vendor"), Some("Hetzner"));
        assert_eq!(get("product_name"), Some("vServer"));
        assert_eq!(get("product_serial"), Some("1234"));
        assert_eq!(get("board_name"), Some("LXD"));
        assert_eq!(get("chassis_asset_tag"), Some("OracleCloud.com"));
        assert_eq!(
            get("product_uuid"),
            Some("ec23ec2a-54be-4843-8d24-8c819f88453e")
        );
        let old = parse(&table, (2, 4));
        assert_eq!(
            old.get("product_uuid").map(String::as_str),
            Some("2aec23ec-be54-4348-8d24-8c819f88453e")
        );
    }

    #[test]
    fn truncated_or_hostile_tables_stop_without_panicking() {
        let full = structure(1, &[1, 2, 0, 3], &["Vendor", "Name", "Serial"]);
        for cut in 0..full.len() {
            let _ = parse(&full[..cut], (3, 0));
        }
        // A string number past the set, a length below the header's.
        assert!(parse(&structure(1, &[9, 0, 0, 0], &["x"]), (3, 0)).is_empty());
        assert!(parse(&[1, 2, 0, 0, 0, 0], (3, 0)).is_empty());
        assert_eq!(version(b"_SM_\x1f\x1f\x02\x08"), (2, 8));
        assert_eq!(version(b"_SM3_\x00\x18\x03\x02"), (3, 2));
        assert_eq!(version(b""), (3, 0));
    }
}
