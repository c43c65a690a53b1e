//! cloud-init's instance-data.json: the `v1` keys every platform shares (derived from the
//! datasource's meta-data by cloud-init's rules), `ds` with the raw meta-data, the merged
//! config, and system facts. The sensitive copy (0600) has everything; the world-readable one
//! has the sensitive keys replaced, as cloud-init does.
//! <https://docs.cloud-init.io/en/latest/explanation/instancedata.html>

use crate::datasource::InstanceData;
use crate::root::Root;
use ember_core::sort::IntoMap;
use serde_json::{json, Map, Value};

/// The keys naming no particular user: what every platform gives the default user.
fn default_user_keys(data: &InstanceData) -> Vec<&str> {
    let keys = data.public_keys.iter().filter(|k| k.user.is_none());
    keys.map(|k| k.key.as_str()).collect()
}

/// The most read of a small system file of the target (os-release, /etc/hosts).
const SYSTEM_FILE_BYTES: u64 = 64 * 1024;

pub const REDACTED: &str = "redacted for non-root user";

/// cloud-init's sensitive keys: a value is redacted in the world-readable copy when its key's
/// name or its whole `/`-separated path is one of these, compared without case. EC2's
/// `iam/security-credentials`, GCE's `instance-data/user-data` are caught by name. `password`
/// is ember's own (a platform password in meta-data, as CloudStack serves one).
const SENSITIVE_KEYS: [&str; 16] = [
    "combined_cloud_config",
    "merged_cfg",
    "merged_system_cfg",
    "security-credentials",
    "userdata",
    "user-data",
    "user_data",
    "vendordata",
    "vendor-data",
    // A path, not a name: the top-level `vendor_data` config key is not a secret.
    "ds/vendor_data",
    "password",
    // LXD's config keys carrying user-data and vendor-data (and user.meta-data, which may
    // too), kept in `ds/config` as cloud-init keeps them.
    "cloud-init.user-data",
    "cloud-init.vendor-data",
    "user.user-data",
    "user.vendor-data",
    "user.meta-data",
];

fn is_sensitive(key: &str, path: &str) -> bool {
    let (key, path) = (key.to_ascii_lowercase(), path.to_ascii_lowercase());
    SENSITIVE_KEYS.iter().any(|s| *s == key || *s == path)
}

/// Every sensitive path in `v`, sorted: instance data's `sensitive_keys`.
fn sensitive_paths(v: &Value, path: &str, out: &mut Vec<String>) {
    let Value::Object(map) = v else { return };
    for (key, child) in map {
        let at = join(path, key);
        if is_sensitive(key, &at) {
            out.push(at.clone());
        }
        sensitive_paths(child, &at, out);
    }
}

fn join(path: &str, key: &str) -> String {
    match path {
        "" => key.to_string(),
        _ => format!("{path}/{key}"),
    }
}

/// cloud-init's note on `ds`.
const DS_DOC: &str = "EXPERIMENTAL: The structure and format of content scoped under the 'ds' key may change in subsequent releases of cloud-init.";

/// The distribution as /etc/os-release in the target says: (id, version_id, codename).
pub fn distro(target: Option<&Root>) -> (String, String, String) {
    let text = target
        .and_then(|r| {
            r.read_file("/etc/os-release", SYSTEM_FILE_BYTES)
                .ok()
                .flatten()
        })
        .or_else(|| {
            target.and_then(|r| {
                r.read_file("/usr/lib/os-release", SYSTEM_FILE_BYTES)
                    .ok()
                    .flatten()
            })
        })
        .map(|d| String::from_utf8_lossy(&d).into_owned())
        .unwrap_or_default();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim_matches('"').to_string())
            .unwrap_or_default()
    };
    (field("ID"), field("VERSION_ID"), field("VERSION_CODENAME"))
}

fn md_str<'a>(md: &'a Value, key: &str) -> Option<&'a str> {
    md.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// cloud-init's `availability_zone`: the datasource's own (Azure's fault domain, EC2's
/// identity document), else meta-data's `availability-zone`, `availability_zone`, then
/// `placement/availability-zone`.
fn availability_zone(data: &InstanceData) -> Value {
    if let Some(zone) = &data.availability_zone {
        return json!(zone);
    }
    let md = &data.meta_data;
    let top = ["availability-zone", "availability_zone"]
        .iter()
        .find_map(|k| md.get(*k).filter(|v| !v.is_null() && *v != ""));
    let placed = || md.get("placement")?.get("availability-zone");
    top.or_else(placed).cloned().unwrap_or(Value::Null)
}

/// cloud-init's `region`: the datasource's own, else meta-data's `region`.
fn region(data: &InstanceData) -> Value {
    match &data.region {
        Some(r) => json!(r),
        None => data.meta_data.get("region").cloned().unwrap_or(Value::Null),
    }
}

/// cloud-init's `platform`: the datasource's where it is not its name.
fn platform(data: &InstanceData) -> &str {
    data.platform.as_deref().unwrap_or(&data.datasource)
}

/// cloud-init's `cloud_name`: the datasource's own, else meta-data's `cloud-name`, else the
/// platform; lowercase.
fn cloud_name(data: &InstanceData) -> String {
    let from_md = || md_str(&data.meta_data, "cloud-name");
    let name = data.cloud_name.as_deref().or_else(from_md);
    name.unwrap_or(platform(data)).to_lowercase()
}

pub use crate::datasource::instance::{canonical_cloud_id, UNKNOWN};

/// `v1.cloud_id` of this instance.
pub fn cloud_id(data: &InstanceData) -> String {
    let region = region(data);
    let region = region.as_str().unwrap_or("");
    canonical_cloud_id(&cloud_name(data), region, platform(data))
}

/// cloud-init's `local_hostname` (`get_hostname`), by the hostname module's rule: the first
/// label of meta-data's `local-hostname` (an IPv4 address becomes `ip-10-0-0-1`); without
/// one, the system's name, which in the initramfs is the target's /etc/hostname (its fqdn
/// from /etc/hosts).
fn v1_hostname(data: &InstanceData, target: Option<&Root>) -> String {
    use crate::modules::hostname::{self as h, names};
    let read = |path| target.and_then(|r| h::read_text(r, path, SYSTEM_FILE_BYTES));
    let (hostname, hosts) = (read(h::ETC_HOSTNAME), read(h::ETC_HOSTS));
    names::cloud_hostname(&names::Inputs {
        local_hostname: data.local_hostname(),
        target_hostname: hostname.as_deref().and_then(h::hostname_in),
        target_hosts: hosts.as_deref(),
        ..names::Inputs::default()
    })
}

/// `ds`: the meta-data (under `meta-data` for a datasource whose tree cloud-init keeps as
/// crawled, as EC2's) and what the datasource keeps beside it (EC2's identity document).
fn ds_tree(data: &InstanceData) -> Value {
    let mut ds = Map::new();
    ds.insert("_doc".into(), json!(DS_DOC));
    for (key, value) in &data.ds.extra {
        ds.insert(key.clone(), value.clone());
    }
    let md_key = if data.ds.crawled {
        "meta-data"
    } else {
        "meta_data"
    };
    ds.insert(md_key.into(), data.meta_data.clone());
    Value::Object(ds)
}

/// `merged_system_cfg._doc`: where the image's config came from. Templates print it into
/// YAML and shell lines (`echo '{{ merged_system_cfg._doc }}'`): no quote, colon or `#`.
pub const SYSTEM_CFG_DOC: &str =
    "System config of this image merged from /etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d/";

/// Builds the sensitive document; `redact` makes the world-readable one from it.
pub fn build(
    data: &InstanceData,
    merged_cfg: &Value,
    system_cfg: &Value,
    target: Option<&Root>,
) -> Value {
    let uname = rustix::system::uname();
    let text = |s: &std::ffi::CStr| s.to_string_lossy().into_owned();
    let (release, machine) = (text(uname.release()), text(uname.machine()));
    let (distro, version, codename) = distro(target);
    let hostname = v1_hostname(data, target);
    let zone = availability_zone(data);
    let system_platform = format!("Linux-{release}-{machine}");
    let cloud_name = cloud_name(data);
    // Templates and `query` read the image's config here, with a line saying what it is.
    let mut system = system_cfg.clone();
    if let Some(map) = system.as_object_mut() {
        map.insert("_doc".into(), json!(SYSTEM_CFG_DOC));
    }
    let v1 = json!({
        "_beta_keys": ["subplatform"],
        "availability_zone": zone.clone(),
        "availability-zone": zone,
        "cloud_id": cloud_id(data),
        "cloud_name": cloud_name,
        "cloud-name": cloud_name,
        "distro": distro,
        "distro_release": codename,
        "distro_version": version,
        "instance_id": data.instance_id,
        "instance-id": data.instance_id,
        "kernel_release": release,
        "local_hostname": hostname.clone(),
        "local-hostname": hostname,
        "machine": machine,
        "platform": platform(data),
        "public_ssh_keys": default_user_keys(data),
        "python_version": Value::Null,
        "region": region(data),
        "subplatform": data.subplatform,
        "system_platform": system_platform,
        "variant": distro,
    });
    let mut doc = json!({
        "_doc": "ember writes this file in cloud-init's layout; keys under 'ds' follow the datasource",
        "base64_encoded_keys": [],
        "ds": ds_tree(data),
        "merged_cfg": merged_cfg,
        "merged_system_cfg": system,
        "sys_info": {
            "dist": [distro, version, codename],
            "platform": system_platform,
            "python": Value::Null,
            "uname": [text(uname.sysname()), text(uname.nodename()), release, text(uname.version()), machine],
            "variant": distro,
        },
        "v1": v1,
    });
    let mut found = Vec::new();
    sensitive_paths(&doc, "", &mut found);
    ember_core::sort::sort(&mut found);
    doc["sensitive_keys"] = json!(found);
    doc
}

/// A document written with some top-level keys put in or replaced, without copying it: the
/// merged config, as large as the user-data, is not copied to be written. Keys of `over` come
/// last, in their order.
pub struct Patched<'a> {
    pub base: &'a Value,
    pub over: Vec<(&'static str, &'a Value)>,
}

impl serde::Serialize for Patched<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(map) = self.base else {
            return self.base.serialize(s);
        };
        let mut out = s.serialize_map(None)?;
        let replaced = |key: &str| self.over.iter().any(|(k, _)| *k == key);
        for (key, value) in map.iter().filter(|(k, _)| !replaced(k)) {
            out.serialize_entry(key, value)?;
        }
        for (key, value) in &self.over {
            out.serialize_entry(key, value)?;
        }
        out.end()
    }
}

/// cloud-init's build-time feature flags (`cloudinit/features.py`), valued as the behaviours
/// ember has (upstream's defaults but `STRIP_INVALID_MTU`: ember leaves out `mtu: 0`, see the
/// manual's differences): combined-cloud-config.json and the sensitive instance data carry
/// them for tools that ask which behaviour is in force.
pub fn features() -> Value {
    json!({
        "ALLOW_EC2_MIRRORS_ON_NON_AWS_INSTANCE_TYPES": false,
        "APT_DEB822_SOURCE_LIST_FILE": true,
        "DEPRECATION_INFO_BOUNDARY": "devel",
        "ERROR_ON_USER_DATA_FAILURE": true,
        "EXPIRE_APPLIES_TO_HASHED_USERS": true,
        "MANUAL_NETWORK_WAIT": true,
        "NETPLAN_CONFIG_ROOT_READ_ONLY": true,
        "NOCLOUD_SEED_URL_APPEND_FORWARD_SLASH": true,
        "STRIP_INVALID_MTU": true,
    })
}

/// combined-cloud-config.json's `_doc`: what the file is.
pub const COMBINED_DOC: &str = "ember's merged cloud-config: the image's system config \
     (/etc/cloud/cloud.cfg, cloud.cfg.d), then the platform's, vendor-data and user-data, \
     as the modules act on it";

/// The world-readable copy: the value at every sensitive path replaced. Sensitive values are
/// never copied (the merged config can be as large as the user-data).
pub fn redact(sensitive: &Value) -> Value {
    redact_below(sensitive, "")
}

fn redact_below(v: &Value, path: &str) -> Value {
    let Value::Object(map) = v else {
        return v.clone();
    };
    let fields = map.iter().map(|(key, child)| {
        let at = join(path, key);
        let out = match is_sensitive(key, &at) {
            true => Value::String(REDACTED.into()),
            false => redact_below(child, &at),
        };
        (key.clone(), out)
    });
    Value::Object(fields.into_map())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(md: Value) -> InstanceData {
        InstanceData {
            datasource: "nocloud".into(),
            instance_id: "iid-1".into(),
            meta_data: md,
            ..InstanceData::default()
        }
    }

    #[test]
    fn redaction_by_name_or_path_without_case() {
        let d = data(json!({"local-hostname": "h1", "instance-id": "iid-1",
            "iam": {"security-credentials": {"role": {"Token": "hunter2"}}},
            "instance-data": {"User-Data": "hunter2", "role": "web"}}));
        let cfg = json!({"password": "hunter2"});
        let full = build(&d, &cfg, &json!({"vendor_data": {"enabled": true}}), None);
        assert_eq!(full["v1"]["instance_id"], "iid-1");
        assert_eq!(full["v1"]["local-hostname"], "h1");
        assert_eq!(full["merged_cfg"]["password"], "hunter2");
        let public = redact(&full);
        assert_eq!(public["merged_cfg"], REDACTED);
        let md = &public["ds"]["meta_data"];
        assert_eq!(md["iam"]["security-credentials"], REDACTED);
        assert_eq!(md["instance-data"]["User-Data"], REDACTED);
        assert_eq!(md["instance-data"]["role"], "web");
        assert_eq!(md["local-hostname"], "h1");
        assert!(!public.to_string().contains("hunter2"));
        assert_eq!(public["v1"], full["v1"]);
        let listed = full["sensitive_keys"].as_array().unwrap();
        for want in [
            "ds/meta_data/iam/security-credentials",
            "ds/meta_data/instance-data/User-Data",
            "merged_cfg",
            "merged_system_cfg",
        ] {
            assert!(listed.contains(&json!(want)), "{want} in {listed:?}");
        }
        // Only the path `ds/vendor_data` is secret, not a config key of that name.
        assert!(!listed.contains(&json!("merged_system_cfg/vendor_data")));
    }

    #[test]
    fn v1_keys_by_cloud_init_rules() {
        let v1 = |d: &InstanceData| build(d, &Value::Null, &Value::Null, None)["v1"].clone();
        // The zone from placement, the host name's first label.
        let d = data(json!({"local-hostname": "ip-10-0-1-5.ec2.internal",
            "placement": {"availability-zone": "us-east-1b"}, "cloud-name": "MyCloud"}));
        let v = v1(&d);
        assert_eq!(v["availability_zone"], "us-east-1b");
        assert_eq!(v["local_hostname"], "ip-10-0-1-5");
        assert_eq!(
            (&v["cloud_name"], &v["cloud_id"]),
            (&json!("mycloud"), &json!("mycloud"))
        );
        assert_eq!(v["region"], Value::Null);
        // An address as host name; no zone at all.
        let v = v1(&data(json!({"local-hostname": "10.1.2.3"})));
        assert_eq!(v["local_hostname"], "ip-10-1-2-3");
        assert_eq!(v["availability_zone"], Value::Null);
        // No host name: the system's.
        assert_eq!(v1(&data(json!({})))["local_hostname"], "localhost");
        // The datasource's own region and zone; cloud ids by region.
        let mut d = data(json!({"availability-zone": "ignored"}));
        (d.cloud_name, d.region) = (Some("aws".into()), Some("cn-north-1".into()));
        d.availability_zone = Some("cn-north-1a".into());
        let v = v1(&d);
        assert_eq!(
            (&v["cloud_id"], &v["availability_zone"]),
            (&json!("aws-china"), &json!("cn-north-1a"))
        );
        d.region = Some("us-gov-west-1".into());
        assert_eq!(cloud_id(&d), "aws-gov");
        (d.cloud_name, d.region) = (Some("azure".into()), Some("chinaeast2".into()));
        assert_eq!(cloud_id(&d), "azure-china");
        (d.cloud_name, d.platform) = (Some("unknown".into()), Some("ec2".into()));
        assert_eq!(cloud_id(&d), "ec2");
    }

    /// Without a local-hostname, the target's name as the hostname module reads it: comments
    /// skipped, its fqdn from /etc/hosts, the first label; meta-data's `hostname` otherwise.
    #[test]
    fn local_hostname_by_the_hostname_modules_rule() {
        let dir = std::env::temp_dir().join(format!("ember-idata-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("etc")).unwrap();
        std::fs::write(dir.join("etc/hostname"), "# set by the image\nbox\n").unwrap();
        std::fs::write(dir.join("etc/hosts"), "127.0.1.1 box.lan box\n").unwrap();
        let root = Root::open(&dir).unwrap();
        let v1 = |d: &InstanceData| build(d, &Value::Null, &Value::Null, Some(&root))["v1"].clone();
        assert_eq!(v1(&data(json!({})))["local_hostname"], "box");
        let named = data(json!({"hostname": "web.example.org"}));
        assert_eq!(v1(&named)["local_hostname"], "web");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn canonical_cloud_id_by_region_partitions_and_fallbacks() {
        let cases = [
            (("aws", "us-east-1", "ec2"), "aws"),
            (("aws", "cn-north-1", "ec2"), "aws-china"),
            (("aws", "us-gov-west-1", "ec2"), "aws-gov"),
            (("azure", "chinaeast", "azure"), "azure-china"),
            // Only the cloud the prefix belongs to is renamed.
            (("openstack", "cn-north-1", "openstack"), "openstack"),
            (("nocloud", "", "nocloud"), "nocloud"),
            (("", "", "lxd"), "lxd"),
            (("unknown", "", "lxd"), "lxd"),
            (("", "cn-north-1", "ec2"), "ec2"),
            (("", "", ""), "unknown"),
        ];
        for ((cloud, region, platform), want) in cases {
            let got = canonical_cloud_id(cloud, region, platform);
            assert_eq!(got, want, "{cloud} {region} {platform}");
        }
    }

    #[test]
    fn ds_keeps_a_crawled_tree_as_cloud_init_does() {
        let mut d = data(json!({"instance-id": "i-1"}));
        d.ds.crawled = true;
        d.ds.extra.insert(
            "dynamic".into(),
            json!({"instance-identity": {"document": {"region": "r"}}}),
        );
        let ds = &build(&d, &Value::Null, &Value::Null, None)["ds"];
        assert_eq!(ds["meta-data"]["instance-id"], "i-1");
        assert_eq!(
            ds["dynamic"]["instance-identity"]["document"]["region"],
            "r"
        );
        assert!(ds.get("meta_data").is_none() && ds["_doc"].is_string());
    }
}
