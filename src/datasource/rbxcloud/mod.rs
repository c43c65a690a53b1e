//! RbxCloud (Rootbox, HyperOne): a VFAT volume labelled `CLOUDMD` (or `cloudmd`) holding
//! `cloud.json` and, optionally, `user.data`, read in-process as cloud-init's RbxCloud reads
//! them: the VM's id and name as meta-data, its user (name, SHA-512 password hash, ssh keys,
//! passwordless sudo) as the default user in platform config, and its adapters as a
//! network-config v1 named `eth0`, `eth1`, … by order. Not done: the gratuitous ARP cloud-init
//! sends from each address after boot (it needs `arping`, and only speeds up the gateway's
//! cache).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/rbxcloud.html>

use crate::context::Env;
use crate::datasource::common::openstack_files::parse_json;
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::Facts;
use crate::error::{Diag, Severity};
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::{json, Map, Value};

pub struct RbxCloud;

const LABEL: &str = "CLOUDMD";

/// cloud-init mounts the volume as FAT only.
fn volumes(facts: &Facts) -> Vec<&LabelledDevice> {
    seed_devices(&facts.devices, Some(LABEL), Media::DiscOrFat)
        .into_iter()
        .filter(|d| d.fs == "vfat")
        .collect()
}

impl Datasource for RbxCloud {
    fn name(&self) -> &'static str {
        "rbxcloud"
    }
    fn cloud_init_name(&self) -> &'static str {
        "RbxCloud"
    }
    fn evidence_wanted(&self) -> &'static str {
        "a volume labelled CLOUDMD"
    }

    fn detect(&self, _env: &Env, facts: &Facts) -> Vec<Evidence> {
        volumes(facts)
            .into_iter()
            .map(|d| Evidence {
                source: "label".into(),
                detail: format!("{} {} label {}", d.dev_name(), d.fs, d.labels.join(",")),
            })
            .collect()
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let mut last = Diag::error(Reason::NoSeed, format!("no VFAT volume labelled {LABEL}"));
        let mut tried = Vec::new();
        for dev in volumes(facts) {
            match read_volume(env, dev) {
                Ok(mut data) => {
                    // Volumes tried before are worth a word, not a failure.
                    data.diags.extend(tried.into_iter().map(|mut d: Diag| {
                        d.severity = Severity::Warning;
                        d
                    }));
                    return Ok(data);
                }
                Err(e) => {
                    tried.push(e.clone());
                    last = e;
                }
            }
        }
        Err(last)
    }
}

fn read_volume(env: &Env, dev: &LabelledDevice) -> Result<InstanceData, Diag> {
    let name = dev.dev_name();
    let mut vol = SeedVolume::open(env, dev)?;
    let file = format!("{name}: cloud.json");
    let Some(raw) = vol.read_file("cloud.json")? else {
        return Err(Diag::error(Reason::NoSeed, "no cloud.json").file(file));
    };
    let cloud = parse_json(&raw, &file)?;
    let mut data = InstanceData {
        datasource: "rbxcloud".into(),
        from_removable_media: dev.removable,
        reads: 2,
        ..InstanceData::default()
    };
    // user.data is optional; unreadable, it fails alone.
    match vol.read_file("user.data") {
        Ok(ud) => data.user_data = ud.map(Secret::new),
        Err(mut d) => {
            d.severity = Severity::Warning;
            data.diags.push(d);
        }
    }
    let hosts_exist = env.target.as_ref().is_some_and(|t| {
        t.read_file("/etc/hosts", 1 << 20)
            .is_ok_and(|h| h.is_some_and(|h| !h.is_empty()))
    });
    apply(&cloud, &file, hosts_exist, &mut data)?;
    data.detail = format!("DataSourceRbxCloud [seed={name}]");
    data.subplatform = format!("config-disk ({name})");
    Ok(data)
}

fn text<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

/// cloud.json into `data`. It must have `vm` (with `_id`) and `netadp`; an adapter that
/// lacks a key is left out, named.
fn apply(
    cloud: &Value,
    file: &str,
    hosts_exist: bool,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    for key in ["vm", "netadp"] {
        if cloud.get(key).is_none() {
            let msg = "missing: not an RbxCloud cloud.json";
            return Err(Diag::error(Reason::MissingKey, msg).key(key).file(file));
        }
    }
    let Some(id) = text(cloud, &["vm", "_id"]).filter(|s| !s.is_empty()) else {
        let d = Diag::error(Reason::MissingKey, "missing or not a string");
        return Err(d.key("vm._id").file(file));
    };
    data.instance_id = id.to_string();
    let mut md = json!({"instance-id": id, "public-keys": []});
    if let Some(name) = text(cloud, &["vm", "name"]) {
        md["local-hostname"] = json!(name);
    }
    data.meta_data = md;
    let adapters = cloud["netadp"].as_array().map_or(&[][..], Vec::as_slice);
    let mut config = Vec::new();
    for (i, a) in adapters.iter().enumerate() {
        match adapter(i, a) {
            Ok(c) => config.push(c),
            Err(key) => {
                let d = Diag::warning(
                    Reason::MissingKey,
                    "missing or of the wrong type: adapter left out",
                );
                data.diags
                    .push(d.key(format!("netadp.{i}.{key}")).file(file));
            }
        }
    }
    data.network_config = Some((file.to_string(), json!({"version": 1, "config": config})));
    data.config = Some(platform_config(cloud, hosts_exist));
    Ok(())
}

/// One adapter as cloud-init's `generate_network_config` writes it: `eth<i>` by MAC, a static
/// subnet per address with the network's mask, gateway and nameservers. `Err` names the key.
fn adapter(i: usize, a: &Value) -> Result<Value, &'static str> {
    let mac = text(a, &["macaddress"]).ok_or("macaddress")?;
    let net = a.get("network").ok_or("network")?;
    let netmask = text(net, &["netmask"]).ok_or("network.netmask")?;
    let gateway = text(net, &["gateway"]).ok_or("network.gateway")?;
    let dns = net
        .get("dns")
        .and_then(|d| d.get("nameservers"))
        .and_then(Value::as_array)
        .ok_or("network.dns.nameservers")?;
    let ips = a.get("ip").and_then(Value::as_array).ok_or("ip")?;
    let mut subnets = Vec::new();
    for ip in ips {
        let address = text(ip, &["address"]).ok_or("ip.address")?;
        subnets.push(json!({
            "type": "static", "address": address, "netmask": netmask, "control": "auto",
            "gateway": gateway, "dns_nameservers": dns,
        }));
    }
    Ok(json!({
        "type": "physical",
        "name": format!("eth{i}"),
        "mac_address": mac.to_ascii_lowercase(),
        "subnets": subnets,
    }))
}

/// The cloud-config cloud-init's RbxCloud supplies: the platform's user as the default user
/// (its password a SHA-512 hash, unlocked), password ssh logins, no root login, and
/// `/etc/hosts` managed when the image has none.
fn platform_config(cloud: &Value, hosts_exist: bool) -> Value {
    let extra = cloud.get("additionalMetadata");
    let get = |k: &str| extra.and_then(|e| e.get(k));
    let mut user = Map::new();
    if let Some(name) = get("username").and_then(Value::as_str) {
        user.insert("name".into(), json!(name));
        user.insert("gecos".into(), json!(name));
    }
    user.insert("sudo".into(), json!(["ALL=(ALL) NOPASSWD:ALL"]));
    if let Some(hash) = get("password")
        .and_then(|p| p.get("sha512"))
        .and_then(Value::as_str)
    {
        user.insert("passwd".into(), json!(hash));
    }
    user.insert("lock_passwd".into(), json!(false));
    let keys = get("sshKeys").cloned().unwrap_or(json!([]));
    user.insert("ssh_authorized_keys".into(), keys);
    json!({
        "ssh_pwauth": true,
        "disable_root": true,
        "system_info": {"default_user": user},
        "manage_etc_hosts": !hosts_exist,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cloud() -> Value {
        json!({
            "vm": {"_id": "5beab44f680cffd11f0e7a0c", "name": "rbx-test"},
            "additionalMetadata": {
                "username": "guru", "sshKeys": ["ssh-rsa AAA guru@rbx"],
                "password": {"sha512": "$6$rounds=4096$salt$hash"}
            },
            "netadp": [
                {"macaddress": "00:15:5D:FF:0F:03", "ip": [{"address": "62.181.8.174"}],
                 "network": {"netmask": "255.255.248.0", "gateway": "62.181.8.1",
                             "dns": {"nameservers": ["8.8.8.8", "8.8.4.4"]}}},
                {"macaddress": "00:15:5d:ff:0f:24", "ip": [{"address": "10.209.78.11"}],
                 "network": {"netmask": "255.255.255.0", "gateway": "10.209.78.1"}}
            ]
        })
    }

    #[test]
    fn cloud_json_as_cloud_init_reads_it() {
        let mut data = InstanceData::default();
        apply(&cloud(), "f", false, &mut data).unwrap();
        assert_eq!(data.instance_id, "5beab44f680cffd11f0e7a0c");
        assert_eq!(data.meta_data["local-hostname"], "rbx-test");
        assert_eq!(data.meta_data["public-keys"], json!([]));
        let (_, net) = data.network_config.as_ref().unwrap();
        assert_eq!(
            net["config"][0],
            json!({"type": "physical", "name": "eth0", "mac_address": "00:15:5d:ff:0f:03",
                   "subnets": [{"type": "static", "address": "62.181.8.174",
                     "netmask": "255.255.248.0", "control": "auto", "gateway": "62.181.8.1",
                     "dns_nameservers": ["8.8.8.8", "8.8.4.4"]}]})
        );
        // The second adapter lacks its nameservers: left out, named.
        assert_eq!(net["config"].as_array().unwrap().len(), 1);
        assert_eq!(
            data.diags[0].key.as_deref(),
            Some("netadp.1.network.dns.nameservers")
        );
        let cfg = data.config.unwrap();
        let user = &cfg["system_info"]["default_user"];
        assert_eq!(user["name"], "guru");
        assert_eq!(user["passwd"], "$6$rounds=4096$salt$hash");
        assert_eq!(user["lock_passwd"], false);
        assert_eq!(user["ssh_authorized_keys"], json!(["ssh-rsa AAA guru@rbx"]));
        assert_eq!(
            (cfg["ssh_pwauth"].clone(), cfg["manage_etc_hosts"].clone()),
            (json!(true), json!(true))
        );
    }

    #[test]
    fn without_vm_or_netadp_it_is_not_rbxcloud() {
        for key in ["vm", "netadp"] {
            let mut c = cloud();
            c.as_object_mut().unwrap().remove(key);
            let err = apply(
                &c,
                "/dev/vdb: cloud.json",
                true,
                &mut InstanceData::default(),
            )
            .unwrap_err();
            assert_eq!(
                (err.code.as_str(), err.key.as_deref()),
                ("missing-key", Some(key))
            );
        }
    }
}
