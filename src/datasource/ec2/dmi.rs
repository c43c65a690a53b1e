//! EC2's DMI rule: what says AWS, and what merely looks like it.

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
}
