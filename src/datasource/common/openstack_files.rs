//! What an OpenStack config drive and the metadata service share, and IBM Cloud's and
//! Rackspace's drives with them: the version to read, the files under `openstack/<version>/`,
//! and how they become one `InstanceData`, as cloud-init's `openstack` helper reads them. Not
//! here: where the files come from (each cloud's folder).
//! <https://docs.openstack.org/nova/latest/user/metadata.html>

use crate::datasource::common::seed::FileRead;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{json, Map, Value};

/// The dated versions ember reads, oldest first (cloud-init's list): Folsom to Rocky.
pub const VERSIONS: [&str; 8] = [
    "2012-08-10",
    "2013-04-04",
    "2013-10-17",
    "2015-10-15",
    "2016-06-30",
    "2016-10-06",
    "2017-02-22",
    "2018-08-27",
];

/// Keys of meta_data.json never published in instance-data.json: the instance's admin
/// password, and entropy meant for this instance alone.
const PRIVATE_KEYS: [&str; 2] = ["admin_pass", "random_seed"];

/// The newest version ember knows among `available` (a listing), else `latest`.
pub fn choose_version<'a>(available: impl IntoIterator<Item = &'a str>) -> &'static str {
    let listed: Vec<&str> = available
        .into_iter()
        .map(|v| v.trim().trim_end_matches('/'))
        .collect();
    VERSIONS
        .iter()
        .rev()
        .find(|v| listed.iter().any(|l| l.eq_ignore_ascii_case(v)))
        .copied()
        .unwrap_or("latest")
}

/// The files of one version as read.
#[derive(Default)]
pub struct Files {
    pub meta_data: Vec<u8>,
    pub user_data: Option<Vec<u8>>,
    pub vendor_data: Option<Vec<u8>>,
    pub vendor_data2: Option<Vec<u8>>,
    pub network_data: Option<Vec<u8>>,
}

/// Reads the files of `dir` (`openstack/2018-08-27`) through `get`, which takes a path under
/// the root. meta_data.json is required; user_data that cannot be read fails the read too
/// (provisioning without it would be wrong); the others are left out with a warning.
/// `shown` names a path in diagnostics: `/dev/sr0: openstack/…/meta_data.json`.
pub fn read(
    mut get: impl FnMut(&str) -> FileRead,
    dir: &str,
    shown: impl Fn(&str) -> String,
    data: &mut InstanceData,
) -> Result<Files, Diag> {
    let path = |name: &str| format!("{dir}/{name}");
    let meta_data = match get(&path("meta_data.json")) {
        FileRead::Found(b) => b,
        FileRead::Absent => {
            let msg = "no meta_data.json: not an OpenStack config";
            return Err(
                Diag::error(Reason::OpenstackNoMetadata, msg).file(shown(&path("meta_data.json")))
            );
        }
        FileRead::Failed(d) => return Err(d),
    };
    let user_data = match get(&path("user_data")) {
        FileRead::Found(b) => Some(b),
        FileRead::Absent => None,
        FileRead::Failed(d) => return Err(d),
    };
    let mut optional = |name: &str| match get(&path(name)) {
        FileRead::Found(b) => Some(b),
        FileRead::Absent => None,
        FileRead::Failed(mut d) => {
            d.severity = crate::error::Severity::Warning;
            data.diags.push(d);
            None
        }
    };
    Ok(Files {
        meta_data,
        user_data,
        vendor_data: optional("vendor_data.json"),
        vendor_data2: optional("vendor_data2.json"),
        network_data: optional("network_data.json"),
    })
}

pub(crate) fn parse_json(bytes: &[u8], file: &str) -> Result<Value, Diag> {
    serde_json::from_slice(bytes).map_err(|e| {
        // serde's message may quote the input: only its category and place are kept.
        let msg = format!(
            "not valid JSON ({:?} error at line {}, column {})",
            e.classify(),
            e.line(),
            e.column()
        );
        Diag::error(Reason::MetadataInvalid, msg.to_ascii_lowercase()).file(file)
    })
}

/// Fills `data` from the files: meta-data in cloud-init's shape, user-data, both vendor-data,
/// and network_data.json as the network config. `shown` as for `read`.
pub fn apply(
    files: Files,
    dir: &str,
    shown: impl Fn(&str) -> String,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let file = |name: &str| shown(&format!("{dir}/{name}"));
    let md_file = file("meta_data.json");
    let Value::Object(mut md) = parse_json(&files.meta_data, &md_file)? else {
        return Err(Diag::error(Reason::WrongType, "must be a JSON object").file(md_file));
    };
    let Some(uuid) = md
        .get("uuid")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
    else {
        return Err(
            Diag::error(Reason::OpenstackNoUuid, "missing or not a string")
                .key("uuid")
                .file(md_file),
        );
    };
    data.instance_id = uuid.to_string();
    for key in PRIVATE_KEYS {
        md.remove(key);
    }
    cloud_init_keys(&mut md);
    // A config drive's are written (injected.rs); the service's never were, in cloud-init.
    let has_files = md.get("files").and_then(Value::as_array);
    if data.datasource == "openstack" && has_files.is_some_and(|f| !f.is_empty()) {
        let msg = "injected files are not written by ember (deprecated in Nova); use write_files in user-data";
        data.diags.push(
            Diag::warning(Reason::OpenstackFilesIgnored, msg)
                .key("files")
                .file(md_file),
        );
    }
    data.meta_data = Value::Object(md);
    data.user_data = files.user_data.map(Secret::new);
    for (name, bytes, slot) in [
        ("vendor_data.json", files.vendor_data, &mut data.vendor_data),
        (
            "vendor_data2.json",
            files.vendor_data2,
            &mut data.vendor_data2,
        ),
    ] {
        let Some(bytes) = bytes else { continue };
        match parse_json(&bytes, &file(name)).and_then(|v| vendor_data(v, &file(name))) {
            Ok(vd) => *slot = vd.map(|s| Secret::new(s.into_bytes())),
            Err(mut d) => {
                d.severity = crate::error::Severity::Warning;
                data.diags.push(d);
            }
        }
    }
    if let Some(bytes) = files.network_data {
        let name = file("network_data.json");
        match parse_json(&bytes, &name) {
            Ok(v @ Value::Object(_)) => {
                // cloud-init keeps it in instance data as `ds.network_json`.
                data.ds.extra.insert("network_json".into(), v.clone());
                data.network_config = Some((name, v))
            }
            Ok(_) => data
                .diags
                .push(Diag::warning(Reason::WrongType, "must be a JSON object").file(name)),
            Err(mut d) => {
                d.severity = crate::error::Severity::Warning;
                data.diags.push(d);
            }
        }
    }
    Ok(())
}

/// cloud-init's names next to OpenStack's: `instance-id`, `local-hostname`, `public-keys`
/// (by key name), `availability-zone`.
fn cloud_init_keys(md: &mut Map<String, Value>) {
    let copies = [
        ("uuid", "instance-id"),
        ("hostname", "local-hostname"),
        ("availability_zone", "availability-zone"),
    ];
    for (from, to) in copies {
        if let Some(v) = md.get(from).filter(|v| v.is_string()).cloned() {
            md.insert(to.into(), v);
        }
    }
    let mut keys = Map::new();
    if let Some(Value::Object(named)) = md.get("public_keys") {
        for (name, key) in named {
            if let Value::String(k) = key {
                keys.insert(name.clone(), json!([k.trim()]));
            }
        }
    }
    // `keys` ([{name, type, data}]) holds the same and more (several per name, x509 too).
    if let Some(Value::Array(list)) = md.get("keys") {
        for k in list {
            let ssh = k
                .get("type")
                .and_then(Value::as_str)
                .is_none_or(|t| t == "ssh");
            let (Some(name), Some(data)) = (
                k.get("name").and_then(Value::as_str),
                k.get("data").and_then(Value::as_str),
            ) else {
                continue;
            };
            if ssh && !keys.contains_key(name) {
                keys.insert(name.to_string(), json!([data.trim()]));
            }
        }
    }
    if !keys.is_empty() {
        md.insert("public-keys".into(), Value::Object(keys));
    }
}

/// vendor_data.json as cloud-init's `convert_vendordata` takes it: a string is the data, an
/// object gives its `cloud-init` key (a string); anything else has nothing for cloud-init.
pub(crate) fn vendor_data(v: Value, file: &str) -> Result<Option<String>, Diag> {
    let wrong = |key: &str| {
        Diag::error(
            Reason::WrongType,
            "must be a string (several parts are not supported)",
        )
        .key(key)
        .file(file)
    };
    match v {
        Value::String(s) => Ok(Some(s)),
        Value::Null => Ok(None),
        Value::Object(mut map) => match map.remove("cloud-init") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(wrong("cloud-init")),
        },
        _ => Err(wrong("")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_known_version_else_latest() {
        let listing = "2012-08-10\n2015-10-15\n2018-08-27\n2020-10-14\nlatest\n";
        assert_eq!(choose_version(listing.lines()), "2018-08-27");
        assert_eq!(choose_version(["2013-04-04/", "latest"]), "2013-04-04");
        assert_eq!(choose_version(["2099-01-01", "latest"]), "latest");
        assert_eq!(choose_version([]), "latest");
    }

    #[test]
    fn vendor_data_forms() {
        let f = "vendor_data.json";
        let cases = [
            (json!("#cloud-config\na: 1"), Some("#cloud-config\na: 1")),
            (
                json!({"cloud-init": "#!/bin/sh\ntrue"}),
                Some("#!/bin/sh\ntrue"),
            ),
            (json!({"other": "x"}), None),
            (json!(null), None),
        ];
        for (v, want) in cases {
            assert_eq!(vendor_data(v, f).unwrap().as_deref(), want);
        }
        assert!(vendor_data(json!({"cloud-init": {"a": 1}}), f).is_err());
        assert!(vendor_data(json!(["a"]), f).is_err());
    }

    #[test]
    fn meta_data_in_cloud_init_shape_without_private_keys() {
        let md = json!({
            "uuid": "u-1", "hostname": "h.example", "availability_zone": "nova",
            "public_keys": {"mykey": "ssh-ed25519 AAA me\n"},
            "keys": [{"name": "mykey", "type": "ssh", "data": "ssh-ed25519 AAA me"},
                     {"name": "other", "type": "x509", "data": "cert"}],
            "admin_pass": "pw-secret-1", "random_seed": "c2VlZA==",
            "files": [{"path": "/etc/x", "content_path": "/content/0000"}]
        });
        let files = Files {
            meta_data: md.to_string().into_bytes(),
            ..Files::default()
        };
        // From the metadata service: the files are named as not written.
        let mut data = InstanceData {
            datasource: "openstack".into(),
            ..InstanceData::default()
        };
        apply(files, "openstack/latest", |p| p.to_string(), &mut data).unwrap();
        let md = &data.meta_data;
        assert_eq!(data.instance_id, "u-1");
        assert_eq!(md["instance-id"], "u-1");
        assert_eq!(md["local-hostname"], "h.example");
        assert_eq!(md["availability-zone"], "nova");
        assert_eq!(md["public-keys"], json!({"mykey": ["ssh-ed25519 AAA me"]}));
        assert!(md.get("admin_pass").is_none() && md.get("random_seed").is_none());
        assert_eq!(data.diags[0].code, "openstack-files-ignored");
    }
}
