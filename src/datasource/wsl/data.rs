//! What cloud-init's WSL datasource reads from the Windows user's profile, given the profile
//! as a directory: `.cloud-init/<instance>.meta-data`, the first user-data file by
//! precedence (`<instance>`, `<distro>-<version>`, `<distro>-all`, `default`, names compared
//! without case, as Windows does), and on Ubuntu the Pro agent's `.ubuntupro/.cloud-init/`
//! (`agent.yaml`, and Landscape's `<instance>.user-data`, which replaces the user's).
//! Mappings are merged key by key, the agent's winning; anything else goes on as parts.
//! Not here: finding the profile (mod.rs).

use crate::error::Diag;
use crate::limits::{Limits, Tally, TALLY_BUDGET};
use crate::reason::Reason;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

pub const DEFAULT_INSTANCE_ID: &str = "iid-datasource-wsl";

/// The distribution as os-release names it.
pub struct Distro {
    pub id: String,
    /// VERSION_ID, else VERSION_CODENAME.
    pub version: String,
}

/// One user-data file as read: a mapping, or other content to pass on as it is.
#[derive(Debug, PartialEq)]
pub enum Part {
    Mapping(Map<String, Value>),
    Raw(Vec<u8>),
}

pub struct Found {
    pub meta_data: Value,
    pub user_data: Vec<u8>,
    /// The files used, for the status.
    pub files: Vec<String>,
}

/// One file within `file_bytes` and what is left of the datasource's total, charged to it.
fn read(path: &Path, limits: &Limits, tally: &Tally) -> Result<Option<Vec<u8>>, Diag> {
    let (cap, capped) = tally.cap(limits.file_bytes);
    match std::fs::metadata(path) {
        Err(_) => return Ok(None),
        Ok(m) if m.len() > cap => {
            let d = match capped {
                true => Diag::error(Reason::BudgetExceeded, tally.message()).budget(TALLY_BUDGET),
                false => {
                    let msg = format!("larger than {} bytes", limits.file_bytes);
                    Diag::error(Reason::BudgetExceeded, msg).budget("file_bytes")
                }
            };
            return Err(d.file(path.display().to_string()));
        }
        Ok(_) => {}
    }
    let got = std::fs::read(path).map_err(|e| {
        Diag::error(Reason::ReadFailed, e.to_string()).file(path.display().to_string())
    })?;
    tally.charge(got.len());
    Ok(Some(got))
}

/// A mapping when the file is YAML holding one, else its bytes (cloud-init's
/// `load_yaml_or_bin`).
fn part(bytes: Vec<u8>, limits: &Limits) -> Part {
    let text = std::str::from_utf8(&bytes).ok();
    match text.and_then(|t| crate::yaml::parse(t, limits).ok()) {
        Some(doc) => match doc.value {
            Value::Object(m) => Part::Mapping(m),
            _ => Part::Raw(bytes),
        },
        None => Part::Raw(bytes),
    }
}

/// The entry of `dir` named `name` without regard to case.
fn find_nocase(dir: &Path, name: &str) -> Option<PathBuf> {
    let want = name.to_lowercase();
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .flatten()
        .find(|e| e.file_name().to_string_lossy().to_lowercase() == want)
        .map(|e| e.path())
}

/// The user's folder and the Pro agent's, under the profile.
const SEED_DIR: &str = ".cloud-init";
const PRO_DIR: &str = ".ubuntupro/.cloud-init";

/// The Pro agent's files (Landscape's, then the agent's own), read on Ubuntu only.
fn pro_names(instance: &str) -> [String; 2] {
    [format!("{instance}.user-data"), "agent.yaml".to_string()]
}

/// The user's files by precedence: the first found is the user-data.
fn user_names(instance: &str, distro: &Distro) -> [String; 4] {
    [
        format!("{instance}.user-data"),
        format!("{}-{}.user-data", distro.id, distro.version),
        format!("{}-all.user-data", distro.id),
        "default.user-data".to_string(),
    ]
}

/// The first file that holds data for this instance (ds-identify's test), without reading it.
pub fn applicable(home: &Path, instance: &str, distro: &Distro) -> Option<PathBuf> {
    let pro = home.join(PRO_DIR);
    let agent = pro_names(instance)
        .into_iter()
        .map(|n| pro.join(n))
        .find(|p| distro.id == "ubuntu" && p.is_file());
    let seed = home.join(SEED_DIR);
    agent.or_else(|| {
        user_names(instance, distro)
            .iter()
            .find_map(|n| find_nocase(&seed, n))
            .filter(|p| p.is_file())
    })
}

/// Everything from the profile at `home`; `Ok(None)` when it holds no data for this instance.
pub fn load(
    home: &Path,
    instance: &str,
    distro: &Distro,
    limits: &Limits,
    tally: &Tally,
) -> Result<Option<Found>, Diag> {
    let seed = home.join(SEED_DIR);
    let seed = seed.is_dir().then_some(seed);
    let mut files = Vec::new();
    let meta_data = match &seed {
        None => json!({"instance-id": DEFAULT_INSTANCE_ID}),
        Some(dir) => meta_data(
            &dir.join(format!("{instance}.meta-data")),
            limits,
            tally,
            &mut files,
        )?,
    };
    let (mut agent, mut user) = (None, None);
    let pro = home.join(PRO_DIR);
    if distro.id == "ubuntu" && pro.is_dir() {
        let [landscape, agent_yaml] = pro_names(instance);
        for (name, slot) in [(landscape, &mut user), (agent_yaml, &mut agent)] {
            let path = pro.join(name);
            if let Some(b) = read(&path, limits, tally)? {
                files.push(path.display().to_string());
                *slot = Some(part(b, limits));
            }
        }
    }
    if let (None, Some(dir)) = (&user, &seed) {
        if let Some(path) = user_names(instance, distro)
            .iter()
            .find_map(|n| find_nocase(dir, n))
        {
            if let Some(b) = read(&path, limits, tally)? {
                files.push(path.display().to_string());
                user = Some(part(b, limits));
            }
        }
    }
    let user_data = match (user, agent) {
        (None, None) => return Ok(None),
        (Some(Part::Mapping(u)), Some(Part::Mapping(a))) => cloud_config(merge(u, a)),
        (Some(Part::Mapping(m)), None) | (None, Some(Part::Mapping(m))) => cloud_config(m),
        (u, a) => archive([u, a].into_iter().flatten()),
    };
    Ok(Some(Found {
        meta_data,
        user_data,
        files,
    }))
}

fn meta_data(
    path: &Path,
    limits: &Limits,
    tally: &Tally,
    files: &mut Vec<String>,
) -> Result<Value, Diag> {
    let Some(bytes) = read(path, limits, tally)? else {
        return Ok(json!({"instance-id": DEFAULT_INSTANCE_ID}));
    };
    let shown = path.display().to_string();
    files.push(shown.clone());
    let md = crate::datasource::common::seed::parse_mapping(&bytes, &shown, limits)?;
    if md.get("instance-id").is_none() {
        let d = Diag::error(Reason::MissingKey, "missing").key("instance-id");
        return Err(d.file(shown));
    }
    Ok(md)
}

/// Top-level keys of the agent's config replace the user's (a module is configured by one).
fn merge(mut user: Map<String, Value>, agent: Map<String, Value>) -> Map<String, Value> {
    user.extend(agent);
    user
}

/// A mapping as cloud-config (JSON is YAML, so no YAML writer is needed).
fn cloud_config(m: Map<String, Value>) -> Vec<u8> {
    format!("#cloud-config\n{}\n", Value::Object(m)).into_bytes()
}

/// Several parts in order, as a cloud-config-archive (cloud-init hands them on as a list).
fn archive(parts: impl Iterator<Item = Part>) -> Vec<u8> {
    let items: Vec<Value> = parts
        .map(|p| match p {
            Part::Mapping(m) => json!({"content": String::from_utf8_lossy(&cloud_config(m))}),
            Part::Raw(b) => json!({"content": String::from_utf8_lossy(&b)}),
        })
        .collect();
    format!("#cloud-config-archive\n{}\n", Value::Array(items)).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home(files: &[(&str, &str)]) -> PathBuf {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!("ember-wsl-{}-{n}", std::process::id()));
        for (rel, body) in files {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn ubuntu() -> Distro {
        Distro {
            id: "ubuntu".into(),
            version: "24.04".into(),
        }
    }

    #[test]
    fn precedence_case_and_meta_data() {
        let limits = Limits::default();
        let h = home(&[
            (
                ".cloud-init/Ubuntu-24.04.user-data",
                "#cloud-config\nhostname: by-release\n",
            ),
            (
                ".cloud-init/DEFAULT.user-data",
                "#cloud-config\nhostname: default\n",
            ),
            (".cloud-init/Dev.meta-data", "instance-id: dev-1\n"),
        ]);
        let f = load(&h, "Dev", &ubuntu(), &limits, &Tally::new(u64::MAX))
            .unwrap()
            .unwrap();
        assert_eq!(f.meta_data["instance-id"], "dev-1");
        let ud = String::from_utf8(f.user_data).unwrap();
        assert!(
            ud.starts_with("#cloud-config\n") && ud.contains("by-release"),
            "{ud}"
        );
        // Another instance: no meta-data file, the default id; the generic file.
        let f = load(
            &h,
            "Other",
            &Distro {
                id: "debian".into(),
                version: "12".into(),
            },
            &limits,
            &Tally::new(u64::MAX),
        )
        .unwrap()
        .unwrap();
        assert_eq!(f.meta_data["instance-id"], DEFAULT_INSTANCE_ID);
        assert!(String::from_utf8(f.user_data)
            .unwrap()
            .contains("\"default\""));
        assert!(
            load(&home(&[]), "Dev", &ubuntu(), &limits, &Tally::new(u64::MAX))
                .unwrap()
                .is_none()
        );
        let bad = home(&[(".cloud-init/Dev.meta-data", "local-hostname: x\n")]);
        let err = load(&bad, "Dev", &ubuntu(), &limits, &Tally::new(u64::MAX))
            .err()
            .unwrap();
        assert_eq!(err.key.as_deref(), Some("instance-id"));
    }

    #[test]
    fn pro_agent_overrides_and_raw_parts() {
        let limits = Limits::default();
        let h = home(&[
            (
                ".cloud-init/default.user-data",
                "#cloud-config\nhostname: user\n",
            ),
            (
                ".ubuntupro/.cloud-init/Dev.user-data",
                "#cloud-config\nhostname: landscape\nlocale: C\n",
            ),
            (".ubuntupro/.cloud-init/agent.yaml", "hostname: agent\n"),
        ]);
        let f = load(&h, "Dev", &ubuntu(), &limits, &Tally::new(u64::MAX))
            .unwrap()
            .unwrap();
        let ud = String::from_utf8(f.user_data).unwrap();
        let v: Value = serde_json::from_str(ud.trim_start_matches("#cloud-config\n")).unwrap();
        assert_eq!(v, json!({"hostname": "agent", "locale": "C"}));
        // Not Ubuntu: the Pro files are not read.
        let f = load(
            &h,
            "Dev",
            &Distro {
                id: "arch".into(),
                version: "".into(),
            },
            &limits,
            &Tally::new(u64::MAX),
        )
        .unwrap()
        .unwrap();
        assert!(String::from_utf8(f.user_data).unwrap().contains("\"user\""));
        // A script and a mapping go on as two parts, the user's first.
        let h = home(&[
            (".cloud-init/default.user-data", "#!/bin/sh\necho hi\n"),
            (
                ".ubuntupro/.cloud-init/agent.yaml",
                "ubuntu_pro: {token: t}\n",
            ),
        ]);
        let ud = load(&h, "Dev", &ubuntu(), &limits, &Tally::new(u64::MAX))
            .unwrap()
            .unwrap()
            .user_data;
        let ud = String::from_utf8(ud).unwrap();
        let v: Value =
            serde_json::from_str(ud.trim_start_matches("#cloud-config-archive\n")).unwrap();
        assert_eq!(v[0]["content"], "#!/bin/sh\necho hi\n");
        assert!(v[1]["content"]
            .as_str()
            .unwrap()
            .starts_with("#cloud-config\n"));
    }
}
