//! `ember-initrd schema (--config-file F | --system) [--annotate] [--target DIR]`, which the
//! runner's `ember schema` and `cloud-init schema` hand over to. Prints `Valid schema F`, or
//! `Error: Invalid schema: F` and one `key.path: line N: message` line per problem; exits 0
//! when every document is valid, 1 when one is not (or cannot be read), 2 on a bad command line.

use super::system::{documents, Found};
use super::{annotate, check, Report};
use crate::error::Severity;
use crate::limits::Limits;
use crate::redact::printable;
use std::ffi::OsString;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: ember schema (-c FILE | --config-file FILE | --system) [--annotate] [--target DIR]

Validates cloud-config against ember's model (the keys of the modules ember implements, as
cloud-init's schema describes them, and what those modules would refuse at boot).
  -c, --config-file FILE  the cloud-config to check (user-data: must start with #cloud-config)
  --system                this machine's: /etc/cloud/cloud.cfg, cloud.cfg.d/*.cfg,
                          /etc/ember/ember.cfg, and the instance's user-data and vendor-data
  --annotate              print the document with # E1 markers and a legend (secrets hidden)
  --target DIR            the root --system reads, and where a Jinja template finds
                          run/ember/instance-data*.json (default /)

Exit codes: 0 valid (warnings allowed), 1 invalid or unreadable, 2 bad command line.";

struct Args {
    file: Option<PathBuf>,
    system: bool,
    annotate: bool,
    target: PathBuf,
}

fn parse(args: &[OsString]) -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args.iter().cloned());
    let mut a = Args {
        file: None,
        system: false,
        annotate: false,
        target: PathBuf::from("/"),
    };
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('c') | Long("config-file") => {
                a.file = Some(parser.value().map_err(|e| e.to_string())?.into())
            }
            Long("system") => a.system = true,
            Long("annotate") => a.annotate = true,
            Long("target") => a.target = parser.value().map_err(|e| e.to_string())?.into(),
            Short('h') | Long("help") => return Ok(None),
            Short('d') | Long("docs") => {
                return Err("--docs is not supported: see cloud-init's module reference".into())
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    match (&a.file, a.system) {
        (None, false) => Err("expected one of --config-file or --system".into()),
        (Some(_), true) => Err("expected --config-file or --system, not both".into()),
        _ => Ok(Some(a)),
    }
}

pub fn main(args: &[OsString]) -> i32 {
    let args = match parse(args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("{USAGE}\nember schema: error: {e}");
            return 2;
        }
    };
    let limits = Limits::default();
    let found = match &args.file {
        Some(path) => vec![read_file(path, &args.target, &limits)],
        None => match crate::root::Root::open(&args.target) {
            Ok(root) => documents(&root),
            Err(e) => {
                eprintln!("ember schema: {e}");
                return 1;
            }
        },
    };
    let mut ok = true;
    for f in found {
        ok &= show(f, args.annotate, &limits);
    }
    if ok {
        0
    } else {
        1
    }
}

fn read_file(path: &std::path::Path, target: &std::path::Path, limits: &Limits) -> Found {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(data) => match String::from_utf8(data) {
            Ok(text) => super::user_data_type::classify(name, text, target, limits),
            Err(_) => Found::Unreadable {
                name,
                reason: "is not valid UTF-8".into(),
            },
        },
        Err(e) => Found::Unreadable {
            name,
            reason: format!("cannot be read: {e}"),
        },
    }
}

/// Prints one document's verdict; true when it is valid.
fn show(found: Found, annotate_it: bool, limits: &Limits) -> bool {
    let (name, text, kind) = match found {
        Found::Doc { name, text, kind } => (name, text, kind),
        Found::Note(note) => {
            println!("{note}");
            return true;
        }
        Found::Unreadable { name, reason } => {
            eprintln!("Error: {name} {reason}");
            return false;
        }
    };
    let report = check(&text, kind, limits);
    if annotate_it {
        print!("{}", annotate::annotate(&text, &report, limits));
    }
    let valid = report.is_valid();
    let lines = render(&report);
    if valid {
        println!("Valid schema {name}");
        lines.iter().for_each(|l| println!("{l}"));
    } else {
        eprintln!("Error: Invalid schema: {name}");
        lines.iter().for_each(|l| eprintln!("{l}"));
    }
    valid
}

/// `key: line N: message`, warnings and deprecations marked as such.
pub fn render(report: &Report) -> Vec<String> {
    report
        .problems
        .iter()
        .map(|p| {
            let mark = match p.severity {
                Severity::Error => "",
                Severity::Warning => "warning: ",
                Severity::Deprecated => "deprecated: ",
            };
            let line = p.line.map(|l| format!("line {l}: ")).unwrap_or_default();
            format!(
                "{}: {line}{mark}{}",
                printable(p.key.as_deref().unwrap_or_default()),
                p.message
            )
        })
        .collect()
}
