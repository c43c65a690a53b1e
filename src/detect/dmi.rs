//! DMI/SMBIOS fields from /sys/class/dmi/id, and the platform rules ds-identify applies to them.

use crate::host::Host;
use std::collections::BTreeMap;

/// The fields ember reads: sysfs names. Reading all of them costs a handful of small reads.
pub const FIELDS: [&str; 9] = [
    "sys_vendor",
    "product_name",
    "product_serial",
    "product_uuid",
    "chassis_asset_tag",
    "chassis_serial",
    "board_vendor",
    "board_serial",
    "bios_vendor",
];

/// dmidecode's key names (used in `__dmi.<key>__` seed URLs) → sysfs file names.
const DMIDECODE_NAMES: [(&str, &str); 9] = [
    ("system-manufacturer", "sys_vendor"),
    ("system-product-name", "product_name"),
    ("system-serial-number", "product_serial"),
    ("system-uuid", "product_uuid"),
    ("chassis-asset-tag", "chassis_asset_tag"),
    ("chassis-serial-number", "chassis_serial"),
    ("baseboard-manufacturer", "board_vendor"),
    ("baseboard-serial-number", "board_serial"),
    ("bios-vendor", "bios_vendor"),
];

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Dmi {
    pub fields: BTreeMap<String, String>,
}

impl Dmi {
    /// Reads the fields that exist (product_serial and product_uuid need root on real systems).
    pub fn read(host: &Host) -> Dmi {
        let dir = host.dmi_dir();
        let fields = FIELDS
            .iter()
            .filter_map(|name| {
                let raw = std::fs::read(dir.join(name)).ok()?;
                let text = String::from_utf8_lossy(&raw).trim().to_string();
                Some((name.to_string(), text))
            })
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

/// One platform rule: the field, how it matches, and the platform it names.
struct Rule {
    field: &'static str,
    matches: fn(&str) -> bool,
    platform: &'static str,
}

const AZURE_ASSET_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

const RULES: &[Rule] = &[
    Rule {
        field: "sys_vendor",
        matches: |v| v == "Amazon EC2",
        platform: "ec2",
    },
    Rule {
        field: "product_uuid",
        matches: |v| v.to_ascii_lowercase().starts_with("ec2"),
        platform: "ec2",
    },
    Rule {
        field: "chassis_asset_tag",
        matches: |v| v == AZURE_ASSET_TAG,
        platform: "azure",
    },
    Rule {
        field: "product_name",
        matches: |v| v == "Google Compute Engine",
        platform: "gce",
    },
    Rule {
        field: "sys_vendor",
        matches: |v| v == "Google",
        platform: "gce",
    },
    Rule {
        field: "product_name",
        matches: |v| v == "OpenStack Nova" || v == "OpenStack Compute",
        platform: "openstack",
    },
    Rule {
        field: "chassis_asset_tag",
        matches: |v| v == "OpenTelekomCloud" || v == "HUAWEICLOUD" || v == "SAP CCloud VM",
        platform: "openstack",
    },
    Rule {
        field: "sys_vendor",
        matches: |v| v == "DigitalOcean",
        platform: "digitalocean",
    },
    Rule {
        field: "sys_vendor",
        matches: |v| v == "QEMU",
        platform: "qemu",
    },
];

/// The platform the DMI fields name, with the field and value that matched.
pub fn platform(dmi: &Dmi) -> Option<(&'static str, String)> {
    RULES.iter().find_map(|rule| {
        let value = dmi.fields.get(rule.field)?;
        (rule.matches)(value).then(|| (rule.platform, format!("{}={value}", rule.field)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dmi(pairs: &[(&str, &str)]) -> Dmi {
        let fields = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Dmi { fields }
    }

    #[test]
    fn platform_rules() {
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>);
        let cases: &[Case] = &[
            (&[("sys_vendor", "Amazon EC2")], Some("ec2")),
            (
                &[("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF")],
                Some("ec2"),
            ),
            (&[("chassis_asset_tag", AZURE_ASSET_TAG)], Some("azure")),
            (&[("product_name", "Google Compute Engine")], Some("gce")),
            (&[("product_name", "OpenStack Nova")], Some("openstack")),
            (&[("sys_vendor", "DigitalOcean")], Some("digitalocean")),
            (
                &[("sys_vendor", "QEMU"), ("product_name", "Standard PC")],
                Some("qemu"),
            ),
            (&[("sys_vendor", "Dell Inc.")], None),
            (&[], None),
        ];
        for (fields, want) in cases {
            assert_eq!(platform(&dmi(fields)).map(|p| p.0), *want, "{fields:?}");
        }
    }

    #[test]
    fn substitutes_dmi_fields_in_urls() {
        let d = dmi(&[("product_serial", "SN42"), ("product_uuid", "u-1")]);
        assert_eq!(
            d.substitute("http://10.0.0.1/__dmi.system-serial-number__/__dmi.product_uuid__/"),
            "http://10.0.0.1/SN42/u-1/"
        );
        assert_eq!(d.substitute("http://h/__dmi.nope__/x"), "http://h//x");
        assert_eq!(d.substitute("http://h/__dmi.open"), "http://h/__dmi.open");
    }
}
