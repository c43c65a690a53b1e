//! LXD and Incus instances: detected as ds-identify does (the devlxd socket /dev/lxd/sock, or
//! on an LXD VM, before lxd-agent has made it, the virtio serial port LXD names
//! `com.canonical.lxd` or `org.linuxcontainers.lxd`; DMI `board_name` LXD too) and read over
//! that socket's HTTP API (`api.rs`): the meta-data, the instance's `cloud-init.*` and
//! `user.*` config keys, and its devices. Into `InstanceData` as cloud-init's DataSourceLXD has it: meta-data as served (instance-id,
//! local-hostname), user-data, vendor-data and network-config from `cloud-init.*` with the
//! `user.*` keys as fallbacks, every config key kept in instance data (secrets redacted), and
//! without network-config the LXD fallback (`network.rs`).
//! Not here: `user.meta-data` merged into the meta-data (cloud-init 26 reads it but never
//! merges it), hotplug, and an LXD VM booted from ember's initramfs: its socket is made by
//! lxd-agent in the booted system, so there the fetch fails and says so (ember-local.service
//! reads it from the booted system). LXD's config share (the 9p/virtiofs tag `config`, with
//! `cloud-init/user-data` and the rest beside lxd-agent) is not mounted here; a VM given
//! `source=cloud-init:config` has the same files on a `cidata` disc, which NoCloud reads.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/lxd.html>
//! <https://documentation.ubuntu.com/lxd/en/latest/dev-lxd/>

mod api;
mod network;

use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::Evidence;
use serde_json::{json, Value};
use std::os::unix::fs::FileTypeExt;

pub struct Lxd;

/// The devlxd socket, as a host path.
pub const SOCKET: &str = "/dev/lxd/sock";
/// The API version read, and the URL the socket's server is asked under (its host is only
/// the Host header: the fetcher dials the socket).
const API_VERSION: &str = "1.0";
const BASE: &str = "http://lxd/1.0";
/// cloud-init retries a 500 for three seconds; ember's deadline bounds the same retries.
const RETRIES: u32 = 30;

/// The names LXD gives the virtio serial port of its VMs (Incus keeps the older one).
const PORT_NAMES: [&str; 2] = ["com.canonical.lxd", "org.linuxcontainers.lxd"];
const VIRTIO_PORTS: &str = "/sys/class/virtio-ports";

/// The virtio serial port that marks an LXD VM, as `vport0p1: com.canonical.lxd`. The name is
/// LXD's own, so no hypervisor check guards it (ds-identify also asks for kvm or qemu).
fn lxd_port(env: &Env) -> Option<String> {
    let ports = std::fs::read_dir(env.host.path(VIRTIO_PORTS)).ok()?;
    let mut found: Vec<String> = ports
        .flatten()
        .filter_map(|port| {
            let name = std::fs::read_to_string(port.path().join("name")).ok()?;
            let name = name.trim();
            PORT_NAMES
                .contains(&name)
                .then(|| format!("{}: {name}", port.file_name().to_string_lossy()))
        })
        .collect();
    ember_core::sort::sort(&mut found);
    found.into_iter().next()
}

/// Whether the socket exists as a socket (not followed if a link, as cloud-init's lstat).
fn socket_present(env: &Env) -> bool {
    std::fs::symlink_metadata(env.host.path(SOCKET)).is_ok_and(|m| m.file_type().is_socket())
}

impl Datasource for Lxd {
    fn name(&self) -> &'static str {
        "lxd"
    }
    fn cloud_init_name(&self) -> &'static str {
        "LXD"
    }

    /// ds-identify's DMI test for an LXD VM, whose socket appears only once lxd-agent runs.
    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        (dmi.fields.get("board_name")? == "LXD").then(|| "board_name=LXD".into())
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = crate::datasource::selection_evidence(env, facts, self, self.dmi(&facts.dmi));
        if socket_present(env) {
            ev.push(Evidence {
                source: "socket".into(),
                detail: SOCKET.into(),
            });
        } else if let Some(port) = lxd_port(env) {
            ev.push(Evidence {
                source: "virtio-port".into(),
                detail: format!("{VIRTIO_PORTS}/{port}"),
            });
        }
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let vm = self.dmi(&facts.dmi).is_some() || lxd_port(env).is_some();
        if !socket_present(env) {
            let why = if vm {
                "no devlxd socket: on an LXD VM lxd-agent makes it in the booted system, after the initramfs (ember-local.service reads it there)"
            } else {
                "no devlxd socket: the instance has security.devlxd=false"
            };
            return Err(Diag::error(Reason::MetadataUnreachable, why).file(SOCKET));
        }
        let client = Client::over_unix_socket(env, "LXD", SOCKET, BASE, RETRIES);
        let mut data = InstanceData {
            datasource: "lxd".into(),
            ..InstanceData::default()
        };
        let reader = api::Reader { client: &client };
        let crawled = reader.crawl(env, &mut data)?;
        assemble(env, crawled, vm, &mut data);
        Ok(data)
    }
}

/// `InstanceData` from what the socket gave: meta-data, the promoted config keys, the
/// network config (given, else LXD's fallback), and instance data's `ds` as cloud-init's.
fn assemble(env: &Env, crawled: api::Crawled, vm: bool, data: &mut InstanceData) {
    let instance_id = match crawled.meta_data.get("instance-id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => {
            data.diags.push(
                Diag::warning(
                    Reason::MissingKey,
                    "no instance-id: the instance is named iid-datasource, as cloud-init names it",
                )
                .file(api::url("meta-data"))
                .key("instance-id"),
            );
            "iid-datasource".into()
        }
    };
    data.user_data = crawled.user_data;
    data.vendor_data = crawled.vendor_data;
    match crawled.network_config {
        Some((file, doc)) => {
            data.network_config = Some((file, doc.value));
            data.network_config_lines = doc.lines;
        }
        None if crawled.network_config_failed => {}
        None => {
            let nic = network::fallback_nic(env.host, vm);
            data.network_config = Some(("lxd fallback".into(), network::fallback(&nic)));
        }
    }
    data.ds.crawled = true;
    data.ds
        .extra
        .insert("_metadata_api_version".into(), json!(API_VERSION));
    data.ds
        .extra
        .insert("config".into(), Value::Object(crawled.config));
    if let Some(devices) = crawled.devices {
        data.ds.extra.insert("devices".into(), devices);
    }
    if let Some(raw) = crawled.network_config_raw {
        data.ds.extra.insert("network-config".into(), json!(raw));
    }
    data.detail = "DataSourceLXD".into();
    data.subplatform = format!("LXD socket API v. {API_VERSION} ({SOCKET})");
    data.instance_id = instance_id;
    data.meta_data = Value::Object(crawled.meta_data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lxd_vm_by_board_name_only() {
        assert_eq!(
            Lxd.dmi(&Dmi::from_pairs(&[("board_name", "LXD")])),
            Some("board_name=LXD".into())
        );
        assert_eq!(Lxd.dmi(&Dmi::from_pairs(&[("board_name", "lxd")])), None);
        assert_eq!(Lxd.dmi(&Dmi::from_pairs(&[("sys_vendor", "LXD")])), None);
    }
}
