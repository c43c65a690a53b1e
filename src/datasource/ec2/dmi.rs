//! EC2's DMI rule: what says AWS, what says an EC2-compatible cloud that is not AWS (as
//! ds-identify and cloud-init's `identify_platform` name them), and what merely looks like AWS.

use crate::detect::dmi::Dmi;

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
    // Xen's own id for the guest, which only EC2 starts with `ec2` (not a DMI field).
    let xen = field(crate::detect::dmi::HYPERVISOR_UUID);
    if xen.to_ascii_lowercase().starts_with("ec2") {
        return Some(format!("/sys/hypervisor/uuid={xen}"));
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

/// An EC2-compatible cloud that names itself in DMI: cloud-init's `cloud_name` for it and the
/// field that said so. Each sign is the cloud's own (a domain, a vendor), unlike a UUID shape.
pub fn compatible(dmi: &Dmi) -> Option<(&'static str, String)> {
    let field = |f: &str| dmi.fields.get(f).map(String::as_str).unwrap_or("");
    let said = |name: &str| format!("{name}={}", field(name));
    let ends_with = |name: &str, domain: &str| field(name).to_ascii_lowercase().ends_with(domain);
    if ends_with("product_serial", ".brightbox.com") {
        return Some(("brightbox", said("product_serial")));
    }
    if ends_with("chassis_asset_tag", ".zstack.io") {
        return Some(("zstack", said("chassis_asset_tag")));
    }
    match field("sys_vendor") {
        "e24cloud" => return Some(("e24cloud", said("sys_vendor"))),
        "Tilaa" => return Some(("tilaa", said("sys_vendor"))),
        "3DS Outscale" if field("product_name") == "3DS Outscale VM" => {
            let why = format!("{} and {}", said("sys_vendor"), said("product_name"));
            return Some(("outscale", why));
        }
        _ => {}
    }
    None
}

/// The EC2 cloud DMI names, as cloud-init's `cloud_name` (`aws`, `brightbox`, …), with why.
pub fn cloud(dmi: &Dmi) -> Option<(&'static str, String)> {
    aws(dmi).map(|why| ("aws", why)).or_else(|| compatible(dmi))
}

/// DMI that hints at EC2 at all (an AWS-looking UUID or vendor), even without the support
/// `aws` needs: on such a machine ember still never falls back to IMDSv1.
pub fn ec2_like(dmi: &Dmi) -> bool {
    aws(dmi).is_some() || dmi.fields.get("product_uuid").is_some_and(|u| ec2_uuid(u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ec2_uuids_in_both_byte_orders() {
        assert!(ec2_uuid("ec2e1916-9099-7caf-fd21-012345abcdef"));
        assert!(ec2_uuid("45E12AEC-DCD1-B213-94ED-012345ABCDEF"));
        assert!(!ec2_uuid("12345678-DCD1-B213-94ED-012345ABCDEF"));
        assert!(!ec2_uuid("ec2"));
        let weak = Dmi::from_pairs(&[("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF")]);
        assert!(aws(&weak).is_none() && ec2_like(&weak));
    }

    #[test]
    fn compatible_clouds_by_their_own_signs() {
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>);
        let cases: &[Case] = &[
            (
                &[("product_serial", "srv-otuxg.gb1.brightbox.com")],
                Some("brightbox"),
            ),
            (&[("product_serial", "tricky-host.bobrightbox.com")], None),
            (&[("chassis_asset_tag", "123456.zstack.io")], Some("zstack")),
            (&[("sys_vendor", "e24cloud")], Some("e24cloud")),
            (&[("sys_vendor", "e24cloudyday")], None),
            (&[("sys_vendor", "Tilaa")], Some("tilaa")),
            (
                &[
                    ("sys_vendor", "3DS Outscale"),
                    ("product_name", "3DS Outscale VM"),
                ],
                Some("outscale"),
            ),
            (
                &[
                    ("sys_vendor", "Not 3DS Outscale"),
                    ("product_name", "3DS Outscale VM"),
                ],
                None,
            ),
            (
                &[
                    ("sys_vendor", "3DS Outscale"),
                    ("product_name", "Not 3DS Outscale VM"),
                ],
                None,
            ),
            (
                &[("hypervisor_uuid", "ec2c6e2f-5fac-4fc7-9c82-74127ec14bbb")],
                Some("aws"),
            ),
            (
                &[("hypervisor_uuid", "0c2c6e2f-5fac-4fc7-9c82-74127ec14bbb")],
                None,
            ),
        ];
        for (fields, want) in cases {
            let got = cloud(&Dmi::from_pairs(fields)).map(|(name, _)| name);
            assert_eq!(got, *want, "{fields:?}");
        }
    }
}
