//! cloud-init's instance-data.json: the `v1` keys every platform shares, `ds` with the raw
//! meta-data, the merged config, and system facts. The sensitive copy (0600) has everything;
//! the world-readable one has the sensitive keys replaced, as cloud-init does.
//! <https://docs.cloud-init.io/en/latest/explanation/instancedata.html>

use crate::datasource::InstanceData;
use crate::root::Root;
use serde_json::{json, Value};

/// The keys naming no particular user: what every platform gives the default user.
fn default_user_keys(data: &InstanceData) -> Vec<&str> {
    let keys = data.public_keys.iter().filter(|k| k.user.is_none());
    keys.map(|k| k.key.as_str()).collect()
}

pub const REDACTED: &str = "redacted for non-root user";

/// Paths (`/`-separated, as cloud-init lists them in `sensitive_keys`) whose values are
/// secrets: redacted in the world-readable copy. Datasources that serve credentials in their
/// meta-data (EC2's `security-credentials`) are covered by the `ds/meta_data/...` entries.
const SENSITIVE_KEYS: [&str; 4] = [
    "merged_cfg",
    "merged_system_cfg",
    "ds/meta_data/security-credentials",
    "ds/meta_data/password",
];

/// The distribution as /etc/os-release in the target says: (id, version_id, codename).
pub fn distro(target: Option<&Root>) -> (String, String, String) {
    let text = target
        .and_then(|r| r.read_file("/etc/os-release", 64 * 1024).ok().flatten())
        .or_else(|| {
            target.and_then(|r| r.read_file("/usr/lib/os-release", 64 * 1024).ok().flatten())
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
    let md = &data.meta_data;
    let hostname = data.local_hostname().map(str::to_string);
    let zone = md
        .get("availability-zone")
        .or_else(|| md.get("availability_zone"))
        .cloned();
    let region = md.get("region").cloned().unwrap_or(Value::Null);
    let platform = format!("Linux-{release}-{machine}");
    let ds_platform = data.platform.as_deref().unwrap_or(&data.datasource);
    let cloud_name = data.cloud_name.as_deref().unwrap_or(ds_platform);
    let v1 = json!({
        "_beta_keys": ["subplatform"],
        "availability_zone": zone.clone(),
        "availability-zone": zone,
        "cloud_id": cloud_name,
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
        "platform": ds_platform,
        "public_ssh_keys": default_user_keys(data),
        "python_version": Value::Null,
        "region": region,
        "subplatform": data.subplatform,
        "system_platform": platform,
        "variant": distro,
    });
    json!({
        "_doc": "ember writes this file in cloud-init's layout; keys under 'ds' follow the datasource",
        "base64_encoded_keys": [],
        "ds": { "meta_data": md },
        "merged_cfg": merged_cfg,
        "merged_system_cfg": system_cfg,
        "sensitive_keys": SENSITIVE_KEYS,
        "sys_info": {
            "dist": [distro, version, codename],
            "platform": platform,
            "python": Value::Null,
            "uname": [text(uname.sysname()), text(uname.nodename()), release, text(uname.version()), machine],
            "variant": distro,
        },
        "v1": v1,
    })
}

/// Instance data built with a null `merged_cfg`, serialized with `merged` in its place: the
/// merged config, as large as the user-data, is not copied to be written.
pub struct WithMergedCfg<'a> {
    pub full: &'a Value,
    pub merged: &'a Value,
}

impl serde::Serialize for WithMergedCfg<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(map) = self.full else {
            return self.full.serialize(s);
        };
        let mut out = s.serialize_map(Some(map.len()))?;
        for (key, value) in map {
            let value = if key == "merged_cfg" {
                self.merged
            } else {
                value
            };
            out.serialize_entry(key, value)?;
        }
        out.end()
    }
}

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
        let at = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}/{key}")
        };
        let out = if SENSITIVE_KEYS.contains(&at.as_str()) {
            Value::String(REDACTED.into())
        } else if SENSITIVE_KEYS
            .iter()
            .any(|s| s.starts_with(&format!("{at}/")))
        {
            redact_below(child, &at)
        } else {
            child.clone()
        };
        (key.clone(), out)
    });
    Value::Object(fields.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_hides_merged_config() {
        let d = InstanceData {
            datasource: "nocloud".into(),
            instance_id: "iid-1".into(),
            meta_data: json!({"local-hostname": "h1", "instance-id": "iid-1"}),
            ..InstanceData::default()
        };
        let cfg = json!({"password": "hunter2"});
        let full = build(&d, &cfg, &json!({}), None);
        assert_eq!(full["v1"]["instance_id"], "iid-1");
        assert_eq!(full["v1"]["local-hostname"], "h1");
        assert_eq!(full["merged_cfg"]["password"], "hunter2");
        let mut full = full;
        full["ds"]["meta_data"]["security-credentials"] = json!({"Token": "hunter2"});
        let public = redact(&full);
        assert_eq!(public["merged_cfg"], REDACTED);
        assert_eq!(public["ds"]["meta_data"]["security-credentials"], REDACTED);
        assert_eq!(public["ds"]["meta_data"]["local-hostname"], "h1");
        assert!(!public.to_string().contains("hunter2"));
        assert_eq!(public["v1"], full["v1"]);
    }
}
