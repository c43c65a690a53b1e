//! The keys `package_update_upgrade_install` owns, read once into `Settings`: `packages`
//! (names, `[name, version]` and the `{apt: [...], snap: [...]}` mapping form) and the update,
//! upgrade and reboot flags with their deprecated `apt_*` spellings. The boot and `ember
//! schema` both read them here.

use crate::common::distro::{flag, plain_word};
use crate::error::Diag;
use crate::reason::Reason;
use serde_json::{Map, Value};

/// A package to install, pinned when `version` is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    pub version: Option<String>,
}

/// One item of `packages`, in the list's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A name or `[name, version]`: for whichever package manager the target has.
    Any(Package),
    /// `{apt: [...]}`: for apt-get only; `key` (`packages.N.apt`) names it on other targets.
    Apt { key: String, packages: Vec<Package> },
    /// `{snap: [...]}`: for `snap install`, each as cloud-init splits `name=version` (so the
    /// second word may be an option: `[juju, --edge]`, `[lxd, --channel=5.15/stable]`).
    Snap { key: String, packages: Vec<Package> },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// `package_update` or the deprecated `apt_update` (cloud-init ORs the two).
    pub update: bool,
    /// `package_upgrade` or the deprecated `apt_upgrade`.
    pub upgrade: bool,
    /// `package_reboot_if_required` or the deprecated `apt_reboot_if_required`.
    pub reboot_if_required: bool,
    /// `packages` when given and not null: even empty or unusable, it has the sources
    /// refreshed.
    pub packages: Option<Vec<Entry>>,
}

/// Reads every key the module owns; each problem goes to `diags` with its key path, and a bad
/// package item is left out.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Settings {
    Settings {
        update: either(cfg, "package_update", "apt_update", diags),
        upgrade: either(cfg, "package_upgrade", "apt_upgrade", diags),
        reboot_if_required: either(
            cfg,
            "package_reboot_if_required",
            "apt_reboot_if_required",
            diags,
        ),
        packages: cfg
            .get("packages")
            .filter(|v| !v.is_null())
            .map(|v| entries(v, diags)),
    }
}

/// The warning for packages listed for a manager ember does not drive on this target.
pub fn unsupported(key: &str) -> Diag {
    let msg = "packages for this package manager are not supported here";
    Diag::warning(Reason::PackageManagerUnsupported, msg).key(key)
}

/// `new` or, deprecated, `old`, either one true (cloud-init ORs them).
fn either(cfg: &Value, new: &str, old: &str, diags: &mut Vec<Diag>) -> bool {
    let a = flag(cfg.get(new), new, diags).unwrap_or(false);
    let b = flag(cfg.get(old), old, diags);
    if b.is_some() {
        let msg = format!("use {new}");
        diags.push(Diag::deprecated(Reason::Deprecated, msg).key(old));
    }
    a || b.unwrap_or(false)
}

fn entries(v: &Value, diags: &mut Vec<Diag>) -> Vec<Entry> {
    let Some(items) = v.as_array() else {
        diags.push(Diag::error(Reason::WrongType, "expected a list of packages").key("packages"));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("packages.{i}");
        match item {
            Value::Object(map) => out.extend(by_manager(map, &key, diags)),
            _ => out.extend(package(item, &key, diags).map(Entry::Any)),
        }
    }
    out
}

/// `{apt: [...], snap: [...]}`: the lists of the managers cloud-init knows; another
/// manager's is not supported.
fn by_manager(map: &Map<String, Value>, key: &str, diags: &mut Vec<Diag>) -> Vec<Entry> {
    let mut out = Vec::new();
    for (manager, list) in map {
        let key = format!("{key}.{manager}");
        if manager != "apt" && manager != "snap" {
            diags.push(unsupported(&key));
            continue;
        }
        let Some(list) = list.as_array() else {
            let msg = "expected a list of packages";
            diags.push(Diag::error(Reason::WrongType, msg).key(key));
            continue;
        };
        let items = list.iter().enumerate();
        if manager == "snap" {
            let packages = items
                .filter_map(|(j, p)| snap(p, &format!("{key}.{j}"), diags))
                .collect();
            out.push(Entry::Snap { key, packages });
        } else {
            let packages = items
                .filter_map(|(j, p)| package(p, &format!("{key}.{j}"), diags))
                .collect();
            out.push(Entry::Apt { key, packages });
        }
    }
    out
}

/// A snap as cloud-init's snap manager takes it: `name` or `[name, version]` made
/// `name=version`, then split at the first `=` into `snap install`'s words. The second word
/// may be an option; neither may hold spaces or control characters.
fn snap(v: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<Package> {
    let text = match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(pair) if pair.len() == 2 => match (&pair[0], &pair[1]) {
            (Value::String(n), Value::String(v)) => Some(format!("{n}={v}")),
            (Value::String(n), Value::Number(v)) => Some(format!("{n}={v}")),
            _ => None,
        },
        _ => None,
    };
    let word = |s: &str| !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control());
    let got = text.map(|t| match t.split_once('=') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (t, None),
    });
    match got {
        Some((name, version)) if plain_word(&name) && version.as_deref().is_none_or(word) => {
            Some(Package { name, version })
        }
        _ => {
            let msg = "expected a snap name or [name, version]; item skipped";
            diags.push(Diag::error(Reason::WrongType, msg).key(key));
            None
        }
    }
}

/// A name or `[name, version]`, each one plain word (it goes on a command line); a YAML
/// number as the version is taken as written.
fn package(v: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<Package> {
    let got = match v {
        Value::String(s) => Some((s.clone(), None)),
        Value::Array(pair) if pair.len() == 2 => {
            let version = match &pair[1] {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            pair[0]
                .as_str()
                .zip(version)
                .map(|(n, v)| (n.to_string(), Some(v)))
        }
        _ => None,
    };
    let ok = got
        .as_ref()
        .is_some_and(|(n, v)| plain_word(n) && v.as_deref().is_none_or(plain_word));
    if !ok {
        let msg = "expected a package name or [name, version]; item skipped";
        diags.push(Diag::error(Reason::WrongType, msg).key(key));
        return None;
    }
    got.map(|(name, version)| Package { name, version })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(diags: &[Diag]) -> Vec<(&str, &str)> {
        diags
            .iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect()
    }

    fn pkg(name: &str, version: Option<&str>) -> Package {
        Package {
            name: name.into(),
            version: version.map(str::to_string),
        }
    }

    #[test]
    fn defaults_when_absent() {
        let mut d = Vec::new();
        assert_eq!(read(&json!({}), &mut d), Settings::default());
        assert_eq!(
            read(&json!({"packages": null}), &mut d),
            Settings::default()
        );
        assert!(d.is_empty());
    }

    #[test]
    fn each_key_is_read() {
        let mut d = Vec::new();
        let cfg = json!({"package_update": true, "package_upgrade": "yes",
                         "package_reboot_if_required": true, "packages": []});
        let want = Settings {
            update: true,
            upgrade: true,
            reboot_if_required: true,
            packages: Some(Vec::new()),
        };
        assert_eq!(read(&cfg, &mut d), want);
        assert!(d.is_empty());
        // The deprecated spellings count too, each with its deprecation.
        let cfg = json!({"apt_update": true, "apt_upgrade": true, "apt_reboot_if_required": true});
        let got = read(&cfg, &mut d);
        assert!(got.update && got.upgrade && got.reboot_if_required);
        assert_eq!(
            keys(&d),
            [
                ("deprecated", "apt_update"),
                ("deprecated", "apt_upgrade"),
                ("deprecated", "apt_reboot_if_required")
            ]
        );
    }

    #[test]
    fn packages_in_every_form() {
        let mut d = Vec::new();
        let by_manager = json!({"apt": ["jq", ["git", 2]],
            "snap": ["certbot", ["juju", "--edge"], ["lxd", "--channel=5.15/stable"],
                     "hello=latest/beta", ["x y", "1"], "-o"],
            "yum": ["z"]});
        let cfg = json!({"packages": ["vim", ["curl", "7.88"], ["bad"], 5, "-oops", by_manager]});
        let got = read(&cfg, &mut d).packages.unwrap();
        let apt = Entry::Apt {
            key: "packages.5.apt".into(),
            packages: vec![pkg("jq", None), pkg("git", Some("2"))],
        };
        let snap = Entry::Snap {
            key: "packages.5.snap".into(),
            packages: vec![
                pkg("certbot", None),
                pkg("juju", Some("--edge")),
                pkg("lxd", Some("--channel=5.15/stable")),
                pkg("hello", Some("latest/beta")),
            ],
        };
        let want = [
            Entry::Any(pkg("vim", None)),
            Entry::Any(pkg("curl", Some("7.88"))),
            apt,
            snap,
        ];
        assert_eq!(got, want);
        assert_eq!(
            keys(&d),
            [
                ("wrong-type", "packages.2"),
                ("wrong-type", "packages.3"),
                ("wrong-type", "packages.4"),
                ("wrong-type", "packages.5.snap.4"),
                ("wrong-type", "packages.5.snap.5"),
                ("package-manager-unsupported", "packages.5.yum")
            ]
        );
        assert!(!d[5].is_error());
    }

    #[test]
    fn a_wrong_type_names_its_key() {
        let cases = [
            (json!({"packages": "vim"}), "packages"),
            (
                json!({"packages": ["vim", {"apt": "jq"}]}),
                "packages.1.apt",
            ),
            (json!({"packages": [{"apt": [["jq"]]}]}), "packages.0.apt.0"),
            (json!({"package_update": 3}), "package_update"),
            (json!({"package_upgrade": [true]}), "package_upgrade"),
            (
                json!({"package_reboot_if_required": "maybe"}),
                "package_reboot_if_required",
            ),
        ];
        for (cfg, key) in cases {
            let mut d = Vec::new();
            read(&cfg, &mut d);
            assert_eq!(keys(&d), [("wrong-type", key)], "{cfg}");
        }
    }
}
