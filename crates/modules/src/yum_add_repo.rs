//! `yum_add_repo`: one `<yum_repo_dir>/<id>.repo` per entry of `yum_repos`, as cloud-init
//! writes it: a `# Created by cloud-init on <date>` line, then an INI section named after the
//! id (spaces made `-`), its keys lower-cased with `-` made `_`, booleans `1`/`0`, lists one
//! value per continuation line. A repository needs `baseurl`, `metalink` or `mirrorlist`
//! (else a warning, and it is skipped); an existing file is never replaced. Keys are written
//! in sorted order (ember's config keeps mappings sorted), not the order given.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#yum-add-repo>

use super::{ModCtx, RunnerModule};
use crate::common::pyvalue::py_str;
use crate::conf_lang::ini;
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::{Map, Value};

pub struct YumAddRepo;

/// cloud-init's default `yum_repo_dir`.
const DEFAULT_DIR: &str = "/etc/yum.repos.d/";
/// A repository is usable with any one of these.
const REQUIRED: [&str; 3] = ["baseurl", "metalink", "mirrorlist"];

/// One repository file to write.
#[derive(Debug, PartialEq, Eq)]
pub struct Repo {
    /// The section name and file name: the id with spaces made `-`.
    pub id: String,
    /// Its options, normalised and formatted as they are written (`conf_lang::ini`).
    pub options: Vec<(String, String)>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    pub dir: String,
    pub repos: Vec<Repo>,
}

/// `yum_repos` and `yum_repo_dir`: None when there is nothing to write (no repositories, or
/// a value cloud-init fails on, with its diagnostic).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let repos = cfg
        .get("yum_repos")
        .filter(|v| crate::common::pyvalue::truthy(v))?;
    let Some(repos) = repos.as_object() else {
        let msg = "expected a mapping of repository ids";
        diags.push(Diag::error(Reason::WrongType, msg).key("yum_repos"));
        return None;
    };
    let dir = match cfg.get("yum_repo_dir") {
        None => DEFAULT_DIR.to_string(),
        Some(v) => py_str(v),
    };
    if !dir.starts_with('/') || dir.chars().any(char::is_control) {
        let msg = "must be an absolute directory";
        diags.push(Diag::error(Reason::PathInvalid, msg).key("yum_repo_dir"));
        return None;
    }
    let mut out: Vec<Repo> = Vec::new();
    for (name, repo) in repos {
        let key = format!("yum_repos.{name}");
        let id = name.replace(' ', "-");
        if let Err(e) = crate::root::one_name(&id, ".repo") {
            diags.push(Diag::from(e).key(key));
            continue;
        }
        if !usable_section(&id) {
            let msg = "not usable as a section name (a ]); repository skipped";
            diags.push(Diag::error(Reason::BadValue, msg).key(key));
            continue;
        }
        if out.iter().any(|r| r.id == id) {
            // cloud-init: "already pending", kept quiet.
            continue;
        }
        if let Some(options) = options(repo, &key, diags) {
            out.push(Repo { id, options });
        }
    }
    Some(Settings { dir, repos: out })
}

/// A section name: no `]` (it would end the section's header); being a file name too, it
/// must also pass the one name check (`crate::root::one_name`).
fn usable_section(id: &str) -> bool {
    !id.contains(']')
}

/// A repository's options, or None when it is skipped (the diagnostic says why).
fn options(repo: &Value, key: &str, diags: &mut Vec<Diag>) -> Option<Vec<(String, String)>> {
    let empty = Map::new();
    let map = match repo {
        v if !crate::common::pyvalue::truthy(v) => &empty,
        Value::Object(m) => m,
        _ => {
            let msg = "expected a mapping of repository options; repository skipped";
            diags.push(Diag::error(Reason::WrongType, msg).key(key));
            return None;
        }
    };
    let mut opts: Vec<(String, String)> = Vec::new();
    for (k, v) in map {
        let name = k.trim().to_lowercase().replace('-', "_");
        if name.is_empty() {
            continue;
        }
        let sub = format!("{key}.{k}");
        if let Err(why) = ini::name(&name) {
            let msg = format!("{why}; repository skipped");
            diags.push(Diag::error(Reason::BadValue, msg).key(sub));
            return None;
        }
        let value = match ini::lines(&format_value(v)) {
            Ok(value) => value,
            Err(why) => {
                let msg = format!("{why}; repository skipped");
                diags.push(Diag::error(Reason::BadValue, msg).key(sub));
                return None;
            }
        };
        if !interpolation_ok(&value) {
            // Python's ConfigParser refuses it (and cloud-init fails there).
            let msg = "a % must be written %% or %(name)s; repository skipped";
            diags.push(Diag::error(Reason::BadValue, msg).key(sub));
            return None;
        }
        // As a Python dict: a later spelling of a key replaces the value, in place.
        match opts.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => opts.push((name, value)),
        }
    }
    if !opts.iter().any(|(n, _)| REQUIRED.contains(&n.as_str())) {
        let msg = "needs baseurl, metalink or mirrorlist; repository skipped";
        diags.push(Diag::warning(Reason::MissingKey, msg).key(key));
        return None;
    }
    Some(opts)
}

/// cloud-init's `_format_repo_value`: booleans `1`/`0`, a list one item per line, anything
/// else as Python's `str()`; the lines of the value.
fn format_value(v: &Value) -> Vec<String> {
    match v {
        Value::Bool(b) => vec![u8::from(*b).to_string()],
        Value::Array(items) => items.iter().flat_map(format_value).collect(),
        other => vec![py_str(other)],
    }
}

/// Python ConfigParser's check on a value it sets: `%` only as `%%` or `%(name)s`.
fn interpolation_ok(value: &str) -> bool {
    let mut rest = value;
    while let Some(i) = rest.find('%') {
        let after = &rest[i + 1..];
        if let Some(next) = after.strip_prefix('%') {
            rest = next;
        } else if let Some(inner) = after.strip_prefix('(') {
            match inner.find(')') {
                Some(end) if end > 0 && inner[end + 1..].starts_with('s') => {
                    rest = &inner[end + 2..];
                }
                _ => return false,
            }
        } else {
            return false;
        }
    }
    true
}

/// The file as Python's ConfigParser writes one section, under cloud-init's header line.
pub fn render(repo: &Repo, date: &str) -> String {
    let mut out = format!("# Created by cloud-init on {date}\n[{}]\n", repo.id);
    for (k, v) in &repo.options {
        out.push_str(&format!("{k} = {v}\n"));
    }
    out.push('\n');
    out
}

const REPO_FIELDS: Fields = Fields {
    fields: &[
        ("baseurl", Shape::Str),
        ("metalink", Shape::Str),
        ("mirrorlist", Shape::Str),
        ("name", Shape::Str),
        ("enabled", Shape::Bool),
    ],
    required: &[],
    open: true,
};

/// cloud-init's schema: repository ids of letters, digits and the characters from space to
/// `_` (its pattern `^[0-9a-zA-Z -_]+$`).
fn repo_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || (' '..='_').contains(&c))
}

const SHAPES: &[(&str, Shape)] = &[
    ("yum_repo_dir", Shape::Str),
    (
        "yum_repos",
        Shape::NamedKeys(
            repo_name,
            "a repository id of letters, digits, spaces and - . _",
            &Shape::Map(&REPO_FIELDS),
        ),
    ),
];

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for YumAddRepo {
    fn name(&self) -> &'static str {
        "yum_add_repo"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        let date = crate::date::format_utc(crate::clock::wall_seconds());
        for repo in &settings.repos {
            let path = format!("{}/{}.repo", settings.dir.trim_end_matches('/'), repo.id);
            if ctx.root.exists(&path) {
                ctx.exec.say(&format!(
                    "yum_add_repo: skipping repo {}, file {path} already exists",
                    repo.id
                ));
                continue;
            }
            let text = render(repo, &date);
            if let Err(e) = ctx
                .root
                .write_file(&path, text.as_bytes(), &FileSpec::mode(0o644))
            {
                let key = format!("yum_repos.{}", repo.id);
                diags.push(Diag::error(e.code(), e.to_string()).key(key));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(d: &[Diag]) -> Vec<(&str, &str)> {
        d.iter()
            .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
            .collect()
    }

    #[test]
    fn writes_as_configparser_does() {
        let cfg = json!({"yum_repos": {"my repo": {
            "baseurl": ["http://a/$basearch", "http://b/"], "Enabled": false,
            "gpg-check": true, "priority": 5, "skip_if_unavailable": "True"}}});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s.dir, "/etc/yum.repos.d/");
        let text = render(&s.repos[0], "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(
            text,
            "# Created by cloud-init on Thu, 01 Jan 1970 00:00:00 +0000\n[my-repo]\n\
             enabled = 0\nbaseurl = http://a/$basearch\n\thttp://b/\ngpg_check = 1\n\
             priority = 5\nskip_if_unavailable = True\n\n"
        );
    }

    #[test]
    fn skips_what_cloud_init_skips() {
        let cfg = json!({"yum_repos": {
            "none": {"name": "x"}, "meta": {"metalink": "http://m"},
            "mirror": {"MirrorList": "http://l"}, "empty": null,
            "../up": {"baseurl": "http://x"}, "pct": {"baseurl": "http://x/%zz"},
            "ok%": {"baseurl": "http://x/%%20%(a)s"}, "list": "text"}});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        let ids: Vec<&str> = s.repos.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["meta", "mirror", "ok%"]);
        assert_eq!(
            codes(&d),
            [
                ("bad-value", "yum_repos.../up"),
                ("missing-key", "yum_repos.empty"),
                ("wrong-type", "yum_repos.list"),
                ("missing-key", "yum_repos.none"),
                ("bad-value", "yum_repos.pct.baseurl"),
            ]
        );
        assert!(!d[1].is_error() && d[2].is_error());
        // Nothing to do, or a wrong type cloud-init fails on.
        assert_eq!(read(&json!({"yum_repos": {}}), &mut d), None);
        let mut d = Vec::new();
        assert_eq!(read(&json!({"yum_repos": ["x"]}), &mut d), None);
        let rel = json!({"yum_repos": {"a": {"baseurl": "u"}}, "yum_repo_dir": "rel"});
        assert_eq!(read(&rel, &mut d), None);
        assert_eq!(
            codes(&d),
            [
                ("wrong-type", "yum_repos"),
                ("path-invalid", "yum_repo_dir")
            ]
        );
    }

    #[test]
    fn interpolation_rules() {
        for ok in ["", "a", "%%", "a%%b%(x)s", "100%%"] {
            assert!(interpolation_ok(ok), "{ok}");
        }
        for bad in ["%", "a%b", "%(x)", "%()s", "%(x"] {
            assert!(!interpolation_ok(bad), "{bad}");
        }
        assert!(repo_name("my repo-1.x_y") && !repo_name("a{b") && !repo_name(""));
    }
}
