//! `seed_random` (cc_seed_random) in the local stage, first of cloud-init's init modules and so
//! before any host key is made: `random_seed.data` (decoded as `encoding` says) and then the
//! meta-data's own `random_seed` are appended to `random_seed.file`. `/dev/urandom` (the
//! default) and `/dev/random` are the running kernel's pool, the initramfs's own devices, which
//! the booted system shares; any other file is in the target. `command` (pollinate, say) needs
//! the booted system and usually its network: it is left in [`COMMAND_FILE`] for the runner's
//! config stage (`runner::early::seed_random_command`), which runs it with `RANDOM_SEED_FILE`.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#seed-random>

use super::write_files::decode::{decode, Encoding};
use super::{Module, ModuleCtx};
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write;

pub struct SeedRandom;

/// cloud-init's default `file`.
pub const DEFAULT_FILE: &str = "/dev/urandom";
/// The command left for the runner (0600: it is user-data).
pub const COMMAND_FILE: &str = "/var/lib/ember/seed-random-command.json";

/// What the runner needs to run `random_seed.command` as cloud-init does.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingCommand {
    pub command: Vec<String>,
    pub required: bool,
    /// `random_seed.file`: the command's `RANDOM_SEED_FILE`.
    pub file: String,
}

/// `random_seed` read as cc_seed_random reads it.
#[derive(Debug, Default, PartialEq)]
pub struct Settings {
    pub file: String,
    /// `data`, decoded; empty when absent or unusable.
    pub data: Vec<u8>,
    pub command: Option<Vec<String>>,
    pub command_required: bool,
}

const ENCODINGS: &[Lit] = &[
    Lit::S("raw"),
    Lit::S("base64"),
    Lit::S("b64"),
    Lit::S("gzip"),
    Lit::S("gz"),
];

const RANDOM_SEED: Shape = Shape::Map(&Fields {
    fields: &[
        ("file", Shape::Str),
        ("data", Shape::Str),
        ("encoding", Shape::Lit(ENCODINGS)),
        ("command", list(&Shape::Str, 0)),
        ("command_required", Shape::Bool),
    ],
    required: &[],
    open: false,
});

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("random_seed", RANDOM_SEED)],
    read: |cfg, d| {
        read(cfg, u64::MAX, d);
    },
};

fn wrong(key: &str, what: &str) -> Diag {
    Diag::error(Reason::WrongType, format!("expected {what}")).key(key)
}

/// `data` decoded as `encoding` names it (raw, base64/b64, gzip/gz, any case), inflating at
/// most `cap` bytes. cloud-init looks at `encoding` only when there is data.
fn data(m: &Map<String, Value>, cap: u64, diags: &mut Vec<Diag>) -> Vec<u8> {
    let text = match m.get("data") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::String(s)) if s.is_empty() => return Vec::new(),
        Some(Value::String(s)) => s,
        Some(_) => {
            diags.push(wrong("random_seed.data", "a string"));
            return Vec::new();
        }
    };
    let encoding = match m.get("encoding") {
        None | Some(Value::Null) => Encoding::Plain,
        Some(Value::String(e)) => match e.to_ascii_lowercase().as_str() {
            "" | "raw" => Encoding::Plain,
            "base64" | "b64" => Encoding::Base64,
            "gzip" | "gz" => Encoding::Gzip,
            _ => {
                let msg = "not raw, base64, b64, gzip or gz: no data written";
                diags.push(Diag::error(Reason::EncodingUnknown, msg).key("random_seed.encoding"));
                return Vec::new();
            }
        },
        Some(_) => {
            diags.push(wrong("random_seed.encoding", "a string"));
            return Vec::new();
        }
    };
    match decode(text, encoding, cap, &mut 0) {
        Ok(bytes) => bytes.into_owned(),
        Err(e) => {
            // The message names what was wrong, never the data.
            diags.push(Diag::error(e.code(), e.message()).key("random_seed.data"));
            Vec::new()
        }
    }
}

/// Reads `random_seed`; absent, it is cloud-init's defaults (the meta-data's seed still goes to
/// /dev/urandom). Problems are errors naming the key, as cloud-init's module fails on them.
pub fn read(cfg: &Value, cap: u64, diags: &mut Vec<Diag>) -> Settings {
    let mut s = Settings {
        file: DEFAULT_FILE.into(),
        ..Settings::default()
    };
    let m = match cfg.get("random_seed") {
        None | Some(Value::Null) => return s,
        Some(Value::Object(m)) => m,
        Some(_) => {
            diags.push(wrong("random_seed", "a mapping"));
            return s;
        }
    };
    match m.get("file") {
        None | Some(Value::Null) => {}
        Some(Value::String(f)) if f.starts_with('/') => s.file = f.clone(),
        Some(Value::String(_)) => {
            let msg = "must be an absolute path";
            diags.push(Diag::error(Reason::PathInvalid, msg).key("random_seed.file"));
        }
        Some(_) => diags.push(wrong("random_seed.file", "a path")),
    }
    s.data = data(m, cap, diags);
    s.command = match m.get("command") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        ),
        Some(_) => {
            diags.push(wrong("random_seed.command", "a list of strings"));
            None
        }
    }
    .filter(|c: &Vec<String>| !c.is_empty());
    // Python's truth, as cloud-init tests it: a boolean, or a non-empty value.
    s.command_required = match m.get("command_required") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(t)) => !t.is_empty(),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(_) => {
            diags.push(wrong("random_seed.command_required", "true or false"));
            false
        }
    };
    s
}

/// Appends `seed` to the running kernel's pool device `name` (`urandom` or `random`): the
/// initramfs's own, which the booted system shares. Writing mixes it in (no credit).
fn feed_pool(ctx: &ModuleCtx, name: &str, seed: &[u8]) -> Result<(), String> {
    let path = ctx.host.dev(name);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(|e| format!("/dev/{name}: {e}"))?;
    f.write_all(seed).map_err(|e| format!("/dev/{name}: {e}"))
}

impl Module for SeedRandom {
    fn name(&self) -> &'static str {
        "seed_random"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }

    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let s = read(ctx.cfg, ctx.limits.inflated_bytes, diags);
        let mut seed = s.data.clone();
        // The datasource's own seed (Azure's, OpenStack's), as text, after the config's.
        match ctx.instance.meta_data.get("random_seed") {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) => seed.extend_from_slice(t.as_bytes()),
            Some(_) => diags.push(
                Diag::warning(
                    Reason::WrongType,
                    "the meta-data's seed is not text: not used",
                )
                .key("random_seed")
                .file("meta-data"),
            ),
        }
        if !seed.is_empty() {
            let done = match s.file.as_str() {
                "/dev/urandom" => feed_pool(ctx, "urandom", &seed),
                "/dev/random" => feed_pool(ctx, "random", &seed),
                // Entropy meant for this instance alone: 0600, like any secret.
                file => ctx
                    .root
                    .append_file(file, &seed, &FileSpec::mode(0o600))
                    .map_err(|e| e.to_string()),
            };
            if let Err(why) = done {
                diags.push(Diag::error(Reason::WriteFailed, why).key("random_seed.file"));
            }
        }
        pending_command(ctx, &s, diags);
    }
}

/// Leaves `command` for the runner, or removes what an earlier instance left. A command that
/// is required but not given fails the module here, as in cloud-init.
fn pending_command(ctx: &ModuleCtx, s: &Settings, diags: &mut Vec<Diag>) {
    let Some(command) = &s.command else {
        if s.command_required {
            let msg = "command_required is true but no command is given";
            diags.push(Diag::error(Reason::MissingKey, msg).key("random_seed.command"));
        }
        if let Err(e) = ctx.root.remove_file(COMMAND_FILE) {
            diags.push(Diag::error(e.code(), e.to_string()));
        }
        return;
    };
    let pending = PendingCommand {
        command: command.clone(),
        required: s.command_required,
        file: s.file.clone(),
    };
    let json = serde_json::to_vec(&pending).unwrap_or_default();
    if let Err(e) = ctx
        .root
        .write_file(COMMAND_FILE, &json, &FileSpec::mode(0o600))
    {
        diags.push(Diag::error(e.code(), e.to_string()).key("random_seed.command"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use serde_json::json;

    fn read_one(v: Value) -> (Settings, Vec<(String, String)>) {
        let mut d = Vec::new();
        let s = read(&json!({ "random_seed": v }), 1 << 20, &mut d);
        let said = d
            .iter()
            .map(|d| {
                (
                    d.code.as_str().to_string(),
                    d.key.clone().unwrap_or_default(),
                )
            })
            .collect();
        (s, said)
    }

    fn gz(data: &[u8]) -> Vec<u8> {
        use flate2::{write::GzEncoder, Compression};
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Each of cloud-init's encodings, any case; gzip also as base64 text.
    #[test]
    fn data_is_decoded_as_each_encoding_says() {
        let b64 = |d: &[u8]| base64::engine::general_purpose::STANDARD.encode(d);
        let gzipped = b64(&gz(b"entropy from gzip"));
        let cases = [
            (json!({"data": "plain text"}), b"plain text".to_vec()),
            (
                json!({"data": "plain", "encoding": "RAW"}),
                b"plain".to_vec(),
            ),
            (
                json!({"data": b64(b"\x00\xffbin"), "encoding": "b64"}),
                b"\x00\xffbin".to_vec(),
            ),
            (
                json!({"data": b64(b"x"), "encoding": "Base64"}),
                b"x".to_vec(),
            ),
            (
                json!({"data": gzipped, "encoding": "gz"}),
                b"entropy from gzip".to_vec(),
            ),
            (
                json!({"data": gzipped, "encoding": "gzip"}),
                b"entropy from gzip".to_vec(),
            ),
            (json!({"data": ""}), Vec::new()),
            // The encoding is not looked at without data, as cloud-init.
            (json!({"encoding": "rot13"}), Vec::new()),
        ];
        for (cfg, want) in cases {
            let (s, said) = read_one(cfg.clone());
            assert_eq!(s.data, want, "{cfg}");
            assert!(said.is_empty(), "{cfg}: {said:?}");
        }
    }

    #[test]
    fn bad_data_names_its_key_never_the_value() {
        let cases = [
            (
                json!({"data": "s3cret", "encoding": "rot13"}),
                "encoding-unknown",
                "random_seed.encoding",
            ),
            (
                json!({"data": "!!!s3cret", "encoding": "base64"}),
                "base64-invalid",
                "random_seed.data",
            ),
            (
                json!({"data": "s3cret", "encoding": "gzip"}),
                "gzip-corrupt",
                "random_seed.data",
            ),
            (json!({"data": 5}), "wrong-type", "random_seed.data"),
            (
                json!({"file": "relative"}),
                "path-invalid",
                "random_seed.file",
            ),
            (
                json!({"command": "pollinate"}),
                "wrong-type",
                "random_seed.command",
            ),
        ];
        for (cfg, code, key) in cases {
            let mut d = Vec::new();
            let s = read(&json!({ "random_seed": cfg }), 1 << 20, &mut d);
            assert!(s.data.is_empty(), "{cfg}");
            assert_eq!(d.len(), 1, "{cfg}: {d:?}");
            assert_eq!((d[0].code.as_str(), d[0].key.as_deref()), (code, Some(key)));
            assert!(d[0].is_error() && !d[0].message.contains("s3cret"), "{cfg}");
        }
    }

    #[test]
    fn defaults_and_the_command() {
        let (s, said) = read_one(Value::Null);
        assert_eq!(s.file, "/dev/urandom");
        assert!(s.data.is_empty() && s.command.is_none() && !s.command_required);
        assert!(said.is_empty());
        let (s, _) = read_one(json!({
            "file": "/var/lib/seed", "command": ["pollinate", "-q"], "command_required": true
        }));
        assert_eq!(s.file, "/var/lib/seed");
        assert_eq!(
            s.command.as_deref(),
            Some(&["pollinate".to_string(), "-q".to_string()][..])
        );
        assert!(s.command_required);
        // An empty command is no command.
        assert_eq!(read_one(json!({"command": []})).0.command, None);
    }

    #[test]
    fn inflation_is_capped() {
        let b64 = base64::engine::general_purpose::STANDARD.encode(gz(&[0u8; 4096]));
        let mut d = Vec::new();
        let cfg = json!({"random_seed": {"data": b64, "encoding": "gz"}});
        assert!(read(&cfg, 100, &mut d).data.is_empty());
        assert_eq!(d[0].code.as_str(), "budget-exceeded");
    }
}
