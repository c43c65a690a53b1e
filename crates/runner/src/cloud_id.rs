//! `cloud-id [-j|--json] [-l|--long] [-i|--instance-data FILE]` (also `ember cloud-id`):
//! cloud-init's canonical cloud id from instance-data.json's `v1`
//! (<https://docs.cloud-init.io/en/latest/reference/cli.html>). Exit codes as cloud-init's:
//! 0 printed, 1 error, 2 disabled, 3 not started (both printed as the status word).

use super::status_cmd::{observe, DEFAULT_GRACE_S};
use super::verdict::Phase;
use super::{global_flag, CliError, Ctx};
use crate::host::Host;
use crate::instance::{canonical_cloud_id, UNKNOWN};
use lexopt::prelude::*;
use serde_json::{Map, Value};
use std::path::PathBuf;

pub const USAGE: &str = "[-j|--json] [-l|--long] [-i|--instance-data FILE]";

#[derive(Default)]
struct Opts {
    json: bool,
    long: bool,
    instance_data: Option<PathBuf>,
}

fn parse(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<Opts, CliError> {
    let mut o = Opts::default();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('j') | Long("json") => o.json = true,
            Short('l') | Long("long") => o.long = true,
            Short('i') | Long("instance-data") => o.instance_data = Some(parser.value()?.into()),
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    Ok(o)
}

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let o = parse(ctx, parser)?;
    let paths = ctx.run_paths();
    let (verdict, _) = observe(&paths, &Host::new(&ctx.host), DEFAULT_GRACE_S)?;
    match verdict.running {
        Phase::Disabled => {
            println!("{}", Phase::Disabled.word());
            return Ok(2);
        }
        Phase::NotStarted => {
            println!("{}", Phase::NotStarted.word());
            return Ok(3);
        }
        Phase::Running | Phase::Done => {}
    }
    // cloud-init's default is its redacted copy; ember's own copy is the same file when
    // cloud-init's name is absent.
    let files = match o.instance_data {
        Some(path) => vec![path],
        None => vec![paths.ci_instance_data(), paths.instance_data()],
    };
    let data = super::query::load(&files)?;
    let mut v1 = match data.get("v1") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let text = |key: &str| {
        v1.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let id = canonical_cloud_id(&text("cloud_name"), &text("region"), &text("platform"));
    if o.json {
        v1.insert("cloud_id".into(), Value::from(id));
        println!("{}", super::query::show(&Value::Object(v1)));
    } else if o.long {
        let region = text("region");
        println!(
            "{id}\t{}",
            if region.is_empty() { UNKNOWN } else { &region }
        );
    } else {
        println!("{id}");
    }
    Ok(0)
}
