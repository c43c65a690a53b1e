//! `ember-initrd schema (--config-file F | --system) [--schema-type T] [--annotate]
//! [--instance-data F] [--target DIR]`, which the runner's `ember schema` and `cloud-init
//! schema` hand over to. Prints `Valid schema F` (deprecations first, in cloud-init's
//! `Cloud config schema deprecations:` line), or `Invalid user-data F` on stdout (as
//! cloud-init) and on stderr `Error: Invalid schema: F` and one
//! `key.path: line N: message` line per problem; exits 0 when every document is valid, 1 when
//! one is not (or cannot be read, or neither or both of -c and --system are given, as
//! cloud-init's), 2 on another bad command line.

use super::network_config;
use super::system::{documents, Found};
use super::user_data_type::InstanceData;
use super::{annotate, check, Report};
use crate::error::{Diag, Severity};
use crate::limits::Limits;
use crate::redact::printable;
use std::ffi::OsString;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: ember schema (-c FILE | --config-file FILE | --system) [-t TYPE] [--annotate]
                    [-i FILE] [--target DIR]

Validates cloud-config against ember's model (the keys of the modules ember implements, as
cloud-init's schema describes them, and what those modules would refuse at boot).
  -c, --config-file FILE  the cloud-config to check (user-data: must start with #cloud-config)
  --system                this machine's: /etc/cloud/cloud.cfg, cloud.cfg.d/*.cfg,
                          /etc/ember/ember.cfg, and the instance's user-data and vendor-data
  -t, --schema-type TYPE  what --config-file holds: cloud-config (default) or network-config
                          (v1 or v2, checked by the boot's own network parser)
  --annotate              print the document with # E1 markers and a legend (secrets hidden)
  -i, --instance-data F   the instance data a Jinja template renders over (default: the
                          machine's, under --target)
  --target DIR            the root --system reads, and where a Jinja template finds
                          run/ember/instance-data*.json (default /)

Exit codes: 0 valid (warnings allowed), 1 invalid or unreadable (or neither or both of
--config-file and --system), 2 another bad command line.";

/// The document type `--schema-type` names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SchemaType {
    CloudConfig,
    NetworkConfig,
}

struct Args {
    file: Option<PathBuf>,
    system: bool,
    annotate: bool,
    schema_type: Option<SchemaType>,
    instance_data: Option<PathBuf>,
    target: PathBuf,
}

/// A command line that parses but asks for no single source, which cloud-init's command
/// refuses with exit 1 (its argument parser's own errors exit 2).
const ONE_SOURCE: &str = "Expected one of --config-file or --system arguments";

fn parse(args: &[OsString]) -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args.iter().cloned());
    let mut a = Args {
        file: None,
        system: false,
        annotate: false,
        schema_type: None,
        instance_data: None,
        target: PathBuf::from("/"),
    };
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('c') | Long("config-file") => {
                a.file = Some(parser.value().map_err(|e| e.to_string())?.into())
            }
            Long("system") => a.system = true,
            Long("annotate") => a.annotate = true,
            Short('t') | Long("schema-type") => {
                let value = parser.value().map_err(|e| e.to_string())?;
                a.schema_type = Some(match value.to_str() {
                    Some("cloud-config") => SchemaType::CloudConfig,
                    Some("network-config") => SchemaType::NetworkConfig,
                    _ => {
                        return Err("--schema-type: expected cloud-config or network-config".into())
                    }
                });
            }
            Short('i') | Long("instance-data") => {
                a.instance_data = Some(parser.value().map_err(|e| e.to_string())?.into())
            }
            Long("target") => a.target = parser.value().map_err(|e| e.to_string())?.into(),
            Short('h') | Long("help") => return Ok(None),
            Short('d') | Long("docs") => {
                return Err("--docs is not supported: see cloud-init's module reference".into())
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Some(a))
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
    if args.file.is_some() == args.system {
        eprintln!("Error:\n{ONE_SOURCE}");
        return 1;
    }
    if args.system && args.schema_type.is_some() {
        println!("WARNING: The --schema-type parameter is inapplicable when --system is present");
    }
    let limits = Limits::default();
    let data = InstanceData {
        target: &args.target,
        file: args.instance_data.as_deref(),
    };
    let found = match &args.file {
        Some(path) => vec![read_file(path, args.schema_type, &data, &limits)],
        None => match crate::root::Root::open(&args.target) {
            Ok(root) => documents(&root, &data, &limits),
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

fn read_file(
    path: &std::path::Path,
    schema_type: Option<SchemaType>,
    data: &InstanceData,
    limits: &Limits,
) -> Found {
    let name = path.display().to_string();
    let what = match schema_type {
        Some(SchemaType::NetworkConfig) => "network-config",
        _ => "cloud-config",
    };
    match std::fs::read(path) {
        Ok(bytes) if bytes.is_empty() => Found::Note(format!(
            "Empty '{what}' found at {}. Nothing to validate.",
            printable(&name)
        )),
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) if what == "network-config" => Found::Network { name, text },
            Ok(text) => super::user_data_type::classify(name, text, data, limits),
            Err(_) => Found::Unreadable {
                name,
                reason: "is not valid UTF-8".into(),
            },
        },
        // cloud-init's words for a file that is not there.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Found::Unreadable {
            name: format!("Config file {name}"),
            reason: "does not exist".into(),
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
        Found::Network { name, text } => return show_network(&name, &text, limits),
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
    if valid {
        // As cloud-init: the deprecations on one line before the verdict, then ember's
        // warnings (unknown keys, keys no ember module handles) after it.
        let (deprecated, others): (Vec<Diag>, Vec<Diag>) =
            (report.problems.iter().cloned()).partition(|p| p.severity == Severity::Deprecated);
        if !deprecated.is_empty() {
            let all = render(&Report {
                problems: deprecated,
            });
            println!("Cloud config schema deprecations: {}", all.join(", "));
        }
        println!("Valid schema {name}");
        let lines = render(&Report { problems: others });
        lines.iter().for_each(|l| println!("{l}"));
    } else {
        let lines = render(&report);
        // cloud-init's verdict line on stdout (user-data only: it checks no image config).
        if kind == super::Kind::UserData && !annotate_it {
            println!("Invalid user-data {name}");
        }
        eprintln!("Error: Invalid schema: {name}");
        lines.iter().for_each(|l| eprintln!("{l}"));
    }
    valid
}

fn show_network(name: &str, text: &str, limits: &Limits) -> bool {
    let problems = match network_config::check(name, text, limits) {
        network_config::Verdict::Skipped(note) => {
            println!("{note}");
            return true;
        }
        network_config::Verdict::Checked(problems) => problems,
    };
    let report = Report { problems };
    let lines = render(&report);
    if report.is_valid() {
        println!("Valid schema {name}");
        lines.iter().for_each(|l| println!("{l}"));
        true
    } else {
        println!("Invalid network-config {name}");
        eprintln!("Error: Invalid schema: {name}");
        lines.iter().for_each(|l| eprintln!("{l}"));
        false
    }
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
