//! Which datasource applies: the candidates in order (the command line's choice, else the
//! image's `datasource_list`, else every datasource ember has), each judging the gathered
//! facts itself; the first with evidence wins. Local evidence only: nothing here sends a packet.

use super::{by_name, Datasource, DATASOURCES};
use crate::context::Ctx;
use crate::detect::dmi::{hypervisor, Dmi};
use crate::detect::{disabled_reason, gather_facts, Detection, Facts};
use crate::status::Evidence;

/// The order datasources are tried in: the command line's choice first, then the image's
/// `datasource_list` (cloud-init names), else every datasource ember has.
fn candidates(ctx: &Ctx, facts: &Facts) -> Vec<&'static dyn Datasource> {
    let named = facts
        .cmdline_ds
        .as_ref()
        .map(|(_, h)| h.name.trim_end_matches("-net").to_string());
    if let Some(ds) = named.as_deref().and_then(by_name) {
        return vec![ds];
    }
    match ctx.image.datasource_list() {
        Some(list) => list.iter().filter_map(|n| by_name(n)).collect(),
        None => DATASOURCES.to_vec(),
    }
}

/// The platform DMI names: the first cloud whose rule matches, else the hypervisor.
pub fn platform(dmi: &Dmi) -> Option<(String, String)> {
    let cloud = DATASOURCES
        .iter()
        .find_map(|ds| Some((ds.name().to_string(), ds.dmi(dmi)?)));
    cloud.or_else(|| hypervisor(dmi).map(|(name, why)| (name.to_string(), why)))
}

pub fn detect(ctx: &Ctx) -> Detection {
    if let Some(reason) = disabled_reason(ctx) {
        return Detection {
            disabled: Some(reason),
            ..Detection::default()
        };
    }
    let facts = gather_facts(ctx);
    let platform = platform(&facts.dmi);
    let mut evidence = Vec::new();
    if let Some((platform, why)) = &platform {
        evidence.push(Evidence {
            source: "dmi".into(),
            detail: format!("platform {platform} ({why})"),
        });
    }
    let mut chosen = None;
    for ds in candidates(ctx, &facts) {
        let found = ds.detect(&ctx.env(), &facts);
        if !found.is_empty() {
            evidence.extend(found);
            chosen = Some(ds.name().to_string());
            break;
        }
    }
    Detection {
        disabled: None,
        datasource: chosen,
        platform,
        evidence,
        facts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasource::azure::CHASSIS_ASSET_TAG;

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
            (&[("chassis_asset_tag", CHASSIS_ASSET_TAG)], Some("azure")),
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
                    ("chassis_asset_tag", CHASSIS_ASSET_TAG),
                    ("sys_vendor", "Microsoft Corporation"),
                ],
                Some("azure"),
            ),
            // Hyper-V outside Azure has the vendor but not the asset tag.
            (&[("sys_vendor", "Microsoft Corporation")], None),
            (&[], None),
        ];
        for (fields, want) in cases {
            assert_eq!(
                platform(&Dmi::from_pairs(fields)).map(|p| p.0).as_deref(),
                *want,
                "{fields:?}"
            );
        }
    }
}
