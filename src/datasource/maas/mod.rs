//! MAAS (Canonical's Metal as a Service): a machine MAAS deployed finds its datasource in the
//! image config MAAS wrote (`datasource: {MAAS: {metadata_url, consumer_key, token_key,
//! token_secret, consumer_secret}}`, curtin's `90_dpkg_maas.cfg`) or in the seed directory
//! `/var/lib/cloud/seed/maas`; no DMI says MAAS. The seed directory wins, as in cloud-init;
//! else the files are read from `<metadata_url>/2012-03-01/` with OAuth 1.0 PLAINTEXT-signed
//! GETs (oauth.rs, http.rs), five requests, over ember's own DHCP lease when the initramfs has
//! no default route. The credentials are secrets: never in status, logs or instance data.
//! Not here: the ephemeral-environment heuristics (an iSCSI root with `cloud-config-url=` on
//! the command line), the skew file `/run/oauth_skew.json`, and the local instance check
//! from the credentials' hash (cloud-init's `check_instance_id`).
//! <https://docs.cloud-init.io/en/latest/reference/datasources/maas.html>

mod files;
mod http;
mod oauth;

use crate::context::Env;
use crate::datasource::link::Link;
use crate::datasource::{Datasource, InstanceData};
use crate::detect::Facts;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::status::Evidence;
use serde_json::Value;

pub struct Maas;

/// cloud-init's MAAS seed: `seed/maas` of the cloud dir.
fn seed_path() -> String {
    crate::paths::system().seed("maas")
}
/// cloud-init reads each file with one retry.
const DEFAULT_RETRIES: u32 = 1;

fn settings<'a>(env: &'a Env) -> Option<&'a Value> {
    env.image.datasource_settings("MAAS")
}

fn metadata_url(env: &Env) -> Option<String> {
    let url = settings(env)?.get("metadata_url")?.as_str()?.trim();
    (!url.is_empty()).then(|| url.trim_end_matches('/').to_string())
}

/// The seed directory holds something (cloud-init takes a non-empty directory).
fn seed_dir(env: &Env) -> bool {
    let Some(t) = env.target.as_ref() else {
        return false;
    };
    t.list_dir(&seed_path()).is_ok_and(|l| !l.is_empty())
}

/// The OAuth credentials: all three of consumer_key, token_key and token_secret, or none
/// (cloud-init refuses a partial set); the consumer secret may be empty.
fn creds(env: &Env) -> Result<Option<oauth::Creds>, Diag> {
    let cfg = settings(env);
    let get = |k: &str| {
        cfg.and_then(|c| c.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (ck, tk, ts) = (get("consumer_key"), get("token_key"), get("token_secret"));
    match (ck, tk, ts) {
        (None, None, None) => Ok(None),
        (Some(consumer_key), Some(token_key), Some(token_secret)) => Ok(Some(oauth::Creds {
            consumer_key,
            consumer_secret: Secret::new(get("consumer_secret").unwrap_or_default()),
            token_key: Secret::new(token_key),
            token_secret: Secret::new(token_secret),
        })),
        _ => {
            let msg = "consumer_key, token_key and token_secret must be given all or none";
            Err(Diag::error(Reason::ConfigInvalid, msg).key("datasource.MAAS"))
        }
    }
}

impl Datasource for Maas {
    fn name(&self) -> &'static str {
        "maas"
    }
    fn cloud_init_name(&self) -> &'static str {
        "MAAS"
    }

    /// ds-identify's: the image config MAAS wrote; also the seed directory, which cloud-init
    /// reads first.
    fn detect(&self, env: &Env, facts: &Facts) -> Vec<Evidence> {
        let mut ev = crate::datasource::selection_evidence(env, facts, self, None);
        if seed_dir(env) {
            let detail = seed_path();
            ev.push(Evidence {
                source: "seed-dir".into(),
                detail,
            });
        }
        if metadata_url(env).is_some() {
            let detail = "datasource: {MAAS: {metadata_url}} in the image config".to_string();
            ev.push(Evidence {
                source: "config".into(),
                detail,
            });
        }
        ev
    }

    fn fetch(&self, env: &Env, _facts: &Facts, link: &mut Link) -> Result<InstanceData, Diag> {
        let mut data = InstanceData {
            datasource: "maas".into(),
            ..InstanceData::default()
        };
        if seed_dir(env) {
            read_seed_dir(env, &mut data)?;
            return Ok(data);
        }
        let Some(base) = metadata_url(env) else {
            let msg = format!(
                "no seed in {} and no metadata_url in the image's datasource: {{MAAS}} settings",
                seed_path()
            );
            return Err(Diag::error(Reason::NoSeed, msg));
        };
        let creds = creds(env)?;
        let client = http::client(env, &base, creds, DEFAULT_RETRIES);
        let service = client.routed_service(env);
        let shown = crate::fetch::redact_url(&base);
        let limits = env.limits().clone();
        let result = client.reach(env, link, &service, &mut data, |client, d, _| {
            let mut reads = 0;
            let r = files::read(
                |path| client.get_optional(&format!("{}/{path}", files::VERSION), &mut reads),
                &shown,
                &limits,
                d,
            );
            d.reads += reads;
            r
        });
        result?;
        data.detail = format!("DataSourceMAAS [{shown}]");
        data.subplatform = format!("seed-dir ({shown})");
        Ok(data)
    }
}

fn read_seed_dir(env: &Env, data: &mut InstanceData) -> Result<(), Diag> {
    let Some(root) = env.target.as_ref() else {
        return Err(Diag::error(
            Reason::NoSeed,
            "no target root to read the seed from",
        ));
    };
    let max = env.limits().file_bytes;
    let mut reads = 0;
    files::read(
        |path| {
            reads += 1;
            let full = format!("{}/{path}", seed_path());
            root.read_file(&full, max)
                .map_err(|e| Diag::from(e).file(full.clone()))
        },
        &seed_path(),
        env.limits(),
        data,
    )?;
    data.reads = reads;
    data.detail = format!("DataSourceMAAS [{}]", seed_path());
    data.subplatform = format!("seed-dir ({})", seed_path());
    Ok(())
}
