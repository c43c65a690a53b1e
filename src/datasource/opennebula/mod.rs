//! OpenNebula: the context CD (a volume labelled `CONTEXT` or `CDROM`, read in-process) or the
//! seed directory `/var/lib/cloud/seed/opennebula`, holding `context.sh`; as cloud-init's
//! OpenNebula datasource, its variables become the meta-data, `USER_DATA` the user-data and
//! the `ETHx_*` variables a network-config v2. Not done: running the file through bash
//! (`context::parse` reads its variables; what only a shell could evaluate is reported),
//! OpenNebula's own contextualization (passwords, `START_SCRIPT`, OneGate), which is its
//! one-context package's job, not cloud-init's.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/opennebula.html>

mod context;
mod network;

use crate::context::Env;
use crate::datasource::common::seed::FileRead;
use crate::datasource::common::seed_volume::{seed_devices, Media, SeedVolume};
use crate::datasource::{Datasource, InstanceData, Link};
use crate::detect::blockdev::LabelledDevice;
use crate::detect::Facts;
use crate::error::{Diag, Severity};
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use base64::Engine;
use ember_core::sort::IntoMap;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub struct OpenNebula;

/// cloud-init's OpenNebula seed: `seed/opennebula` of the cloud dir.
fn seed_dir() -> String {
    crate::paths::system().seed("opennebula")
}
const LABELS: [&str; 2] = ["CONTEXT", "CDROM"];
/// cloud-init's: every OpenNebula VM has this id, as context.sh carries none.
const INSTANCE_ID: &str = "iid-dsopennebula";
/// Checked in this order for the hostname, as cloud-init does (present, even empty).
const HOSTNAME_KEYS: [&str; 5] = [
    "SET_HOSTNAME",
    "HOSTNAME",
    "PUBLIC_IP",
    "IP_PUBLIC",
    "ETH0_IP",
];

/// Context variables that are secrets: kept out of the meta-data, which is published.
/// User-data goes to its own (0600) place; passwords are one-context's business.
fn is_secret(key: &str) -> bool {
    key == "USER_DATA" || key == "USERDATA" || key.contains("PASSWORD")
}

/// The devices to try: the labelled ones, then any other disc (cloud-init also mounts every
/// ISO9660 volume, which matters when the datasource was named rather than detected).
fn devices(facts: &Facts) -> Vec<&LabelledDevice> {
    let mut found: Vec<&LabelledDevice> = Vec::new();
    for label in LABELS {
        for d in seed_devices(&facts.devices, Some(label), Media::DiscOrFat) {
            if !found.iter().any(|f| f.name == d.name) {
                found.push(d);
            }
        }
    }
    for d in facts.devices.iter().filter(|d| d.fs == "iso9660") {
        if !found.iter().any(|f| f.name == d.name) {
            found.push(d);
        }
    }
    found
}

/// Whether the volume holds a context.sh (one directory lookup, no file read).
fn has_context(env: &Env, dev: &LabelledDevice) -> bool {
    SeedVolume::open(env, dev).is_ok_and(|mut v| {
        v.list_dir("")
            .is_ok_and(|names| names.iter().any(|n| n.eq_ignore_ascii_case("context.sh")))
    })
}

fn seed_dir_file() -> String {
    format!("{}/context.sh", seed_dir())
}

impl Datasource for OpenNebula {
    fn name(&self) -> &'static str {
        "opennebula"
    }
    fn cloud_init_name(&self) -> &'static str {
        "OpenNebula"
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = Vec::new();
        let mut add = |source: &str, detail: String| {
            ev.push(Evidence {
                source: source.into(),
                detail,
            })
        };
        if env
            .target
            .as_ref()
            .is_some_and(|t| t.exists(&seed_dir_file()))
        {
            add("seed-dir", seed_dir());
        }
        for d in facts.devices.iter().filter(|d| {
            let fs = matches!(d.fs.as_str(), "iso9660" | "vfat");
            // `CDROM` is AltCloud's vSphere label too: there, cloud-init's OpenNebula finds no
            // context.sh and gives way; ember chooses once, so it looks before it claims.
            fs && (d.has_label("CONTEXT") || (d.has_label("CDROM") && has_context(env, d)))
        }) {
            add(
                "label",
                format!("{} {} label {}", d.dev_name(), d.fs, d.labels.join(",")),
            );
        }
        // Named on the command line or alone in the image's list, any disc may hold it.
        if ev.is_empty() && !devices(facts).is_empty() {
            return crate::datasource::selection_evidence(env, facts, self, None);
        }
        ev
    }

    fn fetch(&self, env: &Env, facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let mut diags = Vec::new();
        let mut reads = 0;
        let mut found = None;
        if let Some(root) = env.target.as_ref() {
            reads += 1;
            match root.read_file(&seed_dir_file(), env.limits().file_bytes) {
                Ok(Some(text)) => found = Some((text, seed_dir(), false)),
                Ok(None) => {}
                Err(e) => diags.push(Diag::from(e).file(seed_dir_file())),
            }
        }
        for dev in devices(facts) {
            if found.is_some() {
                break;
            }
            let name = dev.dev_name();
            let mut vol = match SeedVolume::open(env, dev) {
                Ok(v) => v,
                Err(d) => {
                    diags.push(d);
                    continue;
                }
            };
            reads += 1;
            match vol.read("context.sh") {
                FileRead::Found(text) => found = Some((text, name, dev.removable)),
                FileRead::Absent => {}
                FileRead::Failed(d) => diags.push(d),
            }
        }
        let Some((text, seed, removable)) = found else {
            // A context that is there but unreadable is the reason, not "no context".
            return Err(diags.into_iter().next().unwrap_or_else(|| {
                Diag::error(
                    Reason::NoSeed,
                    format!(
                        "no context.sh in {} or on a CONTEXT/CDROM volume",
                        seed_dir()
                    ),
                )
            }));
        };
        let file = match seed.starts_with("/dev") {
            true => format!("{seed}: context.sh"),
            false => format!("{seed}/context.sh"),
        };
        let budget = env.limits().file_bytes;
        let mut data = build(&text, &file, &physical_nics(env), budget)?;
        let kind = if seed == seed_dir() {
            "seed-dir"
        } else {
            "config-disk"
        };
        data.detail = format!("DataSourceOpenNebula [seed={seed}][dsmode=net]");
        data.subplatform = format!("{kind} ({seed})");
        data.from_removable_media = removable;
        data.reads = reads;
        // Volumes tried before the one that held the context are worth a word, not a failure.
        for mut d in diags {
            d.severity = Severity::Warning;
            data.diags.push(d);
        }
        Ok(data)
    }
}

/// The physical NICs by name, in natural order, for the network config.
fn physical_nics(env: &Env) -> Vec<(String, String)> {
    let macs = crate::network::fallback::names_by_mac(env.host);
    let physical = crate::network::ephemeral::fallback_candidates(env.host);
    let mut nics: Vec<(String, String)> = macs
        .iter()
        .filter(|(_, name)| physical.contains(name))
        .map(|(mac, name)| (name.clone(), mac.clone()))
        .collect();
    ember_core::sort::sort_by_key(&mut nics, |(name, _)| {
        crate::network::ephemeral::nics::natural_key(name)
    });
    nics
}

/// Everything from one context.sh; `nics` are the host's physical NICs (name, MAC).
/// `file` names it in diagnostics; its variables' expansions may add `budget` bytes in all
/// (`file_bytes`: what the file itself could have held).
fn build(
    text: &[u8],
    file: &str,
    nics: &[(String, String)],
    budget: u64,
) -> Result<InstanceData, Diag> {
    let text = std::str::from_utf8(text).map_err(|e| {
        let msg = format!("not valid UTF-8 (byte {})", e.valid_up_to());
        Diag::error(Reason::NotUtf8, msg).file(file)
    })?;
    let parsed = context::parse(text, budget);
    let mut data = InstanceData {
        datasource: "opennebula".into(),
        instance_id: INSTANCE_ID.into(),
        ..InstanceData::default()
    };
    for p in &parsed.problems {
        let mut d = match p.over_budget {
            true => Diag::error(Reason::BudgetExceeded, p.what.clone()).budget("file_bytes"),
            false => Diag::warning(Reason::MetadataInvalid, p.what.clone()),
        };
        d = d.file(file).line(Some(p.line));
        if let Some(k) = &p.key {
            d = d.key(k.clone());
        }
        data.diags.push(d);
    }
    let ctx = parsed.vars;
    data.user_data = user_data(&ctx, file, &mut data.diags).map(Secret::new);
    if network::wanted(&ctx) {
        let mut bad = Vec::new();
        let cfg = network::config(&ctx, nics, &mut bad);
        for b in bad {
            let d = Diag::warning(Reason::BadValue, b.why).key(b.key).file(file);
            data.diags.push(d);
        }
        data.network_config = Some((file.to_string(), cfg));
    }
    data.meta_data = meta_data(&ctx);
    Ok(data)
}

/// The context as meta-data, secrets left out, with cloud-init's `public-keys`,
/// `local-hostname` and `instance-id`.
fn meta_data(ctx: &BTreeMap<String, String>) -> Value {
    let mut md: Map<String, Value> = ctx
        .iter()
        .filter(|(k, _)| !is_secret(k))
        .map(|(k, v)| (k.clone(), json!(v)))
        .into_map();
    // SSH_KEY wins over SSH_PUBLIC_KEY when both are there.
    if let Some(keys) = ctx.get("SSH_KEY").or_else(|| ctx.get("SSH_PUBLIC_KEY")) {
        let lines: Vec<&str> = keys
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        md.insert("public-keys".into(), json!(lines));
    }
    if let Some(h) = HOSTNAME_KEYS.iter().find_map(|k| ctx.get(*k)) {
        md.insert("local-hostname".into(), json!(h));
    }
    md.insert("instance-id".into(), json!(INSTANCE_ID));
    Value::Object(md)
}

/// `USER_DATA` (else `USERDATA`), decoded when `USERDATA_ENCODING` (else
/// `USER_DATA_ENCODING`) says base64. Bad base64 leaves the user-data out, named.
fn user_data(ctx: &BTreeMap<String, String>, file: &str, diags: &mut Vec<Diag>) -> Option<Vec<u8>> {
    let (key, raw) = ["USER_DATA", "USERDATA"]
        .iter()
        .find_map(|k| Some((*k, ctx.get(*k)?)))?;
    let encoding = ctx
        .get("USERDATA_ENCODING")
        .or_else(|| ctx.get("USER_DATA_ENCODING"));
    if encoding.map(String::as_str) != Some("base64") {
        return Some(raw.clone().into_bytes());
    }
    // OpenNebula wraps nothing, but a hand-written context may break long lines.
    let compact: String = raw.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    match base64::engine::general_purpose::STANDARD.decode(compact) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            let msg = "declared base64 but is not valid base64: user-data left out";
            diags.push(Diag::error(Reason::Base64Invalid, msg).key(key).file(file));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(text: &str) -> BTreeMap<String, String> {
        context::parse(text, u64::MAX).vars
    }

    #[test]
    fn meta_data_as_cloud_init_builds_it_without_secrets() {
        let c = ctx("SSH_PUBLIC_KEY='ssh-ed25519 A a\n\n# c\nssh-rsa B b'\nHOSTNAME='web1'\n\
            ETH0_IP='10.0.0.5'\nPASSWORD='pw'\nCRYPTED_PASSWORD='$6$x'\nUSER_DATA='#cloud-config'\n");
        let md = meta_data(&c);
        assert_eq!(md["public-keys"], json!(["ssh-ed25519 A a", "ssh-rsa B b"]));
        assert_eq!(md["local-hostname"], "web1");
        assert_eq!(md["instance-id"], INSTANCE_ID);
        assert_eq!(md["ETH0_IP"], "10.0.0.5");
        for k in ["PASSWORD", "CRYPTED_PASSWORD", "USER_DATA"] {
            assert!(md.get(k).is_none(), "{k}");
        }
        // Without a hostname variable, the first address stands in; SSH_KEY wins.
        let md = meta_data(&ctx(
            "ETH0_IP='10.0.0.5'\nSSH_KEY='k1'\nSSH_PUBLIC_KEY='k2'",
        ));
        assert_eq!(md["local-hostname"], "10.0.0.5");
        assert_eq!(md["public-keys"], json!(["k1"]));
    }

    #[test]
    fn user_data_plain_base64_and_broken() {
        let mut diags = Vec::new();
        let plain = ctx("USERDATA='#cloud-config\na: 1'");
        assert_eq!(
            user_data(&plain, "f", &mut diags).as_deref(),
            Some(&b"#cloud-config\na: 1"[..])
        );
        let b64 = ctx("USER_DATA='I2Nsb3Vk\nLWNvbmZpZw=='\nUSER_DATA_ENCODING='base64'");
        assert_eq!(
            user_data(&b64, "f", &mut diags).as_deref(),
            Some(&b"#cloud-config"[..])
        );
        assert!(diags.is_empty());
        let bad = ctx("USER_DATA='not*base64'\nUSERDATA_ENCODING='base64'");
        assert_eq!(user_data(&bad, "f", &mut diags), None);
        assert_eq!(diags[0].code, "base64-invalid");
        assert_eq!(diags[0].key.as_deref(), Some("USER_DATA"));
        assert!(!format!("{diags:?}").contains("not*base64"));
    }
}
