//! `wireguard`: WireGuard interfaces as cloud-init's cc_wireguard sets them up, in the config
//! stage: `wireguard-tools` installed when `wg` is missing (and the `wireguard` DKMS package on
//! a kernel older than 5.6), the kernel module loaded unless `lsmod` lists it, then per
//! interface its `content` written to `config_path` (0600: it holds the private key, which is
//! never logged or put on a command line) and `systemctl enable` + `restart wg-quick@NAME`;
//! last, each `readinessprobe` run by the shell. The first failing step ends the module with
//! an error, as cloud-init raises; every probe runs, and the failed ones are named together.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#wireguard>

use super::packages::{Manager, Op};
use super::{Guard, ModCtx, RunnerModule};
use crate::common::distro::{plain_word, which};
use crate::config::reader::Reader;
use crate::config::shape::{list, Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use crate::secret::Secret;
use serde_json::Value;

pub struct Wireguard;

/// cloud-init's: below it the DKMS module is installed too.
const MIN_KERNEL: (u32, u32) = (5, 6);
/// Where each probe is written to run (0700: probes are user-data), removed after.
const PROBE: &str = "/var/lib/ember/wireguard-probe";

const INTERFACE: Shape = Shape::Map(&Fields {
    fields: &[
        ("name", Shape::Str),
        ("config_path", Shape::Str),
        ("content", Shape::Str),
    ],
    required: &[],
    open: false,
});
const WIREGUARD: Shape = Shape::OneOf(&[
    Shape::Null,
    Shape::Map(&Fields {
        fields: &[
            ("interfaces", list(&INTERFACE, 1)),
            ("readinessprobe", list(&Shape::Str, 0)),
        ],
        required: &["interfaces"],
        open: false,
    }),
]);

/// Its key's shape and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[("wireguard", WIREGUARD)],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// One interface; `None` fields are what cloud-init's own check refuses (missing, not text).
pub struct Interface {
    pub key: String,
    pub name: Option<String>,
    pub config_path: Option<String>,
    pub content: Option<Secret<String>>,
}

pub struct Settings {
    pub interfaces: Vec<Interface>,
    pub probes: Vec<String>,
}

fn text(m: &serde_json::Map<String, Value>, k: &str) -> Option<String> {
    m.get(k).and_then(Value::as_str).map(str::to_string)
}

/// Reads `wireguard`; None when it is absent or null (nothing to do). Each problem is an error
/// naming its key: cloud-init's module fails on it. The interface checks themselves happen in
/// order at boot (`check`), as cloud-init checks each before writing it.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let m = match cfg.get("wireguard")? {
        Value::Null => return None,
        Value::Object(m) => m,
        _ => {
            diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("wireguard"));
            return None;
        }
    };
    let Some(Value::Array(items)) = m.get("interfaces") else {
        let msg = "expected a list of interfaces";
        diags.push(Diag::error(Reason::MissingKey, msg).key("wireguard.interfaces"));
        return None;
    };
    let interfaces = items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let key = format!("wireguard.interfaces.{i}");
            let Some(o) = v.as_object() else {
                return Interface {
                    key,
                    name: None,
                    config_path: None,
                    content: None,
                };
            };
            Interface {
                key,
                name: text(o, "name"),
                config_path: text(o, "config_path"),
                content: text(o, "content").map(Secret::new),
            }
        })
        .collect();
    let probes = match m.get("readinessprobe") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(_) => {
            let msg = "expected a list of shell commands";
            diags.push(Diag::error(Reason::WrongType, msg).key("wireguard.readinessprobe"));
            Vec::new()
        }
    };
    Some(Settings { interfaces, probes })
}

/// cloud-init's check of one interface: name, config_path and content present and text. ember
/// also wants the name to be one word (it goes into a unit name) and the path absolute.
fn check(i: &Interface, diags: &mut Vec<Diag>) -> bool {
    let before = diags.len();
    let field = |f: &str| format!("{}.{f}", i.key);
    if i.name.is_none() || i.config_path.is_none() || i.content.is_none() {
        let msg = "an interface needs name, config_path and content, each a string";
        diags.push(Diag::error(Reason::MissingKey, msg).key(i.key.clone()));
    }
    if i.name.as_deref().is_some_and(|n| !plain_word(n)) {
        let msg = "not an interface name (one word, no leading -)";
        diags.push(Diag::error(Reason::BadValue, msg).key(field("name")));
    }
    if i.config_path
        .as_deref()
        .is_some_and(|p| !p.starts_with('/'))
    {
        let msg = "must be an absolute path";
        diags.push(Diag::error(Reason::PathInvalid, msg).key(field("config_path")));
    }
    diags.len() == before
}

/// The running kernel's version: `uname -r` (the runner runs on it, whatever `--target`).
fn kernel_version() -> Option<(u32, u32)> {
    let release = rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned();
    let mut it = release.split(|c: char| !c.is_ascii_digit());
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// cloud-init's `maybe_install_wireguard_packages`: nothing when `wg` is there.
fn install_tools(ctx: &ModCtx, diags: &mut Vec<Diag>) -> bool {
    if which(ctx.root, "wg").is_some() {
        return true;
    }
    let mut pkgs = vec!["wireguard-tools".to_string()];
    if kernel_version().is_some_and(|v| v < MIN_KERNEL) {
        pkgs.push("wireguard".into());
    }
    let Some(manager) = Manager::detect(ctx) else {
        let msg = "wg is missing and the target has no package manager to install wireguard-tools";
        diags.push(Diag::error(Reason::PackageManagerMissing, msg).key("wireguard"));
        return false;
    };
    for (op, list) in [(Op::Update, &[][..]), (Op::Install, &pkgs[..])] {
        let argv = manager.argv(op, list);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let apt: &[(&str, &str)] = &[("DEBIAN_FRONTEND", "noninteractive")];
        let env = if manager == Manager::Apt { apt } else { &[] };
        let outcome = ctx.exec.run(&argv, env);
        if !outcome.ok() {
            let msg = format!("{} {}", argv[0], outcome.describe());
            diags.push(Diag::error(Reason::PackageCommandFailed, msg).key("wireguard"));
            return false;
        }
    }
    true
}

/// cloud-init's `load_wireguard_kernel_module`: `modprobe wireguard` unless `lsmod` names it.
/// The target's own tools, by their paths (a shell may prefer built-in ones to PATH).
fn load_module(ctx: &ModCtx, diags: &mut Vec<Diag>) -> bool {
    let script =
        "out=$(\"$1\") || exit 1; case \"$out\" in *wireguard*) ;; *) \"$2\" wireguard;; esac";
    let lsmod = which(ctx.root, "lsmod").unwrap_or_else(|| "lsmod".into());
    let modprobe = which(ctx.root, "modprobe").unwrap_or_else(|| "modprobe".into());
    let outcome = ctx
        .exec
        .run(&["sh", "-c", script, "sh", &lsmod, &modprobe], &[]);
    if !outcome.ok() {
        let msg = format!(
            "could not load the wireguard module: lsmod or modprobe {}",
            outcome.describe()
        );
        diags.push(Diag::error(Reason::CommandFailed, msg).key("wireguard"));
    }
    outcome.ok()
}

/// Writes one interface's config and enables and (re)starts its wg-quick unit.
fn interface(ctx: &ModCtx, i: &Interface, diags: &mut Vec<Diag>) -> bool {
    let (Some(name), Some(path), Some(content)) = (&i.name, &i.config_path, &i.content) else {
        return false;
    };
    let spec = FileSpec::mode(0o600);
    if let Err(e) = ctx
        .root
        .write_file(path, content.expose().as_bytes(), &spec)
    {
        diags.push(Diag::error(e.code(), e.to_string()).key(format!("{}.config_path", i.key)));
        return false;
    }
    let unit = format!("wg-quick@{name}");
    for verb in ["enable", "restart"] {
        let outcome = ctx.exec.run(&["systemctl", verb, &unit], &[]);
        if !outcome.ok() {
            let msg = format!("systemctl {verb} {unit} {}", outcome.describe());
            diags.push(Diag::error(Reason::CommandFailed, msg).key(i.key.clone()));
            return false;
        }
    }
    true
}

/// Runs every probe with the shell; the failures are one error naming each.
fn probes(ctx: &ModCtx, probes: &[String], diags: &mut Vec<Diag>) {
    let mut failed = Vec::new();
    for (n, probe) in probes.iter().enumerate() {
        let script = format!("#!/bin/sh\n{probe}\n");
        if let Err(e) = ctx
            .root
            .write_file(PROBE, script.as_bytes(), &FileSpec::mode(0o700))
        {
            diags.push(Diag::error(e.code(), e.to_string()).key("wireguard.readinessprobe"));
            return;
        }
        let outcome = ctx.exec.run(&["sh", PROBE], &[]);
        if !outcome.ok() {
            failed.push(format!("{n} {}", outcome.describe()));
        }
    }
    let _ = ctx.root.remove_file(PROBE);
    if !failed.is_empty() {
        let msg = format!("readiness probes failed: {}", failed.join(", "));
        diags.push(Diag::error(Reason::CommandFailed, msg).key("wireguard.readinessprobe"));
    }
}

impl RunnerModule for Wireguard {
    fn name(&self) -> &'static str {
        "wireguard"
    }
    /// It acts on the machine (services, tunnels) and runs user commands.
    fn guard(&self) -> Guard {
        Guard::AtMostOnce
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Some(settings) = read(cfg, diags) else {
            return;
        };
        if diags.iter().any(Diag::is_error) {
            return;
        }
        if !install_tools(ctx, diags) || !load_module(ctx, diags) {
            return;
        }
        for i in &settings.interfaces {
            if !check(i, diags) || !interface(ctx, i, diags) {
                return;
            }
        }
        probes(ctx, &settings.probes, diags);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_interfaces_and_probes() {
        let cfg = json!({"wireguard": {
            "interfaces": [{"name": "wg0", "config_path": "/etc/wireguard/wg0.conf",
                            "content": "[Interface]\nPrivateKey = s3cret\n"}, {"name": "wg1"}],
            "readinessprobe": ["ping -c1 10.0.0.1"],
        }});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        assert!(d.is_empty());
        assert_eq!(s.probes, ["ping -c1 10.0.0.1"]);
        assert!(check(&s.interfaces[0], &mut d));
        assert!(!check(&s.interfaces[1], &mut d));
        assert_eq!(d[0].key.as_deref(), Some("wireguard.interfaces.1"));
        assert!(read(&json!({"wireguard": null}), &mut d).is_none());
        let mut d = Vec::new();
        assert!(read(&json!({"wireguard": {"readinessprobe": []}}), &mut d).is_none());
        assert_eq!(d[0].key.as_deref(), Some("wireguard.interfaces"));
    }

    #[test]
    fn names_and_paths_are_checked() {
        let i = |name: &str, path: &str| Interface {
            key: "wireguard.interfaces.0".into(),
            name: Some(name.into()),
            config_path: Some(path.into()),
            content: Some(Secret::new(String::new())),
        };
        let mut d = Vec::new();
        assert!(!check(&i("-x", "/etc/wg.conf"), &mut d));
        assert!(!check(&i("wg0", "etc/wg.conf"), &mut d));
        assert!(!check(&i("wg 0", "/etc/wg.conf"), &mut d));
        assert_eq!(d.len(), 3);
    }
}
