//! The keys `apt_configure` owns, read once into `Settings`: the `apt` mapping after
//! cloud-init's conversion of the deprecated top-level keys (`convert`). The boot and `ember
//! schema` both read them here. Where cloud-init's module reads loosely (a truthy
//! `search_dns`, `append`), the same words are taken as `flag` takes them.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#apt-configure>

use super::convert::{self, Apt};
use crate::common::distro::{flag, plain_word};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// cloud-init's default `add_apt_repo_match`, the only pattern ember applies.
pub const REPO_MATCH: &str = r"^[\w-]+:\w";

/// Where an entry's key comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeySpec {
    /// An armored (or binary) key.
    pub key: Option<String>,
    pub keyid: Option<String>,
    pub keyserver: Option<String>,
    pub keyurl: Option<String>,
}

impl KeySpec {
    /// Whether fetching it takes gpg (a `keyid` without a `key`).
    pub fn needs_gpg(&self) -> bool {
        self.key.is_none() && self.keyid.is_some()
    }
}

/// One item of `primary` or `security`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mirror {
    pub arches: Vec<String>,
    pub uri: Option<String>,
    pub search: Option<Vec<String>>,
    pub search_dns: bool,
    pub keys: KeySpec,
}

/// One entry of `sources`, by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub name: String,
    /// Its key path (`apt.sources.NAME`).
    pub path: String,
    pub source: Option<String>,
    /// `filename`, else the entry's name.
    pub filename: String,
    /// `append` (default true); false overwrites the file.
    pub append: bool,
    pub keys: KeySpec,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// No `apt` keys at all: cloud-init then acts only where apt is installed.
    pub empty: bool,
    pub preserve_sources_list: bool,
    pub disable_suites: Vec<String>,
    pub primary: Option<Vec<Mirror>>,
    pub security: Option<Vec<Mirror>>,
    /// `debconf_selections`' sets, in the order of their names.
    pub debconf: Vec<(String, String)>,
    pub sources_list: Option<String>,
    pub conf: Option<String>,
    /// `proxy`, `http_proxy`, `ftp_proxy`, `https_proxy`: the apt option each sets, the key's
    /// name (for `path`), and the URL.
    pub proxies: Vec<(&'static str, &'static str, String)>,
    /// `sources` when given (even empty: it has apt's lists refreshed), in name order.
    pub sources: Option<Vec<Source>>,
    /// The key path of each key read (an old top-level key's name when it came from one).
    pub paths: BTreeMap<String, String>,
}

impl Settings {
    pub fn path(&self, key: &str) -> String {
        self.paths
            .get(key)
            .cloned()
            .unwrap_or_else(|| format!("apt.{key}"))
    }
}

/// `None` when the module must not run (cloud-init raises: see `convert`).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let apt = convert::convert(cfg, diags)?;
    let get = |k: &str| apt.map.get(k).filter(|v| !v.is_null());
    let mut r = Reader { apt: &apt, diags };
    let proxies = [
        ("proxy", "http"),
        ("http_proxy", "http"),
        ("ftp_proxy", "ftp"),
        ("https_proxy", "https"),
    ]
    .into_iter()
    .filter_map(|(k, scheme)| Some((scheme, k, r.text(get(k), &apt.path(k))?)))
    .filter(|(_, _, url)| !url.is_empty())
    .collect();
    if let Some(m) = r.text(get("add_apt_repo_match"), &apt.path("add_apt_repo_match")) {
        if m != REPO_MATCH {
            let msg = format!("ember applies only cloud-init's default pattern {REPO_MATCH}");
            let key = apt.path("add_apt_repo_match");
            r.diags
                .push(Diag::warning(Reason::UnsupportedKey, msg).key(key));
        }
    }
    Some(Settings {
        empty: apt.map.is_empty(),
        preserve_sources_list: r.preserve(apt.map.get("preserve_sources_list")),
        disable_suites: r.words(get("disable_suites"), &apt.path("disable_suites")),
        primary: get("primary").map(|v| r.mirrors(v, &apt.path("primary"))),
        security: get("security").map(|v| r.mirrors(v, &apt.path("security"))),
        debconf: r.debconf(get("debconf_selections")),
        sources_list: r
            .text(get("sources_list"), &apt.path("sources_list"))
            .filter(|s| !s.is_empty()),
        conf: r
            .text(get("conf"), &apt.path("conf"))
            .filter(|s| !s.is_empty()),
        proxies,
        sources: apt
            .map
            .get("sources")
            .map(|v| r.sources(v, &apt.path("sources"))),
        paths: apt.paths.clone(),
    })
}

struct Reader<'a> {
    apt: &'a Apt,
    diags: &'a mut Vec<Diag>,
}

impl Reader<'_> {
    fn wrong(&mut self, what: &str, key: impl Into<String>) {
        let msg = format!("expected {what}; ignored");
        self.diags
            .push(Diag::error(Reason::WrongType, msg).key(key));
    }

    fn text(&mut self, v: Option<&Value>, key: &str) -> Option<String> {
        match v? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            _ => {
                self.wrong("a string", key);
                None
            }
        }
    }

    /// cloud-init preserves unless the value is false (or a false word); a wrong type is an
    /// error and preserves too, so nothing is overwritten on a mistake.
    fn preserve(&mut self, v: Option<&Value>) -> bool {
        let key = self.apt.path("preserve_sources_list");
        match v {
            None => false,
            Some(Value::Null) => true,
            Some(v) => {
                let mut found = Vec::new();
                let b = flag(Some(v), &key, &mut found);
                if !found.is_empty() {
                    self.diags.extend(found);
                    return true;
                }
                b.unwrap_or(true)
            }
        }
    }

    fn words(&mut self, v: Option<&Value>, key: &str) -> Vec<String> {
        let Some(v) = v else { return Vec::new() };
        let Some(items) = v.as_array() else {
            self.wrong("a list of strings", key);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) => out.push(s.to_string()),
                None => self.wrong("a string", format!("{key}.{i}")),
            }
        }
        out
    }

    fn keys(&mut self, map: &Map<String, Value>, key: &str) -> KeySpec {
        let mut get = |k: &str| self.text(map.get(k), &format!("{key}.{k}"));
        let mut spec = KeySpec {
            key: get("key"),
            keyid: get("keyid"),
            keyserver: get("keyserver"),
            keyurl: get("keyurl"),
        };
        // cloud-init hands any string to `gpg --recv-keys` (its schema takes any): only what
        // gpg would read as an option, or what cannot be one argument, is refused here.
        if let Some(id) = spec.keyid.as_deref() {
            let k = format!("{key}.keyid");
            let hex = |c: char| c.is_ascii_hexdigit() || c == ' ';
            let id_hex = id
                .strip_prefix("0x")
                .or(id.strip_prefix("0X"))
                .unwrap_or(id);
            if id.trim().is_empty() || id.starts_with('-') || id.chars().any(char::is_control) {
                let msg = "expected a key id or fingerprint; ignored";
                self.diags.push(Diag::error(Reason::BadValue, msg).key(k));
                spec.keyid = None;
            } else if !id_hex.chars().all(hex) {
                let msg = "not a hexadecimal key id or fingerprint: gpg looks it up as written";
                self.diags.push(Diag::warning(Reason::BadValue, msg).key(k));
            }
        }
        if spec.keyserver.as_deref().is_some_and(|s| !plain_word(s)) {
            let msg = "expected a keyserver name or URL; ignored";
            let k = format!("{key}.keyserver");
            self.diags.push(Diag::error(Reason::BadValue, msg).key(k));
            spec.keyserver = None;
        }
        spec
    }

    fn mirrors(&mut self, v: &Value, key: &str) -> Vec<Mirror> {
        let Some(items) = v.as_array() else {
            self.wrong("a list of mirror mappings", key);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let key = format!("{key}.{i}");
            let Some(map) = item.as_object() else {
                self.wrong("a mapping", key);
                continue;
            };
            let search = map
                .get("search")
                .filter(|v| !v.is_null())
                .map(|v| self.words(Some(v), &format!("{key}.search")));
            out.push(Mirror {
                arches: self.words(
                    map.get("arches").filter(|v| !v.is_null()),
                    &format!("{key}.arches"),
                ),
                uri: self.text(map.get("uri"), &format!("{key}.uri")),
                search,
                search_dns: flag(
                    map.get("search_dns"),
                    &format!("{key}.search_dns"),
                    self.diags,
                )
                .unwrap_or(false),
                keys: self.keys(map, &key),
            });
        }
        out
    }

    fn debconf(&mut self, v: Option<&Value>) -> Vec<(String, String)> {
        let key = self.apt.path("debconf_selections");
        let Some(v) = v else { return Vec::new() };
        let Some(map) = v.as_object() else {
            self.wrong("a mapping of selection sets", key);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, text) in map {
            match text.as_str() {
                Some(t) => out.push((name.clone(), t.to_string())),
                None => self.wrong("a string of selections", format!("{key}.{name}")),
            }
        }
        out
    }

    fn sources(&mut self, v: &Value, key: &str) -> Vec<Source> {
        let Some(map) = v.as_object() else {
            self.wrong("a mapping of sources", key);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, entry) in map {
            let path = format!("{key}.{name}");
            let Some(entry) = entry.as_object() else {
                self.wrong("a mapping", path);
                continue;
            };
            let filename = self.text(entry.get("filename"), &format!("{path}.filename"));
            // The list's file name: `filename` (an absolute path allowed, as cloud-init
            // documents), else the entry's key; one name either way (rule 14).
            let (file, at) = match &filename {
                Some(f) => (f.as_str(), format!("{path}.filename")),
                None => (name.as_str(), path.clone()),
            };
            let suffix = if file.ends_with(".list") { "" } else { ".list" };
            if let Err(e) = crate::root::name_or_path(file, suffix) {
                self.diags.push(Diag::from(e).key(at));
                continue;
            }
            let append = flag(entry.get("append"), &format!("{path}.append"), self.diags);
            out.push(Source {
                name: name.clone(),
                source: self.text(entry.get("source"), &format!("{path}.source")),
                filename: filename.unwrap_or_else(|| name.clone()),
                append: append.unwrap_or(true),
                keys: self.keys(entry, &path),
                path,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(d: &[Diag]) -> Vec<(&str, &str)> {
        d.iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect()
    }

    #[test]
    fn defaults() {
        let mut d = Vec::new();
        let s = read(&json!({}), &mut d).unwrap();
        assert!(s.empty && !s.preserve_sources_list && s.sources.is_none());
        assert!(d.is_empty());
        let s = read(&json!({"apt": {"preserve_sources_list": null}}), &mut d).unwrap();
        assert!(!s.empty && s.preserve_sources_list);
    }

    #[test]
    fn every_key() {
        let mut d = Vec::new();
        let cfg = json!({"apt": {
            "preserve_sources_list": "no",
            "disable_suites": ["updates", "$RELEASE"],
            "primary": [{"arches": ["amd64", "default"], "uri": "http://m", "search": ["http://a"],
                         "search_dns": true, "keyid": "ABCD 1234", "keyserver": "hkp://ks"}],
            "security": [{"arches": ["default"], "key": "K"}],
            "debconf_selections": {"b": "pkg q/2 string x", "a": "pkg q/1 boolean true"},
            "sources_list": "deb $MIRROR $RELEASE main\n", "conf": "APT::X \"1\";\n",
            "proxy": "http://p", "https_proxy": "https://q", "ftp_proxy": "",
            "sources": {"r1": {"source": "deb x y z", "append": false, "keyurl": "file:///k"},
                        "r2": {"filename": "other.list", "key": "K"}},
        }});
        let s = read(&cfg, &mut d).unwrap();
        assert!(d.is_empty(), "{d:?}");
        assert!(!s.preserve_sources_list);
        assert_eq!(s.disable_suites, ["updates", "$RELEASE"]);
        let p = &s.primary.as_ref().unwrap()[0];
        assert_eq!(p.arches, ["amd64", "default"]);
        assert!(p.search_dns && p.keys.needs_gpg());
        assert_eq!(p.keys.keyserver.as_deref(), Some("hkp://ks"));
        assert_eq!(
            s.security.as_ref().unwrap()[0].keys.key.as_deref(),
            Some("K")
        );
        assert_eq!(s.debconf[0].0, "a");
        assert_eq!(
            s.proxies,
            [
                ("http", "proxy", "http://p".to_string()),
                ("https", "https_proxy", "https://q".to_string())
            ]
        );
        let src = s.sources.unwrap();
        assert_eq!((src[0].filename.as_str(), src[0].append), ("r1", false));
        assert_eq!(src[0].keys.keyurl.as_deref(), Some("file:///k"));
        assert_eq!(
            (src[1].filename.as_str(), src[1].append),
            ("other.list", true)
        );
    }

    #[test]
    fn wrong_types_name_their_keys() {
        let cases = [
            (
                json!({"apt": {"preserve_sources_list": 3}}),
                "apt.preserve_sources_list",
            ),
            (
                json!({"apt": {"disable_suites": "updates"}}),
                "apt.disable_suites",
            ),
            (
                json!({"apt": {"primary": [{"arches": "amd64"}]}}),
                "apt.primary.0.arches",
            ),
            (json!({"apt": {"security": ["x"]}}), "apt.security.0"),
            (
                json!({"apt": {"debconf_selections": {"s": 1}}}),
                "apt.debconf_selections.s",
            ),
            (
                json!({"apt": {"sources": {"r": {"source": 5}}}}),
                "apt.sources.r.source",
            ),
            (json!({"apt": {"sources": {"r": "deb x"}}}), "apt.sources.r"),
            (
                json!({"apt": {"sources": {"r": {"keyid": "nope!"}}}}),
                "apt.sources.r.keyid",
            ),
            (json!({"apt": {"conf": ["x"]}}), "apt.conf"),
            (json!({"apt_proxy": 5}), "apt_proxy"),
        ];
        for (cfg, key) in cases {
            let mut d = Vec::new();
            read(&cfg, &mut d);
            let errors: Vec<_> = keys(&d)
                .into_iter()
                .filter(|(c, _)| *c != "deprecated")
                .collect();
            assert_eq!(errors.len(), 1, "{cfg}: {d:?}");
            assert_eq!(errors[0].1, key, "{cfg}");
        }
        let mut d = Vec::new();
        read(&json!({"apt": {"add_apt_repo_match": "^ppa:"}}), &mut d);
        assert_eq!(keys(&d), [("unsupported-key", "apt.add_apt_repo_match")]);
    }
}
