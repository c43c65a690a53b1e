//! `ember-initrd render (USER_DATA | --format TEMPLATE) --instance-data FILE|- [--debug]
//! [--mark-missing]`: the Jinja half of the runner's `devel render` and `query --format`, and of
//! its modules' templates (ntp, apt), which hand it over because the runner carries no Jinja
//! engine. Rendering is the boot's own (`userdata::jinja`), within
//! the same budgets, so what it prints is what the boot would make of the template.
//! Exit codes: 0 rendered, 1 unreadable input, a template error or (`--format`) an empty
//! result, 2 usage error.

use crate::limits::Limits;
use crate::userdata::{jinja, jinja_marked};
use serde_json::Value;
use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;

const USAGE: &str = "\
usage: ember-initrd render (USER_DATA | --format TEMPLATE) -i|--instance-data FILE|- [-d|--debug]
                           [--mark-missing]

Renders a '## template: jinja' user-data file (or, with --format, a template given on the
command line) over instance-data.json (FILE, or - for standard input) as the boot renders it.
--mark-missing prints a missing variable as CI_MISSING_JINJA_VAR/NAME, as cloud-init renders
the image's own templates (apt's sources), instead of the empty string user-data gets.";

struct Args {
    user_data: Option<PathBuf>,
    format: Option<String>,
    instance_data: PathBuf,
    debug: bool,
    mark_missing: bool,
}

fn parse(args: &[OsString]) -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args.iter().cloned());
    let (mut user_data, mut format, mut instance_data) = (None, None, None);
    let (mut debug, mut mark_missing) = (false, false);
    let err = |e: lexopt::Error| e.to_string();
    while let Some(arg) = p.next().map_err(err)? {
        match arg {
            Short('i') | Long("instance-data") => instance_data = Some(p.value().map_err(err)?),
            Short('f') | Long("format") => {
                format = Some(p.value().map_err(err)?.string().map_err(err)?)
            }
            Short('d') | Long("debug") => debug = true,
            Long("mark-missing") => mark_missing = true,
            Short('h') | Long("help") => return Ok(None),
            Value(v) if user_data.is_none() => user_data = Some(PathBuf::from(v)),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if user_data.is_some() == format.is_some() {
        return Err("give a USER_DATA file or --format, one of them".into());
    }
    let instance_data = instance_data.ok_or("--instance-data is required")?.into();
    Ok(Some(Args {
        user_data,
        format,
        instance_data,
        debug,
        mark_missing,
    }))
}

pub fn main(args: &[OsString]) -> i32 {
    let a = match parse(args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("ember-initrd render: {e}\n{USAGE}");
            return 2;
        }
    };
    match render(&a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ember: {e}");
            1
        }
    }
}

fn render(a: &Args) -> Result<i32, String> {
    let data = instance_data(&a.instance_data)?;
    if a.debug {
        let keys: Vec<&str> = data
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        eprintln!(
            "ember: render: instance data {} has the top-level keys {}",
            a.instance_data.display(),
            keys.join(", ")
        );
    }
    let (name, text) = match (&a.user_data, &a.format) {
        (Some(path), _) => {
            let name = path.display().to_string();
            let text = crate::regular::read_to_string(path, crate::regular::STATE_MAX)
                .map_err(|e| format!("{name}: {e}"))?;
            (name, text)
        }
        (None, format) => ("--format".to_string(), format.clone().unwrap_or_default()),
    };
    let (body, skipped) = match a.format {
        Some(_) => (text.as_str(), 0),
        None => jinja::strip_header(&text).ok_or_else(|| {
            format!(
                "{name}: not a template: its first line must be '{}'",
                jinja::HEADER
            )
        })?,
    };
    let limits = Limits::default();
    let rendered = if a.mark_missing {
        jinja_marked::render(body, &data, &limits)
    } else {
        jinja::render(body, &data, &limits)
    };
    let rendered = rendered.map_err(|e| {
        let line = e
            .line
            .map(|l| format!("line {}: ", l + skipped))
            .unwrap_or_default();
        match e.budget {
            Some(budget) => format!("{name}: {line}the template exceeds {budget}"),
            None => format!("{name}: {line}jinja template failed ({})", e.what),
        }
    })?;
    if !rendered.undefined.is_empty() {
        let how = if a.mark_missing {
            format!("as {}NAME", jinja_marked::MISSING)
        } else {
            "empty".to_string()
        };
        eprintln!(
            "ember: warning: {name}: undefined template variable(s) rendered {how}: {}",
            rendered.undefined.join(", ")
        );
    }
    if a.format.is_none() {
        print!("{}", rendered.text);
        return Ok(0);
    }
    if rendered.text.is_empty() {
        // cloud-init's `query --format` exits 1 when the template renders nothing.
        eprintln!("ember: --format rendered nothing");
        return Ok(1);
    }
    println!("{}", rendered.text);
    Ok(0)
}

fn instance_data(path: &std::path::Path) -> Result<Value, String> {
    let name = path.display().to_string();
    let bytes = if name == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .take(crate::regular::STATE_MAX)
            .read_to_end(&mut buf)
            .map_err(|e| format!("instance data on standard input: {e}"))?;
        buf
    } else {
        crate::regular::read(path, crate::regular::STATE_MAX).map_err(|e| format!("{name}: {e}"))?
    };
    // Only serde's category and place: its message can quote the input, which may hold secrets.
    serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "{name}: line {}: not valid JSON ({:?} error)",
            e.line(),
            e.classify()
        )
    })
}
