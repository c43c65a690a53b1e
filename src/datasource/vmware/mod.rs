//! VMware: cloud-init's DataSourceVMware (the `envvar` transport, `VMX_GUESTINFO*` in a
//! container's environment, then the `guestinfo` transport, the hypervisor's table read with
//! open-vm-tools' `vmware-rpctool`) and DataSourceOVF (`ovf.rs`: the OVF environment from the
//! seed directory, `guestinfo.ovfEnv` or a CD). Guest customization (cloud-init's `imc`
//! transport, `disable_vmware_customization: false`) is found as ds-identify finds it and
//! refused with the reason (`imc.rs`). Not here: the host facts cloud-init adds and
//! advertises once the network is up (`local-ipv4`, `wait-on-network`).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/vmware.html>

mod guestinfo;
mod imc;
mod meta;
mod ovf;
mod ovf_env;
mod rpctool;

pub use ovf::Ovf;

use crate::context::Env;
use crate::datasource::{Datasource, InstanceData, Link, PublicKey};
use crate::detect::dmi::Dmi;
use crate::detect::Facts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::Evidence;
use guestinfo::{EnvVars, Payloads, Transport};
use rpctool::Rpctool;

pub struct Vmware;

/// ds-identify's container switch: the other `VMX_GUESTINFO_*` are read only when it is set.
const ENV_SWITCH: &str = "VMX_GUESTINFO";

fn evidence(source: &str, detail: String) -> Evidence {
    Evidence {
        source: source.into(),
        detail,
    }
}

/// cloud-init's `is_vmware_platform`: "vmware" in the DMI product name, case aside (ESXi,
/// Workstation and Fusion say "VMware Virtual Platform", newer ones "VMware20,1").
fn vmware_dmi(dmi: &Dmi) -> Option<String> {
    let name = dmi.get("product_name")?;
    name.to_ascii_lowercase()
        .contains("vmware")
        .then(|| format!("product_name={name}"))
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The container's variables, when `VMX_GUESTINFO` says to read them.
fn env_transport() -> Option<EnvVars> {
    env_var(ENV_SWITCH)?;
    Some(EnvVars { var: env_var })
}

/// Whether a transport holds any of the three keys (ds-identify's check): a failing tool
/// counts as no.
fn has_data(t: &mut dyn Transport) -> Option<String> {
    ["metadata", "userdata", "vendordata"]
        .iter()
        .find(|k| matches!(t.get(k), Ok(Some(_))))
        .map(|k| t.key_name(k))
}

impl Datasource for Vmware {
    fn name(&self) -> &'static str {
        "vmware"
    }
    fn cloud_init_name(&self) -> &'static str {
        "VMware"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        vmware_dmi(dmi)
    }

    /// As ds-identify: the container's variables; or VMware's DMI, a guestinfo tool and a
    /// key in the table (read here: it is local, and without it OVF, later in the list, would
    /// never be looked at). DMI alone is not enough.
    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = crate::datasource::selection_evidence(env, facts, self, None);
        if let Some(key) = env_transport().as_mut().and_then(|t| has_data(t)) {
            ev.push(evidence("env", format!("{ENV_SWITCH} with {key}")));
            return ev;
        }
        let Some(why) = vmware_dmi(&facts.dmi) else {
            return ev;
        };
        if let Some(mut rpc) = Rpctool::find(env) {
            if let Some(key) = has_data(&mut rpc) {
                ev.push(evidence("dmi", format!("VMware ({why})")));
                ev.push(evidence(
                    "guestinfo",
                    format!("{key} via {}", rpc.program()),
                ));
            } else if rpc.killed().is_some() {
                // On VMware, a tool that hangs or floods is broken, not a "no": the fetch
                // records why (a tool that exits with an error is not VMware's).
                ev.push(evidence("dmi", format!("VMware ({why})")));
                ev.push(evidence(
                    "guestinfo",
                    format!("{} killed at its bounds", rpc.program()),
                ));
            } else if let Some(imc) = imc::enabled(env) {
                // ds-identify's last transport: chosen, so the fetch says why it stops.
                ev.push(evidence("dmi", format!("VMware ({why})")));
                ev.push(evidence("imc", format!("guest customization: {imc}")));
            }
        }
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "vmware".into(),
            platform: Some("vmware".into()),
            ..InstanceData::default()
        };
        let cap = env.limits().inflated_bytes;
        let mut found: Option<(&str, Payloads, Box<dyn Transport + '_>)> = None;
        if let Some(mut t) = env_transport() {
            let p = guestinfo::read_all(&mut t, cap, &mut data.diags)?;
            if p.any() {
                found = Some(("envvar", p, Box::new(t)));
            }
        }
        if found.is_none() && vmware_dmi(&facts.dmi).is_some() {
            match Rpctool::find(env) {
                Some(mut rpc) => match guestinfo::read_all(&mut rpc, cap, &mut data.diags) {
                    Ok(p) if p.any() => found = Some(("guestinfo", p, Box::new(rpc))),
                    Ok(_) => {}
                    // The reason nothing was read: "no guestinfo" below would hide it.
                    Err(d) => return Err(d),
                },
                None => data.diags.push(Diag::warning(
                    Reason::ToolMissing,
                    "VMware without vmware-rpctool or vmtoolsd (open-vm-tools) in the initramfs or the target: guestinfo cannot be read",
                )),
            }
        }
        let Some((method, payloads, mut transport)) = found else {
            if let Some(imc) = imc::enabled(env).filter(|_| vmware_dmi(&facts.dmi).is_some()) {
                return Err(imc::refusal(&imc));
            }
            let msg = "no guestinfo metadata, userdata or vendordata";
            return Err(Diag::error(Reason::NoSeed, msg));
        };
        data.reads = payloads.reads;
        let md_file = transport.key_name("metadata");
        meta::build(payloads, &md_file, &facts.dmi, env.limits(), &mut data)?;
        // cloud-init clears what the metadata names, on the guestinfo transport only.
        let keys = data
            .meta_data
            .get("redact")
            .or_else(|| data.meta_data.get("cleanup-guestinfo"))
            .cloned();
        if let (Some(keys), "guestinfo") = (keys, method) {
            data.reads += guestinfo::redact(transport.as_mut(), &keys, &mut data.diags);
        }
        data.detail = format!("DataSourceVMware [seed={method}]");
        data.subplatform = format!("{method} ({md_file})");
        Ok(data)
    }

    fn public_keys(&self, data: &InstanceData) -> Vec<PublicKey> {
        meta::public_keys(&data.meta_data)
    }
}

/// The fuzz entry (`ember::fuzz::ovf_env`): the bytes as an OVF environment, and as guestinfo
/// metadata with each encoding. Only a panic or a runaway is a finding.
#[doc(hidden)]
pub fn fuzz(data: &[u8]) {
    let limits = crate::limits::Limits {
        inflated_bytes: 1 << 20,
        ..crate::limits::Limits::default()
    };
    let _ = ovf_env::parse(data, "ovf-env.xml", true, &limits, &mut Vec::new());
    let text = String::from_utf8_lossy(data);
    for enc in [None, Some("base64"), Some("gz+b64")] {
        let _ = guestinfo::decode(&text, enc, limits.inflated_bytes);
    }
    let payloads = Payloads {
        metadata: Some(crate::secret::Secret::new(data.to_vec())),
        ..Payloads::default()
    };
    let mut out = InstanceData::default();
    let dmi = Dmi::default();
    let _ = meta::build(payloads, "guestinfo.metadata", &dmi, &limits, &mut out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dmi_rule_as_cloud_init() {
        let yes = ["VMware Virtual Platform", "VMware20,1", "vmware7,1"];
        for name in yes {
            let dmi = Dmi::from_pairs(&[("product_name", name)]);
            assert_eq!(vmware_dmi(&dmi), Some(format!("product_name={name}")));
        }
        for name in ["Standard PC (Q35 + ICH9, 2009)", ""] {
            assert_eq!(
                vmware_dmi(&Dmi::from_pairs(&[("product_name", name)])),
                None
            );
        }
        assert_eq!(
            vmware_dmi(&Dmi::from_pairs(&[("sys_vendor", "VMware, Inc.")])),
            None
        );
    }
}
