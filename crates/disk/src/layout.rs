//! cloud-init's `disk_setup` layouts turned into partitions to create: `layout: true` (one
//! partition, the whole disk) or a list of percentages and `[percent, type]` pairs. Pure: no
//! disk is read here; `table::create` writes the result.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#disk-setup>

use super::table::TableKind;
use serde_json::Value;
use std::fmt;

/// A partition type, in the form the table kind stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartType {
    /// The MBR type byte (0x83 Linux, 0x82 swap, ...).
    Mbr(u8),
    /// The GPT type GUID.
    Gpt(Guid),
}

/// A partition to create; `sectors: None` takes the rest of the disk (the last one only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewPart {
    pub sectors: Option<u64>,
    pub type_: PartType,
}

/// A GUID in its on-disk byte order (the first three fields little-endian).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guid(pub [u8; 16]);

impl Guid {
    /// Parses the text form, `0FC63DAF-8483-4772-8E79-3D69D8477DE4`, in either case.
    pub fn parse(s: &str) -> Option<Guid> {
        let b = s.as_bytes();
        if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
            return None;
        }
        let hex: Vec<u8> = b.iter().copied().filter(|&c| c != b'-').collect();
        let mut text = [0u8; 16];
        for (i, pair) in hex.chunks(2).enumerate() {
            let s = std::str::from_utf8(pair).ok()?;
            if pair.len() != 2 || !pair.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            *text.get_mut(i)? = u8::from_str_radix(s, 16).ok()?;
        }
        Some(Guid(swap_fields(text)))
    }

    /// A random (version 4) GUID from getrandom.
    pub fn random() -> std::io::Result<Guid> {
        let mut b = [0u8; 16];
        let mut filled = 0;
        while filled < b.len() {
            filled +=
                rustix::rand::getrandom(&mut b[filled..], rustix::rand::GetRandomFlags::empty())?;
        }
        let mut text = swap_fields(b);
        text[6] = (text[6] & 0x0f) | 0x40;
        text[8] = (text[8] & 0x3f) | 0x80;
        Ok(Guid(swap_fields(text)))
    }

    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }
}

/// Converts between text order and on-disk order (the swap is its own inverse).
fn swap_fields(mut b: [u8; 16]) -> [u8; 16] {
    b[0..4].reverse();
    b[4..6].reverse();
    b[6..8].reverse();
    b
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, x) in swap_fields(self.0).iter().enumerate() {
            if [4, 6, 8, 10].contains(&i) {
                f.write_str("-")?;
            }
            write!(f, "{x:02X}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// sgdisk's four-digit codes for the GPT types a cloud image meets, as gdisk names them.
const SGDISK_CODES: &[(&str, &str)] = &[
    ("0700", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7"), // Microsoft basic data
    ("0c01", "E3C9E316-0B5C-4DB8-817D-F92DF00215AE"), // Microsoft reserved
    ("8200", "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F"), // Linux swap
    ("8300", "0FC63DAF-8483-4772-8E79-3D69D8477DE4"), // Linux filesystem
    ("8301", "8DA63339-0007-60C0-C436-083AC8230908"), // Linux reserved
    ("8302", "933AC7E1-2EB4-4F13-B844-0E14E2AEF915"), // Linux /home
    ("8303", "44479540-F297-41B2-9AF7-D131D5F0458A"), // Linux x86 root
    ("8304", "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709"), // Linux x86-64 root
    ("8305", "B921B045-1DF0-41C3-AF44-4C6F280D3FAE"), // Linux ARM64 root
    ("8306", "3B8F8425-20E0-4F3B-907F-1A25A76F98E8"), // Linux /srv
    ("8307", "69DAD710-2CE4-4E3C-B16C-21A1D49ABED3"), // Linux ARM32 root
    ("8308", "7FFEC5C9-2D00-49B7-8941-3EA10A5586B7"), // Linux dm-crypt
    ("8309", "CA7D7CCB-63ED-4C53-861C-1742536059CC"), // Linux LUKS
    ("8310", "4D21B016-B534-45C2-A9FB-5C16E091FD2D"), // Linux /var
    ("8311", "7EC6F557-3BC5-4ACA-B293-16EF5DF639D1"), // Linux /var/tmp
    ("8e00", "E6D6D379-F507-44C2-A23C-238F2A3DF928"), // Linux LVM
    ("a504", "516E7CB4-6ECF-11D6-8FF8-00022D09712B"), // FreeBSD data
    ("ef00", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"), // EFI system
    ("ef01", "024DEE41-33E7-11D3-9D69-0008C781F39F"), // MBR partition scheme
    ("ef02", "21686148-6449-6E6F-744E-656564454649"), // BIOS boot
    ("fd00", "A19D880F-05FC-4D3B-A006-743F0F84911E"), // Linux RAID
];

/// sfdisk's one-letter MBR type aliases (extended ones left out: not created).
const SFDISK_ALIASES: &[(&str, u8)] = &[
    ("l", 0x83),
    ("s", 0x82),
    ("u", 0xef),
    ("r", 0xfd),
    ("v", 0x8e),
];

/// The text of a type as given: cloud-init pastes it into sfdisk or sgdisk input, so a
/// YAML number 83 means hex 0x83, like the string "83".
fn type_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) if n.is_u64() => Some(n.to_string()),
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_ascii_lowercase()),
        _ => None,
    }
}

/// Parses a partition type for `kind`; the error says what is accepted.
pub fn part_type(v: &Value, kind: TableKind) -> Result<PartType, String> {
    let text = type_text(v).ok_or_else(|| format!("type {v} is not a number or a string"))?;
    match kind {
        TableKind::Mbr => {
            if let Some((_, t)) = SFDISK_ALIASES.iter().find(|(a, _)| *a == text) {
                return Ok(PartType::Mbr(*t));
            }
            let hex = text.strip_prefix("0x").unwrap_or(&text);
            match u8::from_str_radix(hex, 16) {
                Ok(0) | Err(_) => Err(format!(
                    "type {v} is not an MBR type byte in hex (83 Linux, 82 swap, 0x8e, ...)"
                )),
                Ok(0x05 | 0x0f | 0x85 | 0xee) => Err(format!(
                    "type {v} is an extended or protective type, which disk_setup does not create"
                )),
                Ok(t) => Ok(PartType::Mbr(t)),
            }
        }
        TableKind::Gpt => {
            if let Some(g) = Guid::parse(&text) {
                return Ok(PartType::Gpt(g));
            }
            // cloud-init pads short codes with zeros on the right: 82 is 8200.
            let code = format!("{text:0<4}");
            SGDISK_CODES
                .iter()
                .find(|(c, _)| *c == code)
                .and_then(|(_, g)| Guid::parse(g))
                .map(PartType::Gpt)
                .ok_or_else(|| {
                    format!("type {v} is not a known sgdisk code (8300, 8200, ef00, ...) or a GUID")
                })
        }
    }
}

/// Reads a percentage: a number above 0 and at most 100.
fn percent(v: &Value) -> Option<f64> {
    v.as_f64()
        .filter(|p| p.is_finite() && *p > 0.0 && *p <= 100.0)
}

/// The partitions a `disk_setup` layout asks for on a disk of `disk_bytes`. Each entry takes
/// its percentage of the whole disk, rounded down to a sector; the last takes the rest of the
/// disk whatever its percentage says (as cloud-init does). `false` plans nothing.
pub fn plan(
    layout: &Value,
    kind: TableKind,
    disk_bytes: u64,
    sector_size: u64,
) -> Result<Vec<NewPart>, String> {
    let default = match kind {
        TableKind::Mbr => PartType::Mbr(0x83),
        TableKind::Gpt => part_type(&Value::from("8300"), kind)?,
    };
    let items = match layout {
        Value::Bool(true) => {
            return Ok(vec![NewPart {
                sectors: None,
                type_: default,
            }])
        }
        Value::Bool(false) => return Ok(Vec::new()),
        Value::Array(items) if !items.is_empty() => items,
        Value::Array(_) => return Err("layout: the list is empty".into()),
        _ => return Err("layout: not true, false or a list of partitions".into()),
    };
    let max = if kind == TableKind::Mbr { 4 } else { 128 };
    if items.len() > max {
        return Err(format!(
            "layout: {} partitions, but a {kind:?} table holds at most {max}",
            items.len()
        ));
    }
    if sector_size == 0 {
        return Err("layout: sector size 0".into());
    }
    let sectors = disk_bytes / sector_size;
    let mut sum = 0.0;
    let mut parts = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let (p, type_) = match item {
            Value::Array(pair) if pair.len() == 2 => (&pair[0], part_type(&pair[1], kind)),
            Value::Array(_) => {
                return Err(format!("layout[{i}]: a pair is [percent, type], 2 items"))
            }
            other => (other, Ok(default)),
        };
        let p = percent(p).ok_or_else(|| {
            format!("layout[{i}]: the percentage {p} is not a number above 0 and at most 100")
        })?;
        let type_ = type_.map_err(|e| format!("layout[{i}]: {e}"))?;
        sum += p;
        if sum > 100.0 + 1e-9 {
            return Err(format!(
                "layout[{i}]: the percentages add up to {sum}, over 100"
            ));
        }
        let last = i + 1 == items.len();
        let size = (sectors as f64 * p / 100.0).floor() as u64;
        if size == 0 && !last {
            return Err(format!(
                "layout[{i}]: {p}% of {sectors} sectors is no sector at all"
            ));
        }
        parts.push(NewPart {
            sectors: (!last).then_some(size),
            type_,
        });
    }
    Ok(parts)
}
