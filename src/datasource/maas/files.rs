//! MAAS's files, as cloud-init's `read_maas_seed_url` reads them, from the metadata service
//! (`<metadata_url>/2012-03-01/<path>`) or a seed directory (`<dir>/<path>`): `meta-data/
//! instance-id` and `meta-data/local-hostname` required, `meta-data/public-keys`,
//! `meta-data/vendor-data` (YAML: a string, or a mapping whose `cloud-init` string is the
//! vendor-data) and `user-data` optional; into `InstanceData`. Not here: how a file is read.

use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{json, Map, Value};

/// The metadata version cloud-init reads.
pub const VERSION: &str = "2012-03-01";

/// The path, and whether it is required.
pub const FILES: [(&str, bool); 5] = [
    ("meta-data/instance-id", true),
    ("meta-data/local-hostname", true),
    ("meta-data/public-keys", false),
    ("meta-data/vendor-data", false),
    ("user-data", false),
];

/// Reads the files through `read` (Ok(None): absent) into `data`. `where_` names the seed
/// or the service in diagnostics. A required file absent or failing fails the read; an
/// optional one failing is left out with its diagnostic.
pub fn read(
    mut read: impl FnMut(&str) -> Result<Option<Vec<u8>>, Diag>,
    where_: &str,
    limits: &Limits,
    data: &mut InstanceData,
) -> Result<(), Diag> {
    let mut md = Map::new();
    for (path, required) in FILES {
        let got = match read(path) {
            Ok(got) => got,
            Err(d) if required => return Err(d),
            Err(mut d) => {
                d.severity = crate::error::Severity::Warning;
                data.diags.push(d);
                continue;
            }
        };
        let Some(body) = got else {
            if required {
                let msg = format!("the MAAS metadata has no {path}");
                return Err(Diag::error(Reason::MetadataNotFound, msg)
                    .file(where_)
                    .key(path));
            }
            continue;
        };
        let text = || String::from_utf8_lossy(&body).into_owned();
        match path {
            "meta-data/instance-id" => {
                md.insert("instance-id".into(), json!(text().trim()));
            }
            "meta-data/local-hostname" => {
                md.insert("local-hostname".into(), json!(text().trim()));
            }
            "meta-data/public-keys" => {
                md.insert("public-keys".into(), json!(text()));
            }
            "meta-data/vendor-data" => match vendor_data(&body, limits) {
                Ok(v) => data.vendor_data = v.map(|v| Secret::new(v.into_bytes())),
                Err(why) => data.diags.push(
                    Diag::warning(
                        Reason::MetadataInvalid,
                        format!("{why}: vendor-data left out"),
                    )
                    .file(where_)
                    .key(path),
                ),
            },
            _ => data.user_data = Some(Secret::new(body)),
        }
    }
    let id = md["instance-id"].as_str().unwrap_or_default().to_string();
    if id.is_empty() {
        let msg = "meta-data/instance-id is empty";
        return Err(Diag::error(Reason::MetadataInvalid, msg)
            .file(where_)
            .key("meta-data/instance-id"));
    }
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

/// cloud-init's `convert_vendordata` of the YAML document: a string is the vendor-data, a
/// mapping's `cloud-init` string is; nothing else is usable (reason returned, never the value).
fn vendor_data(body: &[u8], limits: &Limits) -> Result<Option<String>, String> {
    let text = std::str::from_utf8(body).map_err(|_| "not UTF-8".to_string())?;
    let doc =
        crate::yaml::parse(text, limits).map_err(|e| format!("not YAML (line {})", e.line))?;
    match doc.value {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::String(s) => Ok(Some(s)),
        Value::Object(m) => match m.get("cloud-init") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err("its cloud-init key is not a string".into()),
        },
        _ => Err("neither a string nor a mapping".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(files: &[(&str, &str)]) -> (Result<(), Diag>, InstanceData) {
        let mut data = InstanceData::default();
        let r = read(
            |p| {
                Ok(files
                    .iter()
                    .find(|(n, _)| *n == p)
                    .map(|(_, b)| b.as_bytes().to_vec()))
            },
            "seed",
            &Limits::default(),
            &mut data,
        );
        (r, data)
    }

    #[test]
    fn files_into_instance_data() {
        let (r, data) = seed(&[
            ("meta-data/instance-id", "node-abc\n"),
            ("meta-data/local-hostname", "node1.maas\n"),
            (
                "meta-data/public-keys",
                "ssh-ed25519 AAA k1\nssh-rsa BBB k2\n",
            ),
            (
                "meta-data/vendor-data",
                "cloud-init: |\n  #cloud-config\n  bootcmd: [x]\n",
            ),
            ("user-data", "#!/bin/sh\n"),
        ]);
        r.unwrap();
        assert_eq!(data.instance_id, "node-abc");
        assert_eq!(data.meta_data["local-hostname"], "node1.maas");
        assert_eq!(
            data.vendor_data.unwrap().expose(),
            b"#cloud-config\nbootcmd: [x]\n"
        );
        assert_eq!(data.user_data.unwrap().expose(), b"#!/bin/sh\n");
        let keys = crate::datasource::PublicKey::from_meta_data(&data.meta_data);
        assert_eq!(keys.len(), 2);
    }

    #[test]
    fn required_files_and_bad_vendor_data() {
        let (r, _) = seed(&[("meta-data/instance-id", "x")]);
        assert_eq!(
            r.unwrap_err().key.as_deref(),
            Some("meta-data/local-hostname")
        );
        let (r, data) = seed(&[
            ("meta-data/instance-id", "x"),
            ("meta-data/local-hostname", "h"),
            ("meta-data/vendor-data", "[1, 2]"),
        ]);
        r.unwrap();
        assert!(data.vendor_data.is_none());
        assert_eq!(data.diags[0].key.as_deref(), Some("meta-data/vendor-data"));
        let (r, _) = seed(&[
            ("meta-data/instance-id", " "),
            ("meta-data/local-hostname", "h"),
        ]);
        assert_eq!(r.unwrap_err().code, "metadata-invalid");
    }
}
