//! The dispatch table: every datasource ember knows, in the order they are tried, and the
//! look-ups over it. A cloud's row sits under the same `#[cfg(feature = "ds-…")]` as its
//! `mod` line in mod.rs.

use super::*;

/// In cloud-init's default `datasource_list` order (`settings.CFG_BUILTIN`), None last: the
/// first with evidence is chosen. A cloud that is a cargo feature has its row under
/// `#[cfg(feature = "ds-…")]`, as its `mod` line in mod.rs.
pub const DATASOURCES: &[&dyn Datasource] = &[
    &nocloud::NoCloud,
    &openstack::ConfigDrive,
    #[cfg(feature = "ds-lxd")]
    &lxd::Lxd,
    #[cfg(feature = "ds-opennebula")]
    &opennebula::OpenNebula,
    &digitalocean::DigitalOcean,
    &azure::Azure,
    #[cfg(feature = "ds-altcloud")]
    &altcloud::AltCloud,
    #[cfg(feature = "ds-vmware")]
    &vmware::Vmware,
    #[cfg(feature = "ds-vmware")]
    &vmware::Ovf,
    #[cfg(feature = "ds-maas")]
    &maas::Maas,
    &gce::Gce,
    &openstack::OpenStack,
    #[cfg(feature = "ds-aliyun")]
    &aliyun::AliYun,
    #[cfg(feature = "ds-vultr")]
    &vultr::Vultr,
    &ec2::Ec2,
    #[cfg(feature = "ds-cloudsigma")]
    &cloudsigma::CloudSigma,
    #[cfg(feature = "ds-cloudstack")]
    &cloudstack::CloudStack,
    #[cfg(feature = "ds-smartos")]
    &smartos::SmartOs,
    #[cfg(feature = "ds-bigstep")]
    &bigstep::Bigstep,
    #[cfg(feature = "ds-scaleway")]
    &scaleway::Scaleway,
    #[cfg(feature = "ds-hetzner")]
    &hetzner::Hetzner,
    #[cfg(feature = "ds-ibmcloud")]
    &ibmcloud::IbmCloud,
    #[cfg(feature = "ds-oracle")]
    &oracle::Oracle,
    #[cfg(feature = "ds-exoscale")]
    &exoscale::Exoscale,
    #[cfg(feature = "ds-rbxcloud")]
    &rbxcloud::RbxCloud,
    #[cfg(feature = "ds-upcloud")]
    &upcloud::UpCloud,
    #[cfg(feature = "ds-nwcs")]
    &nwcs::Nwcs,
    #[cfg(feature = "ds-akamai")]
    &akamai::Akamai,
    #[cfg(feature = "ds-wsl")]
    &wsl::Wsl,
    #[cfg(feature = "ds-cloudcix")]
    &cloudcix::CloudCix,
    // Last: it has evidence only when named, and stands in for the rest.
    &none::NoneDs,
];

/// The datasource named so, by ember's or cloud-init's name (`ec2`, `Ec2`).
pub fn by_name(name: &str) -> Option<&'static dyn Datasource> {
    DATASOURCES
        .iter()
        .copied()
        .find(|ds| ds.name() == name || ds.cloud_init_name().eq_ignore_ascii_case(name))
}

/// Whether a datasource other than `me` claims `dev` (see `Datasource::claims`).
pub(crate) fn claimed_elsewhere(env: &Env, facts: &Facts, me: &str, dev: &LabelledDevice) -> bool {
    DATASOURCES
        .iter()
        .any(|ds| ds.name() != me && ds.claims(env, facts, dev))
}
