//! VMware's guestinfo keys as cloud-init's DataSourceVMware reads them: `metadata`,
//! `userdata`, `vendordata`, each with its `.encoding` (`base64`/`b64`, `gzip+base64`/`gz+b64`,
//! else plain text), from one of two transports: the `VMX_GUESTINFO_*` environment (containers)
//! or the hypervisor's guestinfo table through `vmware-rpctool` / `vmtoolsd` (`rpctool.rs`).
//! Also the clearing of keys the metadata names in `redact` / `cleanup-guestinfo`. Not here:
//! what the metadata means (`meta.rs`), guest customization (IMC).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/vmware.html>

use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use base64::Engine as _;

/// cloud-init's "no value" for a key: a key cannot be emptied, so it is set to this YAML
/// document, which also reads as empty.
pub const EMPTY: &str = "---";

/// Where guestinfo keys are read (and, for the hypervisor's table, cleared).
pub trait Transport {
    /// How cloud-init names the key on this transport: `guestinfo.metadata`,
    /// `VMX_GUESTINFO_METADATA`.
    fn key_name(&self, key: &str) -> String;
    /// The raw value; `None` when unset, empty or `---`. Never logged: it may be user-data.
    fn get(&mut self, key: &str) -> Result<Option<Secret<String>>, Diag>;
    /// Sets a key (the hypervisor's table only): what clearing a key takes.
    fn set(&mut self, key: &str, value: &str) -> Result<(), Diag>;
}

/// The environment of a container started with the `VMX_GUESTINFO*` variables.
pub struct EnvVars {
    /// The variable's value: `std::env::var` at boot.
    pub var: fn(&str) -> Option<String>,
}

/// `metadata.encoding` → `VMX_GUESTINFO_METADATA_ENCODING`, as cloud-init spells it.
pub fn env_name(key: &str) -> String {
    format!("vmx.guestinfo.{key}")
        .to_ascii_uppercase()
        .replace('.', "_")
}

impl Transport for EnvVars {
    fn key_name(&self, key: &str) -> String {
        env_name(key)
    }
    fn get(&mut self, key: &str) -> Result<Option<Secret<String>>, Diag> {
        Ok((self.var)(&env_name(key))
            .and_then(non_empty)
            .map(Secret::new))
    }
    fn set(&mut self, _key: &str, _value: &str) -> Result<(), Diag> {
        Ok(()) // cloud-init clears keys on the guestinfo transport only
    }
}

/// cloud-init's empty value: nothing but white space after the text, or `---`.
pub fn non_empty(raw: String) -> Option<String> {
    let trimmed = raw.trim_end();
    (!trimmed.is_empty() && trimmed != EMPTY).then(|| trimmed.to_string())
}

/// The three payloads, decoded; a key that cannot be decoded is left out with its diagnostic.
#[derive(Default)]
pub struct Payloads {
    pub metadata: Option<Secret<Vec<u8>>>,
    pub userdata: Option<Secret<Vec<u8>>>,
    pub vendordata: Option<Secret<Vec<u8>>>,
    pub reads: u32,
}

impl Payloads {
    pub fn any(&self) -> bool {
        self.metadata.is_some() || self.userdata.is_some() || self.vendordata.is_some()
    }
}

/// Reads `metadata`, `userdata` and `vendordata` with their encodings. A transport that
/// fails outright (the tool cannot run) is the `Err`; a key that cannot be decoded goes to
/// `diags` and the others are still used.
pub fn read_all(
    t: &mut dyn Transport,
    inflate_cap: u64,
    diags: &mut Vec<Diag>,
) -> Result<Payloads, Diag> {
    let mut p = Payloads::default();
    for key in ["metadata", "userdata", "vendordata"] {
        let value = read_key(t, key, inflate_cap, &mut p.reads, diags)?;
        match key {
            "metadata" => p.metadata = value,
            "userdata" => p.userdata = value,
            _ => p.vendordata = value,
        }
    }
    Ok(p)
}

fn read_key(
    t: &mut dyn Transport,
    key: &str,
    inflate_cap: u64,
    reads: &mut u32,
    diags: &mut Vec<Diag>,
) -> Result<Option<Secret<Vec<u8>>>, Diag> {
    *reads += 1;
    let Some(raw) = t.get(key)? else {
        return Ok(None);
    };
    *reads += 1;
    let encoding = t.get(&format!("{key}.encoding"))?;
    let encoding = encoding.as_ref().map(|e| e.expose().trim());
    match decode(raw.expose(), encoding, inflate_cap) {
        Ok(data) => Ok(Some(Secret::new(data))),
        Err(d) => {
            diags.push(d.file(t.key_name(key)));
            Ok(None)
        }
    }
}

/// Decodes a value by its encoding, as cloud-init's `decode`: `gzip+base64`/`gz+b64`,
/// `base64`/`b64`, anything else is taken as plain text (cloud-init does the same). Gzip is
/// inflated within `inflate_cap` bytes.
pub fn decode(raw: &str, encoding: Option<&str>, inflate_cap: u64) -> Result<Vec<u8>, Diag> {
    let b64 = |text: &str| {
        // Python's b64decode drops what is not of the alphabet, line breaks included.
        let compact: String = text.split_ascii_whitespace().collect();
        base64::engine::general_purpose::STANDARD
            .decode(compact)
            .map_err(|_| Diag::error(Reason::BadValue, "not base64, as its encoding says"))
    };
    match encoding {
        Some("gzip+base64" | "gz+b64") => {
            let packed = b64(raw)?;
            crate::userdata::gzip::inflate(&packed, inflate_cap).map_err(|e| match e {
                crate::userdata::gzip::InflateError::TooLarge => Diag::error(
                    Reason::BudgetExceeded,
                    format!("inflates to more than {inflate_cap} bytes"),
                )
                .budget("inflated_bytes"),
                crate::userdata::gzip::InflateError::Corrupt => {
                    Diag::error(Reason::GzipCorrupt, "not gzip, as its encoding says")
                }
            })
        }
        Some("base64" | "b64") => b64(raw),
        _ => Ok(raw.as_bytes().to_vec()),
    }
}

/// Clears each key as cloud-init's `guestinfo_redact_keys`: the value becomes `---` and its
/// encoding a single space (the closest to empty a key can be set). `keys` is the metadata's
/// `redact` (or the older `cleanup-guestinfo`): one key or a list. Failures are warnings.
pub fn redact(t: &mut dyn Transport, keys: &serde_json::Value, diags: &mut Vec<Diag>) -> u32 {
    let names: Vec<&str> = match keys {
        serde_json::Value::String(s) => vec![s.as_str()],
        serde_json::Value::Array(a) => a.iter().filter_map(|v| v.as_str()).collect(),
        _ => Vec::new(),
    };
    let mut writes = 0;
    for key in names {
        for (k, v) in [(key.to_string(), EMPTY), (format!("{key}.encoding"), " ")] {
            writes += 1;
            if let Err(mut d) = t.set(&k, v) {
                d.severity = crate::error::Severity::Warning;
                diags.push(d);
            }
        }
    }
    writes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A guestinfo table in memory: what a test's transport holds.
    struct Table(BTreeMap<String, String>);

    impl Transport for Table {
        fn key_name(&self, key: &str) -> String {
            format!("guestinfo.{key}")
        }
        fn get(&mut self, key: &str) -> Result<Option<Secret<String>>, Diag> {
            Ok(self
                .0
                .get(key)
                .cloned()
                .and_then(non_empty)
                .map(Secret::new))
        }
        fn set(&mut self, key: &str, value: &str) -> Result<(), Diag> {
            self.0.insert(key.into(), value.into());
            Ok(())
        }
    }

    fn gz_b64(text: &str) -> String {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(text.as_bytes()).unwrap();
        base64::engine::general_purpose::STANDARD.encode(enc.finish().unwrap())
    }

    #[test]
    fn env_names_as_cloud_init() {
        assert_eq!(env_name("metadata"), "VMX_GUESTINFO_METADATA");
        assert_eq!(
            env_name("userdata.encoding"),
            "VMX_GUESTINFO_USERDATA_ENCODING"
        );
    }

    #[test]
    fn decodes_each_encoding_and_names_a_bad_key() {
        let b64 = base64::engine::general_purpose::STANDARD.encode("#cloud-config\n");
        let mut t = Table(BTreeMap::from([
            ("metadata".into(), "{\"instance-id\": \"i-1\"}\n".into()),
            ("userdata".into(), gz_b64("#cloud-config\n")),
            ("userdata.encoding".into(), "gz+b64".into()),
            ("vendordata".into(), "not base64!".into()),
            ("vendordata.encoding".into(), "base64".into()),
        ]));
        let mut diags = Vec::new();
        let p = read_all(&mut t, 1 << 20, &mut diags).unwrap();
        assert_eq!(p.metadata.unwrap().expose(), b"{\"instance-id\": \"i-1\"}");
        assert_eq!(p.userdata.unwrap().expose(), b"#cloud-config\n");
        assert!(p.vendordata.is_none(), "a bad key is left out");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].file.as_deref(), Some("guestinfo.vendordata"));
        assert!(!diags[0].message.contains("not base64!"), "never the value");
        assert_eq!(decode(&b64, Some("b64"), 99).unwrap(), b"#cloud-config\n");
        assert_eq!(decode("plain", Some("rot13"), 99).unwrap(), b"plain");
        let bomb = gz_b64(&"x".repeat(10_000));
        let d = decode(&bomb, Some("gzip+base64"), 100).unwrap_err();
        assert_eq!(d.budget.as_deref(), Some("inflated_bytes"));
        let d = decode(&b64, Some("gzip+base64"), 100).unwrap_err();
        assert_eq!(d.code, "gzip-corrupt");
    }

    #[test]
    fn empty_values_are_none() {
        for v in ["", "  \n", "---", "---\n"] {
            assert_eq!(non_empty(v.into()), None, "{v:?}");
        }
        assert_eq!(non_empty("a \n".into()).as_deref(), Some("a"));
    }

    #[test]
    fn redacts_named_keys() {
        let mut t = Table(BTreeMap::from([("userdata".into(), "secret".into())]));
        let mut diags = Vec::new();
        let keys = serde_json::json!(["userdata", "vendordata"]);
        assert_eq!(redact(&mut t, &keys, &mut diags), 4);
        assert_eq!(t.0["userdata"], "---");
        assert_eq!(t.0["userdata.encoding"], " ");
        assert_eq!(t.0["vendordata"], "---");
        assert_eq!(
            redact(&mut t, &serde_json::json!("metadata"), &mut diags),
            2
        );
        assert!(diags.is_empty());
    }
}
