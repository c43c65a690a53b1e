//! The devlxd API over /dev/lxd/sock, read as cloud-init reads it: `GET /1.0/meta-data`
//! (required), `GET /1.0/config` (the list of the instance's `cloud-init.*` and `user.*` keys)
//! and each listed key in name order, then `GET /1.0/devices`. A 500 is retried within the
//! deadline; a key that fails is left out with a diagnostic naming it, the rest is used. The
//! `cloud-init.*` keys are promoted to user-data, vendor-data and network-config, their
//! `user.*` twins only when the `cloud-init.*` key is absent (older LXD). Not here: what the
//! data means (`mod.rs`).

use super::SOCKET;
use crate::context::Env;
use crate::datasource::common::client::Client;
use crate::datasource::common::seed;
use crate::datasource::InstanceData;
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use crate::yaml;
use serde_json::{Map, Value};

/// Config keys read at most: each is one request, and a server listing thousands is broken.
const MAX_CONFIG_KEYS: usize = 256;
/// Where each route's value goes; `cloud-init.*` sort before `user.*`, so they win.
const ALIASES: [(&str, Alias); 6] = [
    ("cloud-init.network-config", Alias::NetworkConfig),
    ("cloud-init.user-data", Alias::UserData),
    ("cloud-init.vendor-data", Alias::VendorData),
    ("user.network-config", Alias::NetworkConfig),
    ("user.user-data", Alias::UserData),
    ("user.vendor-data", Alias::VendorData),
];

#[derive(Clone, Copy, PartialEq)]
enum Alias {
    UserData,
    VendorData,
    NetworkConfig,
}

/// A route as diagnostics name it: the socket and the path.
pub fn url(route: &str) -> String {
    format!("{SOCKET}: /1.0/{}", route.trim_start_matches("/1.0/"))
}

pub struct Reader<'a> {
    pub client: &'a Client,
}

/// What the socket gave.
#[derive(Default)]
pub struct Crawled {
    pub meta_data: Map<String, Value>,
    /// Every config key read, by its name (`user.foo`), with its value as text.
    pub config: Map<String, Value>,
    pub user_data: Option<Secret<Vec<u8>>>,
    pub vendor_data: Option<Secret<Vec<u8>>>,
    /// The parsed network config and the key it came from.
    pub network_config: Option<(String, yaml::Doc)>,
    pub network_config_raw: Option<String>,
    /// A network config was given but could not be used (its diagnostic is recorded).
    pub network_config_failed: bool,
    pub devices: Option<Value>,
}

impl Reader<'_> {
    /// The body of `GET /1.0/<route>`, a 500 retried.
    fn get(&self, route: &str, reads: &mut u32) -> Result<Vec<u8>, Diag> {
        let path = route.trim_start_matches("/1.0/");
        // The fetcher names the URL as http://lxd/…; the socket is what the reader needs.
        self.client.get(path, reads).map_err(|mut d| {
            d.file = Some(url(route));
            d
        })
    }

    pub fn crawl(&self, env: &Env, data: &mut InstanceData) -> Result<Crawled, Diag> {
        let limits = env.limits();
        let body = self.get("meta-data", &mut data.reads)?;
        // parse_mapping returns a mapping (`{}` for an empty document) or an error.
        let meta_data = match seed::parse_mapping(&body, &url("meta-data"), limits)? {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let mut out = Crawled {
            meta_data,
            ..Crawled::default()
        };
        for route in self.config_routes(data) {
            self.read_key(env, &route, &mut out, data);
        }
        out.devices = match self.get("devices", &mut data.reads) {
            Ok(body) => match serde_json::from_slice::<Value>(&body) {
                Ok(v @ Value::Object(_)) => Some(v).filter(|v| v != &Value::Object(Map::new())),
                _ => {
                    let d = Diag::warning(Reason::MetadataInvalid, "not a JSON object; ignored");
                    data.diags.push(d.file(url("devices")));
                    None
                }
            },
            // Older LXD has no devices route: nothing is lost, cloud-init skips it silently.
            Err(d) if d.code == Reason::MetadataNotFound.as_str() => None,
            Err(d) => {
                data.diags.push(warning(d));
                None
            }
        };
        Ok(out)
    }

    /// The config routes `/1.0/config` lists, sorted, each a `/1.0/config/<key>` path.
    fn config_routes(&self, data: &mut InstanceData) -> Vec<String> {
        let shown = url("config");
        let body = match self.get("config", &mut data.reads) {
            Ok(body) => body,
            Err(d) if d.code == Reason::MetadataNotFound.as_str() => return Vec::new(),
            Err(d) => {
                data.diags.push(warning(d));
                return Vec::new();
            }
        };
        let list: Vec<Value> = match serde_json::from_slice(&body) {
            Ok(Value::Array(list)) => list,
            Ok(_) => {
                let d = Diag::error(
                    Reason::MetadataInvalid,
                    "not a JSON list; no config keys read",
                );
                data.diags.push(d.file(shown));
                return Vec::new();
            }
            Err(e) => {
                let msg = format!(
                    "not JSON (line {}, column {}); no config keys read",
                    e.line(),
                    e.column()
                );
                data.diags
                    .push(Diag::error(Reason::MetadataInvalid, msg).file(shown));
                return Vec::new();
            }
        };
        let mut routes: Vec<String> = Vec::new();
        for (i, item) in list.iter().enumerate() {
            match item.as_str().and_then(config_key) {
                Some(key) => routes.push(format!("/1.0/config/{key}")),
                None => data.diags.push(
                    Diag::warning(
                        Reason::MetadataInvalid,
                        "not a /1.0/config/<key> route; skipped",
                    )
                    .file(shown.clone())
                    .key(format!("[{i}]")),
                ),
            }
        }
        ember_core::sort::sort(&mut routes);
        routes.dedup();
        if routes.len() > MAX_CONFIG_KEYS {
            let msg = format!(
                "{} config keys listed; the first {MAX_CONFIG_KEYS} are read",
                routes.len()
            );
            data.diags
                .push(Diag::warning(Reason::BudgetExceeded, msg).file(shown));
            routes.truncate(MAX_CONFIG_KEYS);
        }
        routes
    }

    /// One config key: kept as text, and promoted when it is one cloud-init reads.
    fn read_key(&self, env: &Env, route: &str, out: &mut Crawled, data: &mut InstanceData) {
        let key = route.rsplit('/').next().unwrap_or_default().to_string();
        let body = match self.get(route, &mut data.reads) {
            Ok(body) => body,
            // Removed between the listing and the read.
            Err(d) if d.code == Reason::MetadataNotFound.as_str() => return,
            Err(d) => {
                data.diags.push(d.key(key.as_str()));
                return;
            }
        };
        out.config.insert(
            key.clone(),
            Value::String(String::from_utf8_lossy(&body).into_owned()),
        );
        let Some((_, alias)) = ALIASES.iter().find(|(k, _)| *k == key) else {
            return;
        };
        let taken = match alias {
            Alias::UserData => out.user_data.is_some(),
            Alias::VendorData => out.vendor_data.is_some(),
            Alias::NetworkConfig => out.network_config_raw.is_some(),
        };
        if taken {
            let winner = key.replacen("user", "cloud-init", 1);
            let msg = format!("ignored in favour of {winner}, as cloud-init does");
            data.diags.push(
                Diag::warning(Reason::DuplicateKey, msg)
                    .file(url("config"))
                    .key(key.as_str()),
            );
            return;
        }
        match alias {
            Alias::UserData => out.user_data = Some(Secret::new(body)),
            Alias::VendorData => out.vendor_data = Some(Secret::new(body)),
            Alias::NetworkConfig => {
                out.network_config_raw = Some(String::from_utf8_lossy(&body).into_owned());
                let file = url(route);
                match seed::parse_mapping_doc(&body, &file, env.limits()) {
                    Ok(doc) => out.network_config = Some((file, doc)),
                    Err(d) => {
                        data.diags.push(d.key(key.as_str()));
                        out.network_config_failed = true;
                    }
                }
            }
        }
    }
}

/// A failure that costs only an optional part of the data.
fn warning(mut d: Diag) -> Diag {
    d.severity = crate::error::Severity::Warning;
    d
}

/// The key of a `/1.0/config/<key>` route, when it is one: a plain name, nothing that would
/// change the request's path or query.
fn config_key(route: &str) -> Option<&str> {
    let key = route.strip_prefix("/1.0/config/")?;
    let plain = |c: char| c.is_ascii_alphanumeric() || "._-:".contains(c);
    (!key.is_empty() && key.chars().all(plain)).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_routes_are_plain_keys() {
        let cases = [
            ("/1.0/config/user.user-data", Some("user.user-data")),
            (
                "/1.0/config/cloud-init.network-config",
                Some("cloud-init.network-config"),
            ),
            ("/1.0/config/", None),
            ("/1.0/config/../meta-data", None),
            ("/1.0/config/a?b", None),
            ("/1.0/meta-data", None),
            ("http://lxd/1.0/config/user.x", None),
        ];
        for (route, want) in cases {
            assert_eq!(config_key(route), want, "{route}");
        }
    }

    #[test]
    fn cloud_init_keys_sort_before_their_user_twins() {
        for (key, alias) in ALIASES.iter().filter(|(k, _)| k.starts_with("user.")) {
            let twin = key.replacen("user", "cloud-init", 1);
            let (_, a) = ALIASES.iter().find(|(k, _)| *k == twin).unwrap();
            assert!(a == alias && twin.as_str() < *key);
        }
    }

    #[test]
    fn routes_are_named_with_the_socket() {
        assert_eq!(url("meta-data"), "/dev/lxd/sock: /1.0/meta-data");
        assert_eq!(
            url("/1.0/config/user.x"),
            "/dev/lxd/sock: /1.0/config/user.x"
        );
    }
}
