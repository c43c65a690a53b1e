//! `ember-initrd [--host DIR] [--target DIR] [--run DIR] [--format text|json] STAGE`.

use crate::context::Ctx;
use crate::host::Host;
use crate::status::{Status, STAGES};
use std::ffi::OsString;
use std::path::PathBuf;

const USAGE: &str = "\
usage: ember-initrd [--host DIR] [--target DIR] [--run DIR] [--format text|json] STAGE

Stages: detect, fetch, local, or all (the three in order).
Tools: net-convert, schema, render, dhcp (each with --help).
  --host DIR     prefix for the initramfs's own /proc, /sys, /dev and /etc (default /)
  --target DIR   the root being provisioned (default /sysroot)
  --run DIR      the directory standing for /run (default /run)
  --format F     how detect prints what it found: text (default) or json

Exit codes: 0 done (also when disabled, or with warnings), 1 a stage recorded errors,
2 usage error, 3 errors and `ember.on-error=halt` on the kernel command line.";

struct Args {
    host: PathBuf,
    target: PathBuf,
    run: PathBuf,
    json: bool,
    stage: String,
}

fn parse(args: impl Iterator<Item = OsString>) -> Result<Args, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut out = Args {
        host: "/".into(),
        target: "/sysroot".into(),
        run: "/run".into(),
        json: false,
        stage: String::new(),
    };
    let value = |p: &mut lexopt::Parser| -> Result<PathBuf, String> {
        p.value().map(PathBuf::from).map_err(|e| e.to_string())
    };
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("host") => out.host = value(&mut parser)?,
            Long("target") => out.target = value(&mut parser)?,
            Long("run") => out.run = value(&mut parser)?,
            Long("format") => {
                let f = value(&mut parser)?;
                out.json = match f.to_str() {
                    Some("json") => true,
                    Some("text") => false,
                    _ => return Err(format!("unknown format {f:?}")),
                };
            }
            Long("help") | Short('h') => return Err(String::new()),
            Long("version") => return Err("version".into()),
            Value(v) if out.stage.is_empty() => {
                out.stage = v.string().map_err(|_| "stage is not UTF-8")?
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    match out.stage.as_str() {
        "detect" | "fetch" | "local" | "all" => Ok(out),
        "" => Err("a stage is required".into()),
        s => Err(format!("unknown stage {s:?}")),
    }
}

pub fn main(args: impl Iterator<Item = OsString>) -> i32 {
    // `ember-initrd dhcp IFACE`: the ephemeral DHCP client on its own, for tests and operators.
    let args = match crate::network::ephemeral::cli::intercept(args) {
        Ok(code) => return code,
        Err(args) => args,
    };
    // `ember-initrd net-convert …`: render a network config offline (image builders).
    let args: Vec<OsString> = args.collect();
    match args.first().and_then(|a| a.to_str()) {
        Some("net-convert") => return crate::net_convert::main(&args[1..]),
        Some("render") => return super::render_cli::main(&args[1..]),
        Some("pcr-predict") => return crate::measure::predict::main(&args[1..]),
        // `ember-initrd hotplug …`: a NIC added or removed (the runner's hotplug-hook).
        Some("hotplug") => return super::hotplug::main(&args[1..]),
        _ => {}
    }
    let args = args.into_iter();
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) if e == "version" => {
            println!("ember-initrd {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        Err(e) => {
            eprintln!("ember-initrd: {e}\n{USAGE}");
            return 2;
        }
    };
    let env_cmdline = std::env::var("KERNEL_CMDLINE").ok();
    let mut ctx = Ctx::new(
        Host::new(&args.host),
        args.target.clone(),
        args.run.clone(),
        env_cmdline,
    );
    let status = match args.stage.as_str() {
        "detect" => {
            let (detection, status) = super::detect::run(&ctx);
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&detection).unwrap_or_default()
                );
            } else {
                print!("{}", super::detect::describe(&detection));
            }
            status
        }
        "fetch" => match super::detect::load(&ctx) {
            Some(detection) if detection.disabled.is_none() => super::fetch::run(&ctx, &detection),
            Some(_) => return 0,
            None => {
                eprintln!(
                    "ember-initrd: no detect result in {}: run the detect stage first",
                    ctx.run.detect().display()
                );
                return 1;
            }
        },
        "local" => {
            if super::detect::load(&ctx).is_some_and(|d| d.disabled.is_some()) {
                return 0;
            }
            // In the initramfs detect ran before the root was mounted: its marker files
            // (/etc/cloud/cloud-init.disabled) are visible only now.
            ctx.reopen_target();
            if let Some(reason) = crate::detect::disabled_reason(&ctx) {
                let status = super::detect::record_disabled(&ctx, &reason);
                return report(&ctx, &status);
            }
            super::local::run(&mut ctx)
        }
        _ => super::all(&mut ctx),
    };
    report(&ctx, &status)
}

/// Diagnostics on stderr (never values, only where), and the exit code.
fn report(ctx: &Ctx, status: &Status) -> i32 {
    if let Some(reason) = &status.disabled {
        eprintln!("ember: disabled ({reason})");
        return 0;
    }
    let mut errors = 0;
    for name in STAGES {
        let Some(stage) = status.stages.get(name) else {
            continue;
        };
        for d in &stage.errors {
            eprintln!("ember: {name}: error: {d}");
        }
        for d in &stage.recoverable_errors {
            eprintln!("ember: {name}: warning: {d}");
        }
        errors += stage.errors.len();
    }
    if errors == 0 {
        return 0;
    }
    if crate::cmdline::value(&ctx.cmdline, "ember.on-error") == Some("halt") {
        eprintln!("ember: {errors} error(s) and ember.on-error=halt: stopping the boot");
        return 3;
    }
    1
}
