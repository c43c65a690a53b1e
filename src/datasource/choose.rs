//! Which datasource applies: the candidates in order (the command line's choice, else the
//! image's `datasource_list`, else every datasource ember has), each judging the gathered
//! facts itself; the first with evidence wins. Local evidence only: nothing here sends a packet.

use super::{by_name, Datasource, DATASOURCES};
use crate::context::Ctx;
use crate::detect::dmi::{hypervisor, Dmi};
use crate::detect::{disabled_reason, gather_facts, policy, Detection, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::Evidence;

/// The datasource `ds=` (or ds-identify.cfg's `datasource:`) names, by either name; `-net`
/// (NoCloud's older name) is the same datasource.
fn named(facts: &Facts) -> Option<&'static dyn Datasource> {
    let (_, hint) = facts.cmdline_ds.as_ref()?;
    by_name(hint.name.trim_end_matches("-net"))
}

/// The order datasources are tried in: the command line's choice first, then the image's
/// `datasource_list` (cloud-init names), else every datasource ember has.
fn candidates(ctx: &Ctx, facts: &Facts) -> Vec<&'static dyn Datasource> {
    if let Some(ds) = named(facts) {
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
    let mut facts = gather_facts(ctx);
    let policy = policy::read(ctx);
    if facts.cmdline_ds.is_none() {
        // ds-identify.cfg's `datasource:` names one as `ds=` does, the command line winning.
        facts.cmdline_ds = policy
            .datasource
            .map(|(name, said)| (said, crate::cmdline::parse_ds(&name)));
    }
    let mut diags = policy.diags;
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
    if let Some((param, hint)) = facts
        .cmdline_ds
        .as_ref()
        .filter(|_| named(&facts).is_none())
    {
        if chosen.is_some() {
            let msg = format!(
                "{param}: ember has no datasource called \"{}\"; chose one by its evidence instead",
                hint.name
            );
            diags.push(Diag::warning(Reason::NoDatasource, msg));
        }
    }
    Detection {
        disabled: None,
        datasource: chosen,
        platform,
        evidence,
        facts,
        diags,
    }
}

/// Why no datasource was chosen, for the status: the one `ds=` asked for and what it lacked,
/// a name ember does not know, or that nothing anywhere showed evidence.
pub fn not_found(facts: &Facts) -> String {
    const NO_PACKET: &str = "no network request was made";
    let Some((param, hint)) = facts.cmdline_ds.as_ref() else {
        return format!("no datasource found: no ds= on the command line or SMBIOS serial, no seed directory, no labelled seed volume, no configured seed; {NO_PACKET}");
    };
    match named(facts) {
        Some(ds) => format!(
            "{param} asks for {}, which found no evidence here: it needs {}; {NO_PACKET}",
            ds.cloud_init_name(),
            ds.evidence_wanted()
        ),
        None => format!(
            "{param}: ember has no datasource called \"{}\" (unknown name), and no other showed evidence; {NO_PACKET}",
            hint.name
        ),
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
            (
                &[("chassis_asset_tag", "Samsung Cloud Platform")],
                Some("openstack"),
            ),
            (&[("sys_vendor", "OpenStack Foundation")], None),
            // EC2-compatible clouds by their own signs, and Xen's guest id on EC2.
            (
                &[("product_serial", "srv-otuxg.gb1.brightbox.com")],
                Some("ec2"),
            ),
            (&[("chassis_asset_tag", "123456.zstack.io")], Some("ec2")),
            (&[("sys_vendor", "Tilaa")], Some("ec2")),
            (
                &[("hypervisor_uuid", "ec2c6e2f-5fac-4fc7-9c82-74127ec14bbb")],
                Some("ec2"),
            ),
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
