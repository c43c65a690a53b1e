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
        field: "chassis_asset_tag",
        matches: |v| v == AZURE_ASSET_TAG,
        platform: "azure",
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
    // ds-identify takes Nova's product names as an asset tag too; `sys_vendor` "OpenStack
    // Foundation" alone is not a sign cloud-init reads, so neither does ember.
    Rule {
        field: "chassis_asset_tag",
        matches: |v| v == "OpenStack Nova" || v == "OpenStack Compute",
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

/// A UUID in the form EC2 gives its instances: `ec2` first, in either byte order of the first
/// field (`EC2E1916-…` on Xen, `45E12AEC-…` read little-endian on some Nitro firmware).
pub fn ec2_uuid(uuid: &str) -> bool {
    let u = uuid.to_ascii_lowercase();
    let well_formed = u.len() == 36
        && u.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    if !well_formed {
        return false;
    }
    let swapped: String = (0..4).rev().map(|i| &u[i * 2..i * 2 + 2]).collect();
    u.starts_with("ec2") || swapped.starts_with("ec2")
}

/// DMI that says AWS, with why. `sys_vendor` "Amazon EC2" (Nitro) is enough; an EC2-shaped
/// UUID (which any hypervisor can be given: cloud-init's `ec2*` glob alone misfires) needs a
/// second field to agree: a serial also starting `ec2` (Xen), or an Amazon asset tag or BIOS.
pub fn aws(dmi: &Dmi) -> Option<String> {
    let field = |f: &str| dmi.fields.get(f).map(String::as_str).unwrap_or("");
    if field("sys_vendor") == "Amazon EC2" {
        return Some("sys_vendor=Amazon EC2".into());
    }
    let uuid = field("product_uuid");
    if !ec2_uuid(uuid) {
        return None;
    }
    let support = [
        ("product_serial", ec2_uuid(field("product_serial"))),
        (
            "chassis_asset_tag",
            field("chassis_asset_tag") == "Amazon EC2",
        ),
        (
            "bios_vendor",
            field("bios_vendor").to_ascii_lowercase().contains("amazon"),
        ),
    ];
    let (name, _) = support.iter().find(|(_, ok)| *ok)?;
    Some(format!("product_uuid={uuid} and {name}={}", field(name)))
}

/// DMI that hints at EC2 at all (an AWS-looking UUID or vendor), even without the support
/// `aws` needs: on such a machine ember still never falls back to IMDSv1.
pub fn ec2_like(dmi: &Dmi) -> bool {
    aws(dmi).is_some() || dmi.fields.get("product_uuid").is_some_and(|u| ec2_uuid(u))
}

/// DMI that says Google Compute Engine, with why: the product name (cloud-init's test) or a
/// `GoogleCloud-` serial, and a second field agreeing (vendor, BIOS vendor or serial), since
/// any hypervisor can be given one of them.
pub fn gce(dmi: &Dmi) -> Option<String> {
    let field = |f: &str| dmi.fields.get(f).map(String::as_str).unwrap_or("");
    let product = matches!(field("product_name"), "Google Compute Engine" | "Google");
    let serial = field("product_serial").starts_with("GoogleCloud-");
    let signs = [
        ("product_name", product),
        ("sys_vendor", field("sys_vendor") == "Google"),
        ("bios_vendor", field("bios_vendor") == "Google"),
        ("product_serial", serial),
    ];
    let agreeing: Vec<&str> = signs.iter().filter(|s| s.1).map(|s| s.0).collect();
    if !(product || serial) || agreeing.len() < 2 {
        return None;
    }
    let shown: Vec<String> = agreeing[..2]
        .iter()
        .map(|f| format!("{f}={}", field(f)))
        .collect();
    Some(shown.join(" and "))
}

/// The chassis asset tag Azure gives every VM (ds-identify's test): a fixed 30-character
/// value no other platform uses, so it is enough alone; the vendor is shown when it agrees.
pub const AZURE_CHASSIS: &str = "7783-7084-3265-9085-8269-3286-77";

/// DMI that says Azure, with why.
pub fn azure(dmi: &Dmi) -> Option<String> {
    let field = |f: &str| dmi.fields.get(f).map(String::as_str).unwrap_or("");
    if field("chassis_asset_tag") != AZURE_CHASSIS {
        return None;
    }
    let mut why = format!("chassis_asset_tag={AZURE_CHASSIS}");
    if field("sys_vendor") == "Microsoft Corporation" {
        why.push_str(" and sys_vendor=Microsoft Corporation");
    }
    Some(why)
}

/// DMI that says DigitalOcean (ds-identify's test, `sys_vendor`), with the droplet id the
/// firmware gives as the system serial, when it does.
pub fn digitalocean(dmi: &Dmi) -> Option<Option<String>> {
    (dmi.fields.get("sys_vendor")? == "DigitalOcean").then(|| {
        let id = dmi.fields.get("product_serial").map(|s| s.trim());
        id.filter(|s| !s.is_empty()).map(str::to_string)
    })
}

/// The platform the DMI fields name, with the field and value that matched.
pub fn platform(dmi: &Dmi) -> Option<(&'static str, String)> {
    if let Some(why) = aws(dmi) {
        return Some(("ec2", why));
    }
    if let Some(why) = gce(dmi) {
        return Some(("gce", why));
    }
    if let Some(why) = azure(dmi) {
        return Some(("azure", why));
    }
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
                &[
                    ("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF"),
                    ("product_serial", "ec2e1916-9099-7caf-fd21-012345abcdef"),
                ],
                Some("ec2"),
            ),
            (
                &[
                    ("product_uuid", "45E12AEC-DCD1-B213-94ED-012345ABCDEF"),
                    ("chassis_asset_tag", "Amazon EC2"),
                ],
                Some("ec2"),
            ),
            // The UUID alone is weak evidence: any hypervisor can be given one like it.
            (
                &[
                    ("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF"),
                    ("sys_vendor", "OpenStack Foundation"),
                    ("product_name", "OpenStack Nova"),
                ],
                Some("openstack"),
            ),
            (
                &[
                    ("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF"),
                    ("sys_vendor", "Dell Inc."),
                ],
                None,
            ),
            (
                &[
                    ("product_uuid", "ec2-not-a-uuid"),
                    ("product_serial", "ec2-not-a-uuid"),
                ],
                None,
            ),
            (&[("chassis_asset_tag", AZURE_ASSET_TAG)], Some("azure")),
            (
                &[
                    ("product_name", "Google Compute Engine"),
                    ("sys_vendor", "Google"),
                ],
                Some("gce"),
            ),
            (
                &[
                    ("product_name", "Google"),
                    ("product_serial", "GoogleCloud-5A1B2C3D"),
                ],
                Some("gce"),
            ),
            // One field alone is weak: any hypervisor can be given it.
            (&[("product_name", "Google Compute Engine")], None),
            (&[("sys_vendor", "Google"), ("bios_vendor", "Google")], None),
            (
                &[
                    ("product_name", "Google Compute Engine"),
                    ("sys_vendor", "QEMU"),
                ],
                Some("qemu"),
            ),
            (&[("product_name", "OpenStack Nova")], Some("openstack")),
            (&[("product_name", "OpenStack Compute")], Some("openstack")),
            (
                &[("chassis_asset_tag", "OpenStack Nova")],
                Some("openstack"),
            ),
            (
                &[("chassis_asset_tag", "OpenTelekomCloud")],
                Some("openstack"),
            ),
            (&[("sys_vendor", "OpenStack Foundation")], None),
            (&[("sys_vendor", "DigitalOcean")], Some("digitalocean")),
            (
                &[("sys_vendor", "QEMU"), ("product_name", "Standard PC")],
                Some("qemu"),
            ),
            (&[("sys_vendor", "Dell Inc.")], None),
            (
                &[
                    ("chassis_asset_tag", AZURE_CHASSIS),
                    ("sys_vendor", "Microsoft Corporation"),
                ],
                Some("azure"),
            ),
            // Hyper-V outside Azure has the vendor but not the asset tag.
            (&[("sys_vendor", "Microsoft Corporation")], None),
            (&[], None),
        ];
        for (fields, want) in cases {
            assert_eq!(platform(&dmi(fields)).map(|p| p.0), *want, "{fields:?}");
        }
    }

    #[test]
    fn digitalocean_by_vendor_with_the_droplet_id() {
        let d = dmi(&[
            ("sys_vendor", "DigitalOcean"),
            ("product_serial", "2756294"),
        ]);
        assert_eq!(digitalocean(&d), Some(Some("2756294".into())));
        assert_eq!(
            digitalocean(&dmi(&[("sys_vendor", "DigitalOcean")])),
            Some(None)
        );
        assert_eq!(
            digitalocean(&dmi(&[("board_vendor", "DigitalOcean")])),
            None
        );
    }

    #[test]
    fn ec2_uuids_in_both_byte_orders() {
        assert!(ec2_uuid("ec2e1916-9099-7caf-fd21-012345abcdef"));
        assert!(ec2_uuid("45E12AEC-DCD1-B213-94ED-012345ABCDEF"));
        assert!(!ec2_uuid("12345678-DCD1-B213-94ED-012345ABCDEF"));
        assert!(!ec2_uuid("ec2"));
        let weak = dmi(&[("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF")]);
        assert!(aws(&weak).is_none() && ec2_like(&weak));
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
