//! DMI/SMBIOS fields from /sys/class/dmi/id, or where a kernel has no such directory
//! (`CONFIG_DMIID` off) from the firmware's tables themselves (`smbios.rs`), as ds-identify
//! falls back to dmidecode. Each cloud's rule for them lives with the cloud
//! (`datasource::<cloud>`), so adding a cloud never touches this file.

use crate::host::Host;
use ember_core::sort::IntoMap;
use std::collections::BTreeMap;

/// Xen's id for the guest (`/sys/hypervisor/uuid`), kept with the DMI fields under this name:
/// EC2's older instances say who they are there (not a DMI field; empty elsewhere).
pub const HYPERVISOR_UUID: &str = "hypervisor_uuid";

/// The fields ember reads: sysfs names. Reading all of them costs a handful of small reads.
pub const FIELDS: [&str; 10] = [
    "sys_vendor",
    "product_name",
    "product_serial",
    "product_uuid",
    "chassis_asset_tag",
    "chassis_serial",
    "board_vendor",
    "board_serial",
    "bios_vendor",
    // LXD VMs: `LXD`.
    "board_name",
];

/// dmidecode's key names (used in `__dmi.<key>__` seed URLs) → sysfs file names.
const DMIDECODE_NAMES: [(&str, &str); 10] = [
    ("system-manufacturer", "sys_vendor"),
    ("system-product-name", "product_name"),
    ("system-serial-number", "product_serial"),
    ("system-uuid", "product_uuid"),
    ("chassis-asset-tag", "chassis_asset_tag"),
    ("chassis-serial-number", "chassis_serial"),
    ("baseboard-manufacturer", "board_vendor"),
    ("baseboard-serial-number", "board_serial"),
    ("bios-vendor", "bios_vendor"),
    ("baseboard-product-name", "board_name"),
];

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Dmi {
    pub fields: BTreeMap<String, String>,
}

impl Dmi {
    /// Reads the fields that exist (product_serial and product_uuid need root on real systems),
    /// from the SMBIOS tables when the kernel has no /sys/class/dmi/id; and Xen's guest id.
    pub fn read(host: &Host) -> Dmi {
        let dir = host.dmi_dir();
        let mut fields: BTreeMap<String, String> = if dir.is_dir() {
            FIELDS
                .iter()
                .filter_map(|name| Some((name.to_string(), read_small(&dir.join(name))?)))
                .into_map()
        } else {
            super::smbios::read(host)
        };
        if let Some(uuid) = read_small(&host.path("/sys/hypervisor/uuid")) {
            fields.insert(HYPERVISOR_UUID.to_string(), uuid);
        }
        Dmi { fields }
    }

    /// DMI with the given fields: the clouds' rules are tested with it.
    #[cfg(test)]
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Dmi {
        let fields = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Dmi { fields }
    }

    pub fn get(&self, field: &str) -> Option<&str> {
        let sysfs = DMIDECODE_NAMES
            .iter()
            .find(|(dmidecode, _)| *dmidecode == field)
            .map_or(field, |(_, sysfs)| sysfs);
        self.fields.get(sysfs).map(String::as_str)
    }

    /// Replaces `__dmi.<field>__` in a seed URL, as cloud-init does; unknown fields become "".
    pub fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("__dmi.") {
            let after = &rest[start + 6..];
            let Some(end) = after.find("__") else { break };
            out.push_str(&rest[..start]);
            out.push_str(self.get(&after[..end]).unwrap_or(""));
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        out
    }
}

/// A small sysfs file's text, trimmed; None when it cannot be read.
fn read_small(path: &std::path::Path) -> Option<String> {
    let raw = crate::regular::read(path, 4096).ok()?;
    Some(String::from_utf8_lossy(&raw).trim().to_string())
}

/// The hypervisor DMI names when no cloud's rule matched (QEMU), with the field that said so:
/// shown by `ember-initrd detect`, never a reason to choose a datasource.
pub fn hypervisor(dmi: &Dmi) -> Option<(&'static str, String)> {
    let vendor = dmi.fields.get("sys_vendor")?;
    (vendor == "QEMU").then(|| ("qemu", format!("sys_vendor={vendor}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_dmi_fields_in_urls() {
        let d = Dmi::from_pairs(&[("product_serial", "SN42"), ("product_uuid", "u-1")]);
        assert_eq!(
            d.substitute("http://10.0.0.1/__dmi.system-serial-number__/__dmi.product_uuid__/"),
            "http://10.0.0.1/SN42/u-1/"
        );
        assert_eq!(d.substitute("http://h/__dmi.nope__/x"), "http://h//x");
        assert_eq!(d.substitute("http://h/__dmi.open"), "http://h/__dmi.open");
    }
}
