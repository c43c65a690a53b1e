//! Which SmartOS keys are read and what cloud-init makes of them (its SMARTOS_ATTRIB_MAP and
//! SMARTOS_ATTRIB_JSON): one `GET` each, a failed key reported by name and left out (only
//! `sdc:uuid` is required), the legacy base64 markers of a KVM guest (`base64_all`,
//! `base64_keys`, `b64-<key>`, found with `KEYS`), and the meta-data, payloads and files built
//! from the values. Script and user-data values are secrets: never in meta-data or a message.

use super::protocol::{Client, Failure, Reply};
use crate::datasource::common::serial::LineError;
use crate::datasource::instance::PlatformFile;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use ember_core::sort::IntoSet;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// meta-data's key, the SmartOS key, whether surrounding space is stripped.
const TEXT: [(&str, &str, bool); 8] = [
    ("instance-id", "sdc:uuid", true),
    ("local-hostname", "hostname", true),
    ("public-keys", "root_authorized_keys", true),
    ("iptables_disable", "iptables_disable", true),
    ("motd_sys_info", "motd_sys_info", true),
    ("availability_zone", "sdc:datacenter_name", true),
    ("hostname", "sdc:hostname", true),
    ("dns_domain", "sdc:dns_domain", true),
];
/// Payloads, kept out of meta-data (instance-data.json is world-readable).
const SECRET: [&str; 5] = [
    "user-script",
    "user-data",
    "cloud-init:user-data",
    "sdc:vendor-data",
    "sdc:operator-script",
];
/// meta-data's key and the SmartOS key holding JSON.
const JSON: [(&str, &str); 3] = [
    ("network-data", "sdc:nics"),
    ("dns_servers", "sdc:resolvers"),
    ("routes", "sdc:routes"),
];
/// Never base64-decoded, whatever the legacy markers say (cloud-init's list, whose
/// `sdc:uuid` and `user-data` run together there for want of a comma).
const NO_BASE64: [&str; 7] = [
    "iptables_disable",
    "motd_sys_info",
    "root_authorized_keys",
    "sdc:datacenter_name",
    "sdc:uuid",
    "user-data",
    "user-script",
];

/// The values read, by SmartOS key; a key that failed is absent, with its diagnostic pushed.
pub struct Values(BTreeMap<&'static str, Vec<u8>>);

fn is_true(v: &[u8]) -> bool {
    let t = String::from_utf8_lossy(v).trim().to_ascii_lowercase();
    matches!(t.as_str(), "true" | "1" | "on" | "yes")
}

pub fn read_all(c: &mut Client, legacy_base64: bool, shown: &str, diags: &mut Vec<Diag>) -> Values {
    let mut out = BTreeMap::new();
    let all: Vec<&'static str> = TEXT
        .iter()
        .map(|t| t.1)
        .chain(SECRET)
        .chain(JSON.iter().map(|j| j.1))
        .collect();
    let fail = |key: &str, e: &Failure, diags: &mut Vec<Diag>| {
        let d = match e {
            Failure::Channel(LineError::OverTotal(_)) => {
                Diag::error(Reason::BudgetExceeded, format!("GET failed: {e}"))
                    .budget(crate::limits::TALLY_BUDGET)
            }
            Failure::Channel(_) => {
                Diag::warning(Reason::MetadataUnreachable, format!("GET failed: {e}"))
            }
            Failure::Frame(_) => Diag::warning(Reason::MetadataInvalid, format!("GET failed: {e}")),
        };
        diags.push(d.file(shown).key(key));
    };
    let mut closed = false;
    for key in all {
        if closed {
            diags.push(
                Diag::warning(Reason::MetadataUnreachable, "not read: the channel closed")
                    .file(shown)
                    .key(key),
            );
            continue;
        }
        match once_more(c, "GET", Some(key)) {
            Ok(Reply::Value(v)) => {
                out.insert(key, v);
            }
            Ok(Reply::NotFound) => {}
            Err(e) => {
                closed = matches!(e, Failure::Channel(LineError::Closed | LineError::Io(_)));
                fail(key, &e, diags);
            }
        }
    }
    if legacy_base64 && !closed {
        decode_legacy(c, &mut out, shown, diags);
    }
    Values(out)
}

/// One request, sent again once when the answer was late or damaged (not when the channel
/// closed: there is no one left to ask).
fn once_more(c: &mut Client, op: &str, key: Option<&str>) -> Result<Reply, Failure> {
    match c.ask(op, key) {
        Err(e @ Failure::Channel(LineError::Closed | LineError::Io(_))) => Err(e),
        Err(_) => c.ask(op, key),
        ok => ok,
    }
}

/// A KVM guest's legacy markers: `base64_all`, `base64_keys` (comma-separated) and
/// `b64-<key>`, listed by `KEYS`, say which values are base64 on top of the frame's. A value
/// that does not decode is kept as it came, with a warning, as cloud-init keeps it.
fn decode_legacy(
    c: &mut Client,
    out: &mut BTreeMap<&'static str, Vec<u8>>,
    shown: &str,
    diags: &mut Vec<Diag>,
) {
    let listed = match once_more(c, "KEYS", None) {
        Ok(Reply::Value(v)) => String::from_utf8_lossy(&v).into_owned(),
        Ok(Reply::NotFound) => return,
        Err(e) => {
            let d = Diag::warning(
                Reason::MetadataUnreachable,
                format!("KEYS failed: {e}: values are taken as they came"),
            )
            .file(shown);
            diags.push(d);
            return;
        }
    };
    let listed: BTreeSet<&str> = listed.lines().into_set();
    let mut get = |key: &str| match once_more(c, "GET", Some(key)) {
        Ok(Reply::Value(v)) => Some(v),
        _ => None,
    };
    let all = listed.contains("base64_all") && get("base64_all").is_some_and(|v| is_true(&v));
    let mut named: BTreeSet<String> = BTreeSet::new();
    if !all {
        if listed.contains("base64_keys") {
            let v = get("base64_keys").unwrap_or_default();
            let text = String::from_utf8_lossy(&v);
            named.extend(text.split(',').map(|k| k.trim().to_string()));
        }
        for marker in listed.iter().filter(|k| k.starts_with("b64-")) {
            let key = marker["b64-".len()..].to_string();
            if get(marker).is_some_and(|v| is_true(&v)) {
                named.insert(key);
            } else {
                named.remove(&key);
            }
        }
    }
    for (key, value) in out.iter_mut() {
        if NO_BASE64.contains(key) || !(all || named.contains(*key)) {
            continue;
        }
        match B64.decode(value.as_slice()) {
            Ok(v) => *value = v,
            Err(_) => diags.push(
                Diag::warning(
                    Reason::Base64Invalid,
                    "marked base64 but is not: kept as it came",
                )
                .file(shown)
                .key(*key),
            ),
        }
    }
}

fn text(v: &[u8], strip: bool) -> String {
    let t = String::from_utf8_lossy(v);
    if strip {
        t.trim().to_string()
    } else {
        t.into_owned()
    }
}

/// meta-data, payloads, files and network config from the values; `Err` without `sdc:uuid`.
pub fn build(values: Values, shown: &str, data: &mut InstanceData) -> Result<(), Diag> {
    let v = values.0;
    let get = |k: &str| v.get(k).map(Vec::as_slice);
    let mut md = Map::new();
    for (name, key, strip) in TEXT {
        if let Some(val) = get(key) {
            md.insert(name.into(), json!(text(val, strip)));
        }
    }
    let id = md
        .get("instance-id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if id.is_empty() {
        // The GET's own failure says more than its absence.
        if let Some(at) = data
            .diags
            .iter()
            .position(|d| d.key.as_deref() == Some("sdc:uuid"))
        {
            let mut d = data.diags.remove(at);
            d.severity = crate::error::Severity::Error;
            d.message = format!("no instance id: {}", d.message);
            return Err(d);
        }
        let msg = "no instance id: sdc:uuid is missing or empty";
        return Err(Diag::error(Reason::MetadataInvalid, msg)
            .file(shown)
            .key("sdc:uuid"));
    }
    // The host name, else the machine's `sdc:hostname`, else the instance id.
    let nonempty = |k: &str| {
        md.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let host = nonempty("local-hostname")
        .or_else(|| nonempty("hostname"))
        .unwrap_or(id.clone());
    md.insert("local-hostname".into(), json!(host));
    for (name, key) in JSON {
        let Some(val) = get(key) else { continue };
        match serde_json::from_slice::<Value>(val) {
            Ok(j) => {
                md.insert(name.into(), j);
            }
            Err(e) => data.diags.push(
                Diag::warning(
                    Reason::MetadataInvalid,
                    format!(
                        "not JSON (line {}, column {}): left out",
                        e.line(),
                        e.column()
                    ),
                )
                .file(shown)
                .key(key),
            ),
        }
    }
    if let Some(nics) = md.get("network-data") {
        let domain = md.get("dns_domain");
        match super::network::convert(nics, md.get("dns_servers"), domain, md.get("routes")) {
            Ok(cfg) => {
                data.network_config = Some((format!("smartos metadata ({shown}): sdc:nics"), cfg))
            }
            Err(at) => data.diags.push(
                Diag::warning(
                    Reason::MetadataInvalid,
                    "not a list of NIC objects: the network config is left to the fallback",
                )
                .file(shown)
                .key(&at),
            ),
        }
    }
    let secret = |k: &str| {
        get(k)
            .filter(|b| !b.is_empty())
            .map(|b| Secret::new(b.to_vec()))
    };
    data.user_data = secret("cloud-init:user-data");
    let inst = format!(
        "{}/instances/{}/data",
        crate::paths::system().cloud_dir,
        crate::state::encode_instance_id(&id)
    );
    data.vendor_data = secret("sdc:vendor-data")
        .or_else(|| Some(Secret::new(builtin_vendor_data(&inst).into_bytes())));
    if let Some(script) = get("user-script").filter(|s| !s.is_empty()) {
        let mut content = script.to_vec();
        // cloud-init runs scripts with no shell: plain text without `#!` is taken as bash.
        if !content.starts_with(b"#!") && std::str::from_utf8(&content).is_ok() {
            content = [b"#!/bin/bash\n".as_slice(), &content].concat();
        }
        data.files
            .push(file(format!("{inst}/user-script"), 0o700, content));
    }
    if let Some(script) = get("sdc:operator-script").filter(|s| !s.is_empty()) {
        data.files.push(file(
            format!("{inst}/operator-script"),
            0o700,
            script.to_vec(),
        ));
    }
    if let Some(legacy) = get("user-data").filter(|s| !s.is_empty()) {
        data.files.push(file(
            "/var/db/mdata-user-data".into(),
            0o400,
            legacy.to_vec(),
        ));
    }
    data.instance_id = id;
    data.meta_data = Value::Object(md);
    Ok(())
}

fn file(path: String, mode: u32, content: Vec<u8>) -> PlatformFile {
    PlatformFile {
        path,
        mode,
        content: Secret::new(content),
        // Rewritten each boot, as cloud-init writes the scripts the metadata holds now.
        new_instance_only: false,
    }
}

/// cloud-init's vendor-data for SmartOS when the platform gives none: a boothook that leaves a
/// per-boot script running the operator's script, then the user's, where this datasource put
/// them (`inst`: the instance's data directory).
fn builtin_vendor_data(inst: &str) -> String {
    format!(
        "#cloud-boothook\n#!/bin/sh\n\
         # SmartOS default vendor-data: each boot, run sdc:operator-script, then user-script.\n\
         dir={lib}/scripts/per-boot\n\
         mkdir -p \"$dir\"\n\
         cat >\"$dir/01_smartos_vendor_data.sh\" <<'SCRIPTS'\n\
         #!/bin/sh\n\
         for s in {inst}/operator-script {inst}/user-script; do\n\
         \x20   [ -x \"$s\" ] || continue\n\
         \x20   echo \"running $s\" >&2\n\
         \x20   \"$s\"\n\
         done\n\
         SCRIPTS\n\
         chmod +x \"$dir/01_smartos_vendor_data.sh\"\n",
        lib = crate::paths::system().cloud_dir,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_vendor_data_runs_both_scripts() {
        let v = builtin_vendor_data("/var/lib/cloud/instances/i-1/data");
        assert!(v.starts_with("#cloud-boothook\n#!/bin/sh\n"), "{v}");
        assert!(v.contains("for s in /var/lib/cloud/instances/i-1/data/operator-script /var/lib/cloud/instances/i-1/data/user-script; do\n    [ -x"), "{v}");
        assert!(v.contains("/var/lib/cloud/scripts/per-boot"), "{v}");
    }

    #[test]
    fn truthy_markers() {
        for t in ["true", " TRUE\n", "1", "on", "yes"] {
            assert!(is_true(t.as_bytes()), "{t}");
        }
        for f in ["false", "0", "", "no", "2"] {
            assert!(!is_true(f.as_bytes()), "{f}");
        }
    }
}
