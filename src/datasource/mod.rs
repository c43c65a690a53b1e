//! Datasources: one folder each (everything only that cloud has: its detection rule, fetch,
//! network config, protocol helpers) behind one small trait that finds evidence and returns
//! data, never writes (`Env` has nothing to write through); `common/` holds what clouds share.
//! The network a fetch needs is the stage's `Link`: a datasource declares its service and reads
//! through it, and tells the platform how it went only in `report`, over the same link.
//! Adding a cloud is its folder, a `mod` line here and a row in `DATASOURCES` (table.rs).

#[cfg(feature = "ds-akamai")]
pub mod akamai;
#[cfg(feature = "ds-aliyun")]
pub mod aliyun;
#[cfg(feature = "ds-altcloud")]
pub mod altcloud;
pub mod azure;
#[cfg(feature = "ds-bigstep")]
pub mod bigstep;
pub mod choose;
#[cfg(feature = "ds-cloudcix")]
pub mod cloudcix;
#[cfg(feature = "ds-cloudsigma")]
pub mod cloudsigma;
#[cfg(feature = "ds-cloudstack")]
pub mod cloudstack;
pub mod common;
pub mod digitalocean;
pub mod ec2;
pub mod events;
#[cfg(feature = "ds-exoscale")]
pub mod exoscale;
pub mod gce;
#[cfg(feature = "ds-hetzner")]
pub mod hetzner;
#[cfg(feature = "ds-ibmcloud")]
pub mod ibmcloud;
pub use ember_core::instance;
pub mod link;
#[cfg(feature = "ds-lxd")]
pub mod lxd;
#[cfg(feature = "ds-maas")]
pub mod maas;
pub mod nocloud;
pub mod none;
#[cfg(feature = "ds-nwcs")]
pub mod nwcs;
#[cfg(feature = "ds-opennebula")]
pub mod opennebula;
pub mod openstack;
#[cfg(feature = "ds-oracle")]
pub mod oracle;
#[cfg(feature = "ds-rbxcloud")]
pub mod rbxcloud;
#[cfg(feature = "ds-scaleway")]
pub mod scaleway;
#[cfg(feature = "ds-smartos")]
pub mod smartos;
mod table;
#[cfg(feature = "ds-upcloud")]
pub mod upcloud;
#[cfg(feature = "ds-vmware")]
pub mod vmware;
#[cfg(feature = "ds-vultr")]
pub mod vultr;
#[cfg(feature = "ds-wsl")]
pub mod wsl;

use crate::context::Env;
use crate::detect::blockdev::LabelledDevice;
use crate::detect::dmi::Dmi;
use crate::detect::Facts;
use crate::error::Diag;
use crate::status::Evidence;
pub use instance::{InstanceData, PublicKey};
pub use link::Link;
use serde_json::Value;
use std::borrow::Cow;
pub(crate) use table::claimed_elsewhere;
pub use table::{by_name, DATASOURCES};

pub trait Datasource: Sync {
    /// ember's short name, also cloud-init's `cloud_name`/`platform`: `nocloud`.
    fn name(&self) -> &'static str;
    /// The name in cloud-init's `datasource_list`: `NoCloud`.
    fn cloud_init_name(&self) -> &'static str;
    /// What the DMI fields say of this cloud (the fields and values that matched, as
    /// ds-identify judges them), or None. It names the platform `ember-initrd detect` shows.
    fn dmi(&self, _dmi: &Dmi) -> Option<String> {
        None
    }
    /// Local evidence that this datasource applies; empty when it does not. No network. By
    /// default what most clouds take: its DMI rule, `ds=` naming it, or the image's
    /// `datasource_list` naming it alone (`selection_evidence`).
    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        selection_evidence(env, facts, self, self.dmi(&facts.dmi))
    }
    /// What `detect` needs to see, said when `ds=` names this datasource and it saw nothing:
    /// "a volume labelled config-2". Those taking `ds=` alone as evidence never say it.
    fn evidence_wanted(&self) -> &'static str {
        "evidence of its own (its DMI signature, seed or device)"
    }
    /// Reads the data, reaching a link-local service through `link` (the stage's: it makes a
    /// lease when one is needed and lets it go after `report`; NoCloud's `seedfrom` still makes
    /// its own, which needs a default route rather than the metadata address). `Err` when nothing usable was
    /// found; problems with single files are reported in `InstanceData::diags` while the rest
    /// is used.
    fn fetch(&self, env: &Env, facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag>;
    /// Tells the platform how the fetch ended (the data built, or the error that stopped it),
    /// over the way its service answered (`link`, still up; it cannot make another). The
    /// stage calls it after `fetch` when `link` says a report is due. Nothing by default.
    fn report(&self, _env: &Env, _link: &Link, _outcome: Result<&InstanceData, &Diag>) -> Reported {
        Reported::default()
    }
    /// The data's public ssh keys, as cloud-init's `get_public_ssh_keys`: meta-data's
    /// `public-keys` for the default user, unless the cloud keeps keys its own way.
    fn public_keys(&self, data: &InstanceData) -> Vec<PublicKey> {
        PublicKey::from_meta_data(&data.meta_data)
    }
    /// Whether this datasource owns `dev` although another's label rule matches it (IBM
    /// Cloud's marked config-2 drive, which ConfigDrive must leave alone). Local facts only.
    fn claims(&self, _env: &Env, _facts: &Facts, _dev: &LabelledDevice) -> bool {
        false
    }
    /// The datasource's network config as the target's network stack (`None`: none
    /// installed) gets it: cloud-init builds some configs knowing its renderer. Asked at the
    /// local stage, where the root is mounted; the fetch may run before. As given by default.
    fn network_for_stack<'a>(
        &self,
        config: &'a Value,
        _stack: Option<crate::network::stack::Stack>,
    ) -> Cow<'a, Value> {
        Cow::Borrowed(config)
    }
    /// cloud-init's `default_update_events` (network scope): when the network is rendered
    /// again unless the config's `updates` says otherwise (events.rs). A new instance only.
    fn default_update_events(&self) -> &'static [events::Event] {
        events::NEW_INSTANCE
    }
    /// cloud-init's `supported_update_events` (network scope): the events this cloud's data
    /// can answer. All of them, as cloud-init's base class.
    fn supported_update_events(&self) -> &'static [events::Event] {
        events::ALL
    }
}

/// What a report cost and what went wrong with it.
#[derive(Debug, Default)]
pub struct Reported {
    /// Requests sent, counted with the fetch's.
    pub reads: u32,
    pub diags: Vec<Diag>,
}

/// The evidence a network datasource takes besides its own: its name in `ds=` on the command
/// line, what DMI said (`dmi`, worded by the datasource), and the image's `datasource_list`
/// naming it alone (with `None`), where cloud-init's ds-identify skips its checks too.
pub(crate) fn selection_evidence<D: Datasource + ?Sized>(
    env: &Env,
    facts: &Facts,
    ds: &D,
    dmi: Option<String>,
) -> Vec<Evidence> {
    let mut ev = Vec::new();
    let add = |ev: &mut Vec<Evidence>, source: &str, detail: String| {
        ev.push(Evidence {
            source: source.into(),
            detail,
        })
    };
    if let Some((param, _)) = facts
        .cmdline_ds
        .as_ref()
        .filter(|(_, h)| h.name == ds.name())
    {
        add(&mut ev, "cmdline", param.clone());
    }
    if let Some(why) = dmi {
        add(&mut ev, "dmi", why);
    }
    let only_this = env.image.datasource_list().is_some_and(|list| {
        let named: Vec<_> = list.iter().filter(|n| *n != "None").collect();
        named.len() == 1 && named[0].eq_ignore_ascii_case(ds.cloud_init_name())
    });
    if only_this {
        let detail = format!(
            "datasource_list: [{}] in the image config",
            ds.cloud_init_name()
        );
        add(&mut ev, "config", detail);
    }
    ev
}
