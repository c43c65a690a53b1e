//! SmartOS (Joyent, Triton): detected as ds-identify does, from DMI `product_name` `SmartDC…`
//! (a KVM/bhyve guest) or, in an LX-branded zone, the kernel version `BrandZ virtual linux`
//! with the agent's socket `/native/.zonecontrol/metadata.sock`; read over the Joyent
//! metadata protocol v2 (protocol.rs) on the second serial port (`/dev/ttyS1`) or that socket,
//! one request per key, as cloud-init's DataSourceSmartOS reads them. Into `InstanceData`:
//! meta-data with cloud-init's names, user-data (`cloud-init:user-data`), vendor-data
//! (`sdc:vendor-data`, else cloud-init's built-in boothook that runs the operator and user
//! scripts each boot), the scripts and `/var/db/mdata-user-data` as files for the target, the
//! NICs as network-config v1 (network.rs), and on KVM the `ephemeral0` disk's layout. Not
//! here: writing the metadata back (`PUT`), `/var/svc/provisioning` (a zone has no initramfs).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/smartos.html>

mod keys;
mod network;
mod protocol;

use crate::context::Env;
use crate::datasource::common::{metadata_get, serial};
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::Evidence;
use protocol::{Client, Failure};
use serde_json::{json, Value};
use std::time::Duration;

pub struct SmartOs;

const SERIAL_DEVICE: &str = "/dev/ttyS1";
const SOCKET: &str = "/native/.zonecontrol/metadata.sock";
/// cloud-init's `serial_timeout`: how long one answer may take, in seconds.
const SERIAL_TIMEOUT: u64 = 60;

/// The way to the agent: the second UART of a hardware VM, or a zone's socket.
#[derive(Clone, Debug, PartialEq)]
enum Channel {
    Serial(String),
    Socket(String),
}

fn smartdc(dmi: &Dmi) -> Option<String> {
    let name = dmi.fields.get("product_name")?;
    name.starts_with("SmartDC")
        .then(|| format!("product_name={name}"))
}

/// A setting of `datasource: {SmartOS: {…}}` that is a string.
fn setting<'a>(env: &'a Env, key: &str) -> Option<&'a str> {
    env.image
        .datasource_settings("SmartOS")
        .and_then(|c| c.get(key))
        .and_then(Value::as_str)
}

/// The zone's evidence, as ds-identify's: the BrandZ kernel and the agent's socket.
fn zone(env: &Env) -> Option<String> {
    let version = std::fs::read_to_string(env.host.path("/proc/sys/kernel/version")).ok()?;
    let sock = setting(env, "metadata_sockfile").unwrap_or(SOCKET);
    use std::os::unix::fs::FileTypeExt;
    let is_socket = std::fs::metadata(env.host.path(sock)).is_ok_and(|m| m.file_type().is_socket());
    (version.trim() == "BrandZ virtual linux" && is_socket)
        .then(|| format!("kernel 'BrandZ virtual linux' and the metadata socket {sock}"))
}

impl Datasource for SmartOs {
    fn name(&self) -> &'static str {
        "smartos"
    }
    fn cloud_init_name(&self) -> &'static str {
        "SmartOS"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        smartdc(dmi)
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = crate::datasource::selection_evidence(env, facts, self, smartdc(&facts.dmi));
        if let Some(detail) = zone(env) {
            ev.push(Evidence {
                source: "zone".into(),
                detail,
            });
        }
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        // A zone is taken only on its own evidence; anything else is a hardware VM.
        let chan = match zone(env) {
            Some(_) if smartdc(&facts.dmi).is_none() => {
                Channel::Socket(setting(env, "metadata_sockfile").unwrap_or(SOCKET).into())
            }
            _ => Channel::Serial(
                setting(env, "serial_device")
                    .unwrap_or(SERIAL_DEVICE)
                    .into(),
            ),
        };
        let mut client = open(env, &chan)?;
        let mut data = InstanceData {
            datasource: "smartos".into(),
            platform: Some("joyent".into()),
            ..InstanceData::default()
        };
        let (shown, kind) = match &chan {
            Channel::Serial(p) => (p.clone(), "serial"),
            Channel::Socket(p) => (p.clone(), "socket"),
        };
        let legacy = matches!(chan, Channel::Serial(_));
        let read = keys::read_all(&mut client, legacy, &shown, &mut data.diags);
        data.reads = client.sent;
        data.detail = format!("DataSourceSmartOS [client={kind} {shown}]");
        data.subplatform = format!("{kind} ({shown})");
        keys::build(read, &shown, &mut data)?;
        if let Channel::Serial(_) = chan {
            data.config = Some(kvm_config(env));
        }
        Ok(data)
    }
}

/// Opens the channel and agrees on version 2, under the datasource's deadlines.
fn open(env: &Env, chan: &Channel) -> Result<Client, Diag> {
    let (request, until, _) = metadata_get::timing(env, "SmartOS", 0);
    let per_reply = env
        .image
        .datasource_settings("SmartOS")
        .and_then(|c| c.get("serial_timeout"))
        .and_then(Value::as_f64)
        .filter(|s| *s > 0.0)
        .map_or(Duration::from_secs(SERIAL_TIMEOUT), Duration::from_secs_f64)
        .min(request);
    // A value's base64 is 4/3 of it, and a frame says a little more.
    let max_line = (env.limits().file_bytes as usize / 3 + 1) * 4 + 256;
    let (path, opened) = match chan {
        Channel::Serial(p) => (p, serial::open_serial(&env.host.path(p), max_line)),
        Channel::Socket(p) => (p, serial::open_socket(&env.host.path(p), max_line)),
    };
    let unreachable =
        |why: String| Diag::error(Reason::MetadataUnreachable, why).file(path.clone());
    let chan_io =
        opened.map_err(|e| unreachable(format!("cannot open the metadata channel: {e}")))?;
    let mut client = Client {
        chan: chan_io.metered(env.fetched),
        per_reply,
        until,
        sent: 0,
    };
    if let Channel::Serial(_) = chan {
        client.probe().map_err(|e| {
            unreachable(format!("the metadata agent did not answer on the serial port ({e}): is the host's metadata service running?"))
        })?;
    }
    client
        .negotiate()
        .map_err(|e: Failure| unreachable(format!("NEGOTIATE V2 failed: {e}")))?;
    Ok(client)
}

/// cloud-init's built-in config for a hardware VM: the second disk is `ephemeral0` (or the
/// image's `disk_aliases`), given an MBR and ext4 only when the user's config asks for a
/// layout. The layout is left out when the machine has no such disk: cloud-init would try it
/// and log the failure, ember would wait for the device and record an error.
fn kvm_config(env: &Env) -> Value {
    let aliases = env
        .image
        .datasource_settings("SmartOS")
        .and_then(|c| c.get("disk_aliases"))
        .filter(|a| a.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"ephemeral0": "/dev/vdb"}));
    let disk = aliases
        .get("ephemeral0")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let name = disk.rsplit('/').next().unwrap_or_default();
    let present = !name.is_empty() && env.host.sys_block().join(name).exists();
    let mut cfg = json!({"device_aliases": aliases});
    if present {
        cfg["disk_setup"] =
            json!({"ephemeral0": {"table_type": "mbr", "layout": false, "overwrite": false}});
        cfg["fs_setup"] =
            json!([{"label": "ephemeral0", "filesystem": "ext4", "device": "ephemeral0"}]);
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smartdc_product_names() {
        let d = |v: &str| smartdc(&Dmi::from_pairs(&[("product_name", v)]));
        assert_eq!(d("SmartDC HVM"), Some("product_name=SmartDC HVM".into()));
        assert_eq!(d("SmartDC"), Some("product_name=SmartDC".into()));
        assert_eq!(d("Smart DC"), None);
        assert_eq!(
            smartdc(&Dmi::from_pairs(&[("sys_vendor", "SmartDC")])),
            None
        );
    }
}
