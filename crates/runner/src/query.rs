//! `ember query [KEY] [--all] [--list-keys] [--format TEMPLATE] [--instance-data FILE]
//! [--user-data FILE] [--vendor-data FILE]`: cloud-init's `query` over instance-data.json
//! (<https://docs.cloud-init.io/en/latest/explanation/instancedata.html>). Root reads the
//! sensitive copy, others the redacted one. `--format` is a Jinja template, rendered by
//! ember-initrd (the runner carries no Jinja engine; see `render.rs`).

use super::{global_flag, CliError, Ctx};
use crate::paths::RunPaths;
use lexopt::prelude::*;
use serde_json::{Map, Value};
use std::io::ErrorKind;
use std::path::PathBuf;

/// cloud-init's marker for values non-root users may not see.
const REDACTED: &str = "<redacted for non-root user>";

#[derive(Default)]
struct Opts {
    key: Option<String>,
    all: bool,
    list_keys: bool,
    format: Option<String>,
    instance_data: Option<PathBuf>,
    user_data: Option<PathBuf>,
    vendor_data: Option<PathBuf>,
    debug: bool,
}

fn parse(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<Opts, CliError> {
    let mut o = Opts::default();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('a') | Long("all") => o.all = true,
            Short('l') | Long("list-keys") => o.list_keys = true,
            Short('f') | Long("format") => o.format = Some(parser.value()?.string()?),
            Short('i') | Long("instance-data") => o.instance_data = Some(parser.value()?.into()),
            Short('u') | Long("user-data") => o.user_data = Some(parser.value()?.into()),
            Short('v') | Long("vendor-data") => o.vendor_data = Some(parser.value()?.into()),
            Short('d') | Long("debug") => o.debug = true,
            Value(v) if o.key.is_none() => o.key = Some(v.string()?),
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    Ok(o)
}

/// The files to try, best first: cloud-init's copies, then ember's own; the sensitive ones
/// only for root, as cloud-init does.
pub(super) fn candidates(ctx: &Ctx, root: bool) -> Vec<PathBuf> {
    let p = ctx.run_paths();
    let mut v = Vec::new();
    if root {
        v.extend([p.ci_instance_data_sensitive(), p.instance_data_sensitive()]);
    }
    v.extend([p.ci_instance_data(), p.instance_data()]);
    v
}

pub(super) fn load(files: &[PathBuf]) -> Result<Value, CliError> {
    let mut denied = None;
    for path in files {
        match crate::regular::read(path.as_ref(), crate::regular::STATE_MAX) {
            Ok(bytes) => {
                return serde_json::from_slice(&bytes).map_err(|e| CliError::file(path, e))
            }
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                denied.get_or_insert(path.clone());
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(CliError::file(path, e)),
        }
    }
    Err(match denied {
        Some(path) => CliError::file(&path, "no read permission; try sudo"),
        None => {
            let tried: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            CliError::Failed(format!("missing instance-data file: {}", tried.join(", ")))
        }
    })
}

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let o = parse(ctx, parser)?;
    if o.key.is_none() && !o.all && !o.list_keys && o.format.is_none() {
        // cloud-init exits 1 here, not argparse's 2: the command line parsed, it asked nothing.
        return Err(CliError::Failed(
            "expected one of the options: --all, --format, --list-keys or a key".into(),
        ));
    }
    let root = rustix::process::geteuid().is_root();
    let files = match &o.instance_data {
        Some(path) => vec![path.clone()],
        None => candidates(ctx, root),
    };
    let mut data = load(&files)?;
    if let Value::Object(m) = &mut data {
        for (key, value) in private_keys(ctx, root, &o) {
            m.insert(key.into(), value);
        }
    }
    if let Some(template) = &o.format {
        return super::render::format(ctx, template, &data, o.debug);
    }
    let data = with_top_level_aliases(data);
    let value = match &o.key {
        Some(key) => lookup(&data, key).map_err(CliError::Failed)?,
        None => &data,
    };
    if o.list_keys {
        let Value::Object(m) = value else {
            let key = o.key.as_deref().unwrap_or("");
            return Err(CliError::Failed(format!(
                "--list-keys provided but '{key}' is not a dict"
            )));
        };
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        println!("{}", keys.join("\n"));
        return Ok(0);
    }
    println!("{}", show(value));
    Ok(0)
}

/// cloud-init copies the keys of `v1` (any `v<N>`) to the top level: `instance_id` is
/// `v1.instance_id`.
fn with_top_level_aliases(data: Value) -> Value {
    let Value::Object(top) = data else {
        return data;
    };
    let mut out = top.clone();
    for (k, v) in &top {
        let versioned =
            k.len() > 1 && k.starts_with('v') && k[1..].bytes().all(|b| b.is_ascii_digit());
        if let (true, Value::Object(inner)) = (versioned, v) {
            out.extend(inner.iter().map(|(ik, iv)| (ik.clone(), iv.clone())));
        }
    }
    Value::Object(out)
}

/// Walks a dotted key. A part matches a key exactly or by its alias with `-` and `.` made
/// `_` (`local_hostname` finds `local-hostname`); on a list a part is an index (an ember
/// extension: cloud-init's walk stops at lists).
pub fn lookup<'a>(data: &'a Value, dotted: &str) -> Result<&'a Value, String> {
    let mut cur = data;
    let mut walked = String::new();
    for part in dotted.split('.') {
        let next = match cur {
            Value::Object(m) => m.get(part).or_else(|| by_alias(m, part)),
            Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        };
        cur = next.ok_or_else(|| {
            if walked.is_empty() {
                format!("Undefined instance-data key '{dotted}'")
            } else {
                format!("instance-data '{walked}' has no '{part}'")
            }
        })?;
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
    }
    Ok(cur)
}

fn by_alias<'a>(m: &'a Map<String, Value>, part: &str) -> Option<&'a Value> {
    m.iter()
        .find(|(k, _)| k.replace(['-', '.'], "_") == part)
        .map(|(_, v)| v)
}

/// Strings as they are; everything else as cloud-init's `json_dumps` (indent 1, sorted keys).
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        _ => {
            let mut buf = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
            let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
            serde::Serialize::serialize(v, &mut ser).expect("a Value always serializes");
            String::from_utf8_lossy(&buf).into_owned()
        }
    }
}

/// The cloud dir's `instance` inside `target`: the link is absolute, so it is read and
/// re-rooted rather than followed (which would leave a target other than `/`).
fn instance_dir(target: &std::path::Path) -> PathBuf {
    let link = crate::paths::system().cloud("instance");
    let link = target.join(link.trim_start_matches('/'));
    match std::fs::read_link(&link) {
        Ok(dest) if dest.is_absolute() => target.join(dest.strip_prefix("/").unwrap_or(&dest)),
        Ok(dest) => link.parent().map_or(dest.clone(), |p| p.join(&dest)),
        Err(_) => link,
    }
}

/// The keys cloud-init adds for `query`: user-data and vendor-data as text and the combined
/// config, read from the instance (or `--user-data`/`--vendor-data`) for root, redacted for
/// everyone else. Absent files give null.
fn private_keys(ctx: &Ctx, root: bool, o: &Opts) -> Vec<(&'static str, Value)> {
    let instance = instance_dir(&ctx.target);
    let given = |path: &Option<PathBuf>, name: &str| path.clone().unwrap_or(instance.join(name));
    let keys = [
        ("userdata", given(&o.user_data, "user-data.txt")),
        ("vendordata", given(&o.vendor_data, "vendor-data.txt")),
        (
            "combined_cloud_config",
            ctx.run_paths().at(RunPaths::CI_COMBINED_CLOUD_CONFIG),
        ),
    ];
    keys.into_iter()
        .map(|(key, path)| {
            if !root {
                return (key, Value::from(REDACTED));
            }
            let Ok(raw) = crate::regular::read(&path, crate::regular::STATE_MAX) else {
                return (key, Value::Null);
            };
            let value = match key {
                "combined_cloud_config" => serde_json::from_slice(&raw).unwrap_or(Value::Null),
                _ => Value::String(String::from_utf8_lossy(&raw).into_owned()),
            };
            (key, value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn data() -> Value {
        with_top_level_aliases(json!({
            "v1": {"instance_id": "iid-1", "local_hostname": "host"},
            "ds": {"meta_data": {"local-hostname": "host", "tags": ["a", "b"]}},
            "merged_cfg": {"users": [{"name": "ubuntu"}]},
        }))
    }

    #[test]
    fn walks_dotted_keys() {
        let d = data();
        let cases = [
            ("v1.instance_id", Ok(json!("iid-1"))),
            ("instance_id", Ok(json!("iid-1"))),
            ("ds.meta_data.local-hostname", Ok(json!("host"))),
            ("ds.meta_data.local_hostname", Ok(json!("host"))),
            ("merged_cfg.users.0.name", Ok(json!("ubuntu"))),
            ("ds.meta_data.tags.1", Ok(json!("b"))),
            ("nope", Err("Undefined instance-data key 'nope'")),
            (
                "ds.meta_data.nope",
                Err("instance-data 'ds.meta_data' has no 'nope'"),
            ),
            (
                "ds.meta_data.tags.9",
                Err("instance-data 'ds.meta_data.tags' has no '9'"),
            ),
            (
                "v1.instance_id.x",
                Err("instance-data 'v1.instance_id' has no 'x'"),
            ),
        ];
        for (key, want) in cases {
            let got = lookup(&d, key).cloned();
            assert_eq!(got, want.map_err(String::from), "key {key}");
        }
    }

    #[test]
    fn shows_like_cloud_init() {
        assert_eq!(show(&json!("plain")), "plain");
        assert_eq!(show(&json!(3)), "3");
        assert_eq!(
            show(&json!({"b": [1], "a": null})),
            "{\n \"a\": null,\n \"b\": [\n  1\n ]\n}"
        );
    }
}
