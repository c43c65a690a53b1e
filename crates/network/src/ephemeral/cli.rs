//! `ember-initrd [--host DIR] dhcp [IFACE…] [--timeout S] [--per-nic S] [--keep]
//! [--link-local] [--slaac] [--metadata IP] [--site-option CODE]… [--hold-ms N]`: a hidden
//! command for tests and debugging. It obtains a
//! lease on the first interface that gives one (the fallback candidates when none is named),
//! prints it and the attempts as JSON, then tears it down (after `--hold-ms`, so a test can
//! look at the link meanwhile) unless `--keep`. Exit codes: 0 lease, 1 none, 2 usage.

use super::{fallback_candidates, Options, Session};
use crate::host::Host;
use std::ffi::OsString;
use std::io::Write;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: ember-initrd [--host DIR] dhcp [IFACE...] [--timeout S] [--per-nic S] [--keep]
         [--link-local] [--slaac] [--metadata IP] [--site-option CODE]... [--hold-ms N]

Leases an address on each IFACE (default: every NIC with a link) with ember's ephemeral DHCP
client, prints the leases, and takes them down again unless --keep.";

/// Runs `dhcp` when it is the command in `args`; otherwise hands the arguments back for the
/// stage parser.
pub fn intercept(
    args: impl Iterator<Item = OsString>,
) -> Result<i32, std::vec::IntoIter<OsString>> {
    let args: Vec<OsString> = args.collect();
    let mut host = PathBuf::from("/");
    let mut i = 0;
    while let Some(arg) = args.get(i).and_then(|a| a.to_str()) {
        match arg {
            "--host" => {
                if let Some(v) = args.get(i + 1) {
                    host = v.into();
                }
                i += 2;
            }
            "--target" | "--run" | "--format" => i += 2,
            a if a.starts_with("--host=") => {
                host = a["--host=".len()..].into();
                i += 1;
            }
            "dhcp" => return Ok(main(&Host::new(host), &args[i + 1..])),
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    Err(args.into_iter())
}

struct Args {
    nics: Vec<String>,
    timeout: Duration,
    per_nic: Option<Duration>,
    keep: bool,
    link_local: bool,
    slaac: bool,
    metadata: Option<Ipv4Addr>,
    site_options: Vec<u8>,
    hold: Duration,
}

/// The arguments, or `None` for `--help`.
fn parse(args: &[OsString]) -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args.iter().cloned());
    let mut out = Args {
        nics: Vec::new(),
        timeout: Duration::from_secs(30),
        per_nic: None,
        keep: false,
        link_local: false,
        slaac: false,
        metadata: None,
        site_options: Vec::new(),
        hold: Duration::ZERO,
    };
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        let value = |p: &mut lexopt::Parser| -> Result<String, String> {
            p.value()
                .map_err(|e| e.to_string())?
                .into_string()
                .map_err(|_| "not UTF-8".to_string())
        };
        match arg {
            Long("timeout") => out.timeout = seconds(&value(&mut p)?, "--timeout")?,
            Long("per-nic") => out.per_nic = Some(seconds(&value(&mut p)?, "--per-nic")?),
            Long("hold-ms") => {
                let ms = value(&mut p)?
                    .parse()
                    .map_err(|_| "--hold-ms wants milliseconds")?;
                out.hold = Duration::from_millis(ms);
            }
            Long("metadata") => {
                out.metadata = Some(
                    value(&mut p)?
                        .parse()
                        .map_err(|_| "--metadata wants an IPv4 address")?,
                )
            }
            Long("site-option") => out.site_options.push(
                value(&mut p)?
                    .parse()
                    .ok()
                    .filter(|c| super::packet::SITE_SPECIFIC.contains(c))
                    .ok_or("--site-option wants a code from 224 to 254")?,
            ),
            Long("keep") => out.keep = true,
            Long("link-local") => out.link_local = true,
            Long("slaac") => out.slaac = true,
            Short('h') | Long("help") => return Ok(None),
            Value(v) => out
                .nics
                .push(v.into_string().map_err(|_| "interface name is not UTF-8")?),
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Some(out))
}

fn seconds(s: &str, flag: &str) -> Result<Duration, String> {
    s.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{flag} wants seconds"))
}

fn main(host: &Host, args: &[OsString]) -> i32 {
    let args = match parse(args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("ember-initrd dhcp: {e}\n{USAGE}");
            return 2;
        }
    };
    let nics = if args.nics.is_empty() {
        fallback_candidates(host)
    } else {
        args.nics
    };
    let mut opts = Options::new(Instant::now() + args.timeout);
    opts.per_nic = args.per_nic.unwrap_or(args.timeout);
    opts.link_local = args.link_local;
    opts.slaac = args.slaac;
    opts.proc = host.path("/proc");
    opts.metadata = args.metadata;
    opts.site_options = args.site_options;
    let mut session = match Session::new(&nics, opts) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ember-initrd dhcp: {e}");
            return 1;
        }
    };
    let result = session
        .try_each(|_| true)
        .cloned()
        .map_err(|e| e.to_string());
    let report = serde_json::json!({
        "nic": session.nic(),
        "lease": result.as_ref().ok(),
        "attempts": session.record(),
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
    let _ = std::io::stdout().flush();
    if let Err(e) = &result {
        eprintln!("ember-initrd dhcp: {e}");
        return 1;
    }
    std::thread::sleep(args.hold);
    if args.keep {
        session.keep();
        return 0;
    }
    let failed = session.down();
    for f in &failed {
        eprintln!("ember-initrd dhcp: teardown: {f}");
    }
    i32::from(!failed.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> impl Iterator<Item = OsString> {
        a.iter().map(OsString::from).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn only_the_dhcp_command_is_taken() {
        for stage in [
            &["--host", "/x", "--format", "json", "detect"][..],
            &["all"],
            &["--host=/x", "local", "dhcp"],
            &[],
        ] {
            let back: Vec<OsString> = intercept(args(stage)).unwrap_err().collect();
            assert_eq!(back, stage.iter().map(OsString::from).collect::<Vec<_>>());
        }
        assert_eq!(
            intercept(args(&["--host", "/x", "dhcp", "--bogus"])).ok(),
            Some(2)
        );
        assert_eq!(
            intercept(args(&["--host=/x", "dhcp", "--timeout", "soon"])).ok(),
            Some(2)
        );
    }
}
