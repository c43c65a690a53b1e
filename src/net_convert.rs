//! `ember-initrd net-convert`: the offline tool image builders use to see what ember will
//! render (cloud-init's `devel net-convert`). Reads a network config, renders it for one stack,
//! and writes the files under a directory standing for the target root.
//! Exit codes: 0 written (warnings on stderr), 1 the config or a write failed, 2 usage.

use crate::limits::Limits;
use crate::network::stack::Stack;
use crate::network::{parse_network_data, Parsed};
use crate::network_text;
use crate::root::{FileSpec, Root};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

pub use crate::network::convert::OPTIONS;

const ABOUT: &str = "\
Renders a network config as the boot would, into DIR standing for the target root, and prints
the files written. -D (required by cloud-init's net-convert) is accepted and changes nothing:
ember writes the same files for every distribution. Exit codes: 0 written (warnings on
stderr), 1 the config or a write failed, 2 usage error.";

fn usage() -> String {
    format!("usage: ember-initrd net-convert {OPTIONS}\n\n{ABOUT}")
}

struct Args {
    kind: String,
    stack: Stack,
    dir: PathBuf,
    macs: BTreeMap<String, String>,
    file: PathBuf,
}

/// The arguments, or `None` for `--help`.
fn parse_args(args: &[OsString]) -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args.iter().cloned());
    let (mut kind, mut stack, mut dir, mut file) = (None, None, None, None);
    let mut macs = BTreeMap::new();
    let text = |p: &mut lexopt::Parser| -> Result<String, String> {
        p.value()
            .map_err(|e| e.to_string())?
            .into_string()
            .map_err(|_| "not UTF-8".to_string())
    };
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Short('k') | Long("kind") => kind = Some(text(&mut p)?),
            Short('O') | Long("output-kind") => {
                stack = Some(match text(&mut p)?.as_str() {
                    "networkd" => Stack::Networkd,
                    "netplan" => Stack::Netplan,
                    "eni" => Stack::Eni,
                    "network-manager" | "nm" => Stack::NetworkManager,
                    other => return Err(format!("unknown --output-kind {other:?}")),
                })
            }
            Short('d') | Long("directory") => dir = Some(PathBuf::from(text(&mut p)?)),
            Short('m') | Long("mac") => {
                let v = text(&mut p)?;
                let (name, mac) = v.split_once(',').ok_or("--mac wants NAME,MAC")?;
                macs.insert(mac.to_ascii_lowercase(), name.to_string());
            }
            // `-p` is cloud-init's spelling of the input file.
            Short('p') | Long("network-data") if file.is_none() => {
                file = Some(PathBuf::from(text(&mut p)?))
            }
            Value(v) if file.is_none() => file = Some(PathBuf::from(v)),
            // cloud-init's flags that change nothing here: ember writes the same files for
            // every distribution, and its diagnostics are always on stderr.
            Short('D') | Long("distro") => drop(p.value().map_err(|e| e.to_string())?),
            Long("debug") => {}
            Short('h') | Long("help") => return Ok(None),
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Some(Args {
        kind: kind.ok_or("--kind is required")?,
        stack: stack.ok_or("--output-kind is required")?,
        dir: dir.ok_or("--directory is required")?,
        macs,
        file: file.ok_or("a network config FILE is required")?,
    }))
}

pub fn main(args: &[OsString]) -> i32 {
    let a = match parse_args(args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{}", usage());
            return 0;
        }
        Err(e) => {
            eprintln!("ember-initrd net-convert: {e}\n{}", usage());
            return 2;
        }
    };
    let source = a.file.display().to_string();
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ember: {source}: {e}");
            return 1;
        }
    };
    let limits = Limits::default();
    let parsed: Result<Parsed, _> = match a.kind.as_str() {
        "yaml" | "v1" | "v2" => network_text(&source, &text, &limits),
        "network_data.json" => match serde_json::from_slice(text.as_bytes()) {
            Ok(v) => parse_network_data(&source, &v, &a.macs),
            Err(e) => {
                eprintln!("ember: {source}: line {}: {e}", e.line());
                return 1;
            }
        },
        other => {
            eprintln!(
                "ember-initrd net-convert: unknown --kind {other:?}\n{}",
                usage()
            );
            return 2;
        }
    };
    let parsed = match parsed {
        Ok(p) => p,
        Err(diags) => {
            for d in diags {
                eprintln!("ember: {d}");
            }
            return 1;
        }
    };
    for d in &parsed.warnings {
        eprintln!("ember: warning: {d}");
    }
    if let Err(e) = std::fs::create_dir_all(&a.dir) {
        eprintln!("ember: {}: {e}", a.dir.display());
        return 1;
    }
    let root = match Root::open(&a.dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ember: {e}");
            return 1;
        }
    };
    let out = a.stack.render(&parsed.model);
    for d in &out.warnings {
        eprintln!("ember: warning: {d}");
    }
    let mut rc = 0;
    for f in &out.files {
        match root.write_file(&f.path, f.content.as_bytes(), &FileSpec::mode(f.mode)) {
            Ok(()) => println!("{}", f.path),
            Err(e) => {
                eprintln!("ember: {e}");
                rc = 1;
            }
        }
    }
    rc
}
