//! What Azure's data becomes besides meta-data: the platform's cloud-config (the default
//! user with the password only as a hash, `ssh_pwauth`, the network's update events, the
//! resource disk), the keys of ovf-env.xml, and the settings under `datasource: {Azure: …}`.

use super::disk;
use super::imds;
use super::ovf::Ovf;
use crate::context::Env;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{json, Value};

const OVF_NAME: &str = "ovf-env.xml";

/// Keys given whole in ovf-env.xml; those with a fingerprint only are skipped.
pub fn ovf_keys(ovf: Option<&Ovf>) -> Vec<String> {
    ovf.map(|o| {
        o.public_keys
            .iter()
            .filter_map(|k| k.value.as_deref())
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(String::from)
            .collect()
    })
    .unwrap_or_default()
}

/// cloud-init's config from ovf-env.xml and IMDS: the default user (IMDS's admin name wins),
/// its password only as a SHA-512 crypt hash, `ssh_pwauth`, and the resource disk.
pub fn platform_config(
    env: &Env,
    ovf: Option<&Ovf>,
    imds: Option<&Value>,
    data: &mut InstanceData,
) -> Value {
    let mut cfg = json!({});
    let mut user = serde_json::Map::new();
    let name = imds
        .and_then(imds::username)
        .or(ovf.and_then(|o| o.username.as_deref()));
    if let Some(n) = name {
        user.insert("name".into(), json!(n));
    }
    if let Some(password) = ovf.and_then(|o| o.password.as_ref()) {
        user.insert("lock_passwd".into(), json!(false));
        match crate::password::hash(password) {
            Some(hash) => {
                user.insert("hashed_passwd".into(), json!(hash.expose()));
            }
            None => data.diags.push(
                Diag::error(
                    Reason::AzurePassword,
                    "no randomness to salt the hash: password not set",
                )
                .file(OVF_NAME)
                .key("UserPassword"),
            ),
        }
    }
    if !user.is_empty() {
        cfg["system_info"] = json!({"default_user": user});
    }
    let disable = ovf
        .and_then(|o| o.disable_ssh_password_auth)
        .or(imds.and_then(imds::disable_password));
    match disable {
        Some(d) => cfg["ssh_pwauth"] = json!(!d),
        None if ovf.is_some_and(|o| o.password.is_some()) => cfg["ssh_pwauth"] = json!(true),
        None => {}
    }
    if let Some((_, node)) = disk::find(env.host) {
        let keep_ntfs = datasource_flag(env, "never_destroy_ntfs").unwrap_or(false);
        let fresh = !keep_ntfs && disk::fresh(&node);
        let shown = format!(
            "/dev/{}",
            node.file_name().unwrap_or_default().to_string_lossy()
        );
        crate::config::merge::merge_replace(&mut cfg, disk::config(&shown, fresh));
    }
    cfg
}

fn datasource_flag(env: &Env, key: &str) -> Option<bool> {
    env.image
        .datasource_settings("Azure")
        .and_then(|c| c.get(key))
        .and_then(Value::as_bool)
}

/// `datasource: {Azure: {apply_network_config: false}}` leaves the network to the fallback.
pub fn apply_network_config(env: &Env) -> bool {
    datasource_flag(env, "apply_network_config").unwrap_or(true)
}

/// The driver of the NICs with this MAC, `hv_netvsc` first: accelerated networking gives
/// the VF (mlx4/mlx5) the synthetic NIC's MAC.
pub fn nic_driver(host: &crate::host::Host, mac: &str) -> Option<String> {
    let base = host.path("/sys/class/net");
    let drivers: Vec<String> = std::fs::read_dir(&base)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let dir = e.path();
            let addr = std::fs::read_to_string(dir.join("address")).ok()?;
            if !addr.trim().eq_ignore_ascii_case(mac) {
                return None;
            }
            let link = std::fs::read_link(dir.join("device/driver")).ok()?;
            Some(link.file_name()?.to_string_lossy().into_owned())
        })
        .collect();
    let netvsc = drivers.iter().find(|d| *d == "hv_netvsc");
    netvsc.or(drivers.first()).cloned()
}
