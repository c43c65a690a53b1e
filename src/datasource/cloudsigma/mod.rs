//! CloudSigma: detected as ds-identify does, from DMI `product_name` `CloudSigma`; the server
//! context read over the second serial port (`/dev/ttyS1`) in one request, as cloud-init's
//! cepko asks it: `<\n\n>` (the empty path: the whole context), answered with one line of
//! JSON ended by EOT. Into `InstanceData` as cloud-init's DataSourceCloudSigma has it: the
//! context as meta-data (the server's `uuid` the instance id, its `name` the host name when
//! it is a plain one), `meta.ssh_public_key` the key, `meta.cloudinit-user-data` the
//! user-data (base64 when `meta.base64_fields` names it), `vendor_data.cloudinit` the
//! vendor-data. Not here: network config (cloud-init has none for CloudSigma: the fallback
//! applies), `global_context`.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/cloudsigma.html>

use crate::context::Env;
use crate::datasource::common::{metadata_get, serial};
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData, PublicKey};
use crate::detect::{dmi::Dmi, Facts};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

pub struct CloudSigma;

const SERIAL_DEVICE: &str = "/dev/ttyS1";
/// cepko's request for the whole server context: the empty path between the markers.
const REQUEST: &[u8] = b"<\n\n>";
/// cepko's read timeout, in seconds.
const READ_TIMEOUT: u64 = 60;
/// What is kept out of meta-data: payloads (instance-data.json is world-readable).
const SECRET_META: [&str; 1] = ["cloudinit-user-data"];

fn product(dmi: &Dmi) -> Option<String> {
    (dmi.fields.get("product_name")? == "CloudSigma").then(|| "product_name=CloudSigma".into())
}

impl Datasource for CloudSigma {
    fn name(&self) -> &'static str {
        "cloudsigma"
    }
    fn cloud_init_name(&self) -> &'static str {
        "CloudSigma"
    }

    fn dmi(&self, dmi: &Dmi) -> Option<String> {
        product(dmi)
    }

    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        crate::datasource::selection_evidence(env, facts, self, product(&facts.dmi))
    }

    /// cloud-init's: the one key of `meta.ssh_public_key`, kept in meta-data.
    fn public_keys(&self, data: &InstanceData) -> Vec<PublicKey> {
        let key = data.meta_data.pointer("/meta/ssh_public_key");
        key.and_then(Value::as_str)
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(PublicKey::for_default_user)
            .into_iter()
            .collect()
    }

    fn fetch(&self, env: &Env, _facts: &Facts, _link: &mut Link) -> Result<InstanceData, Diag> {
        let cfg = env.image.datasource_settings("CloudSigma");
        let device = cfg
            .and_then(|c| c.get("serial_device"))
            .and_then(Value::as_str)
            .unwrap_or(SERIAL_DEVICE)
            .to_string();
        let (request, until, _) = metadata_get::timing(env, "CloudSigma", 0);
        let per_read = Duration::from_secs(READ_TIMEOUT).min(request);
        let line = ask(env, &device, per_read, until)?;
        let mut data = InstanceData {
            datasource: "cloudsigma".into(),
            detail: format!("DataSourceCloudSigma [cepko {device}]"),
            subplatform: format!("cepko ({device})"),
            reads: 1,
            ..InstanceData::default()
        };
        build(&line, &device, &mut data)?;
        Ok(data)
    }
}

/// The one request and its answer: up to the EOT, or a line end (cepko reads a line and strips
/// the EOT; which comes first on a real host is not documented).
fn ask(env: &Env, device: &str, per_read: Duration, until: Instant) -> Result<Vec<u8>, Diag> {
    let unreachable = |why: String| Diag::error(Reason::MetadataUnreachable, why).file(device);
    let max_line = env.limits().file_bytes as usize;
    let mut chan = serial::open_serial(&env.host.path(device), max_line)
        .map_err(|e| unreachable(format!("cannot open the serial port: {e}")))?
        .metered(env.fetched);
    let by = (Instant::now() + per_read).min(until);
    // Whatever an earlier reader left unread is not our answer.
    let _ = chan.discard_pending(Duration::from_millis(50), by);
    chan.write_all(REQUEST, by)
        .map_err(|e| unreachable(format!("the server context request was not sent: {e}")))?;
    let line = chan.read_to(b"\x04\n", by).map_err(|e| match e {
        serial::LineError::OverTotal(_) => Diag::error(Reason::BudgetExceeded, e.to_string())
            .file(device)
            .budget(crate::limits::TALLY_BUDGET),
        e => unreachable(format!("no server context: {e}")),
    })?;
    let trim = |b: &u8| *b == 0x04 || *b == b'\n' || *b == b'\r';
    let start = line.iter().position(|b| !trim(b)).unwrap_or(line.len());
    let end = line.iter().rposition(|b| !trim(b)).map_or(start, |e| e + 1);
    Ok(line[start..end].to_vec())
}

/// cloud-init's host name rule: the server's name when all of it is letters, digits, `.` or
/// in the ASCII range from space to `_` (its pattern's range), cut to 61 characters; else
/// the uuid's first group.
fn hostname(name: Option<&str>, uuid: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '.' || (' '..='_').contains(&c);
    match name {
        Some(n) if !n.is_empty() && n.chars().all(plain) => n.chars().take(61).collect(),
        _ => uuid.split('-').next().unwrap_or(uuid).to_string(),
    }
}

fn build(line: &[u8], device: &str, data: &mut InstanceData) -> Result<(), Diag> {
    let invalid = |msg: String| Diag::error(Reason::MetadataInvalid, msg).file(device);
    let ctx: Value = serde_json::from_slice(line).map_err(|e| {
        invalid(format!(
            "the server context is not JSON (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    let Value::Object(mut ctx) = ctx else {
        return Err(invalid("the server context is not a JSON object".into()));
    };
    let Some(Value::Object(mut meta)) = ctx.remove("meta") else {
        return Err(invalid("the server context has no `meta` object".into()).key("meta"));
    };
    if meta.get("cloudinit-dsmode").and_then(Value::as_str) == Some("disabled") {
        let msg = "the server's meta sets cloudinit-dsmode: disabled";
        return Err(Diag::error(Reason::NoDatasource, msg)
            .file(device)
            .key("meta.cloudinit-dsmode"));
    }
    let uuid = match ctx.get("uuid") {
        Some(Value::String(u)) if !u.is_empty() => u.clone(),
        _ => return Err(invalid("the server context has no uuid".into()).key("uuid")),
    };
    let b64_fields: Vec<String> = meta
        .get("base64_fields")
        .and_then(Value::as_str)
        .map(|f| f.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default();
    match meta.get("cloudinit-user-data") {
        Some(Value::String(ud)) if b64_fields.iter().any(|f| f == "cloudinit-user-data") => {
            match B64.decode(ud.trim()) {
                Ok(bytes) => data.user_data = Some(Secret::new(bytes)),
                Err(_) => data.diags.push(
                    Diag::warning(
                        Reason::Base64Invalid,
                        "named in base64_fields but not base64: user-data left out",
                    )
                    .file(device)
                    .key("meta.cloudinit-user-data"),
                ),
            }
        }
        Some(Value::String(ud)) => data.user_data = Some(Secret::new(ud.clone().into_bytes())),
        None | Some(Value::Null) => {}
        Some(_) => data.diags.push(
            Diag::warning(Reason::WrongType, "not a string: user-data left out")
                .file(device)
                .key("meta.cloudinit-user-data"),
        ),
    }
    match ctx
        .remove("vendor_data")
        .as_ref()
        .and_then(|v| v.get("cloudinit"))
    {
        Some(Value::String(vd)) => data.vendor_data = Some(Secret::new(vd.clone().into_bytes())),
        None | Some(Value::Null) => {}
        Some(_) => data.diags.push(
            Diag::warning(Reason::WrongType, "not a string: vendor-data left out")
                .file(device)
                .key("vendor_data.cloudinit"),
        ),
    }
    for k in SECRET_META {
        meta.remove(k);
    }
    let name = ctx.get("name").and_then(Value::as_str);
    let host = hostname(name, &uuid);
    let mut md = Map::new();
    md.insert("instance-id".into(), json!(uuid));
    md.insert("local-hostname".into(), json!(host));
    md.insert("meta".into(), Value::Object(meta));
    md.extend(ctx);
    data.instance_id = uuid;
    data.meta_data = Value::Object(md);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_as_cloud_init_takes_them() {
        let uuid = "65b2fb23-8c03-4187-a3ba-8b7c919e8890";
        assert_eq!(hostname(Some("test_server"), uuid), "test_server");
        assert_eq!(hostname(Some("web 1.example"), uuid), "web 1.example");
        assert_eq!(hostname(Some("ünïcode"), uuid), "65b2fb23");
        assert_eq!(hostname(Some("a{b}"), uuid), "65b2fb23");
        assert_eq!(hostname(None, uuid), "65b2fb23");
        assert_eq!(hostname(Some(&"x".repeat(70)), uuid).len(), 61);
    }

    #[test]
    fn the_context_into_instance_data() {
        let ctx = json!({
            "name": "test_server", "uuid": "65b2fb23-8c03-4187-a3ba-8b7c919e8890",
            "meta": {"ssh_public_key": "ssh-rsa AAAA key", "base64_fields": "cloudinit-user-data",
                     "cloudinit-user-data": "I2Nsb3VkLWNvbmZpZwo="},
            "vendor_data": {"cloudinit": "#cloud-config\n", "location": "zrh"},
            "nics": [{"mac": "22:3d:09:6b:90:f3"}]
        });
        let mut data = InstanceData::default();
        build(ctx.to_string().as_bytes(), "/dev/ttyS1", &mut data).unwrap();
        assert_eq!(data.instance_id, "65b2fb23-8c03-4187-a3ba-8b7c919e8890");
        assert_eq!(
            data.user_data.as_ref().unwrap().expose(),
            b"#cloud-config\n"
        );
        assert_eq!(
            data.vendor_data.as_ref().unwrap().expose(),
            b"#cloud-config\n"
        );
        let md = &data.meta_data;
        assert_eq!(md["local-hostname"], "test_server");
        assert!(md["meta"].get("cloudinit-user-data").is_none(), "{md}");
        assert!(md.get("vendor_data").is_none(), "{md}");
        assert_eq!(md["nics"][0]["mac"], "22:3d:09:6b:90:f3");
        assert_eq!(CloudSigma.public_keys(&data)[0].key, "ssh-rsa AAAA key");
    }

    #[test]
    fn a_bad_context_is_named() {
        let code = |line: &str| {
            let mut data = InstanceData::default();
            let e = build(line.as_bytes(), "/dev/ttyS1", &mut data).unwrap_err();
            (e.code, e.key)
        };
        assert_eq!(code("not json").0, "metadata-invalid");
        assert_eq!(code("[1]").0, "metadata-invalid");
        assert_eq!(code(r#"{"uuid": "u"}"#).1.as_deref(), Some("meta"));
        assert_eq!(code(r#"{"meta": {}}"#).1.as_deref(), Some("uuid"));
        let off = r#"{"uuid": "u", "meta": {"cloudinit-dsmode": "disabled"}}"#;
        assert_eq!(code(off).0, "no-datasource");
        let mut data = InstanceData::default();
        let bad = r#"{"uuid": "u", "meta": {"base64_fields": "cloudinit-user-data", "cloudinit-user-data": "!!"}}"#;
        build(bad.as_bytes(), "/dev/ttyS1", &mut data).unwrap();
        assert!(data.user_data.is_none());
        assert_eq!(
            data.diags[0].key.as_deref(),
            Some("meta.cloudinit-user-data")
        );
    }
}
