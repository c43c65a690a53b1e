//! `ember-initrd pcr-predict SEED [--root ROOT] [--bank BANK]... [--from HEX]... [--format json]` (the
//! runner's `ember devel pcr-predict`): the value PCR 12 holds once ember has measured a NoCloud
//! seed, computed on any machine from the seed and the image's config, with the boot's own
//! seed reader and event words. Exit codes: 0 predicted, 1 the seed could not be read, 2 usage.

use super::bank::{hex, Bank};
use super::{events, PCR};
use crate::context::Ctx;
use crate::host::Host;
use std::ffi::OsString;
use std::path::PathBuf;

const USAGE: &str = "\
usage: ember-initrd pcr-predict SEED [--root ROOT] [--bank BANK]... [--from HEX]...
                                [--format text|json]

Prints the value PCR 12 holds after ember measured the NoCloud seed directory SEED (meta-data
and user-data, and vendor-data and network-config when it has them) on a TPM whose PCR 12 was
at reset (all zeros), in each bank (default: sha1, sha256, sha384 and sha512). ROOT is the
image's root: its cloud-init config (/etc/cloud/cloud.cfg, cloud.cfg.d, /etc/ember) is
measured too; without it, the prediction is for an image with none. --from HEX starts a bank
from the value PCR 12 held before ember (a systemd-stub boot measures there first; the bank is
the one whose digest has HEX's length), instead of zeros. The words measured come
first, one per line, then a line per bank: 'sha256:12 HEX', as /sys/class/tpm/tpm0/pcr-sha256/12
shows the value.";

struct Args {
    seed: PathBuf,
    root: Option<PathBuf>,
    banks: Vec<Bank>,
    /// Starting values, by bank.
    from: Vec<(Bank, Vec<u8>)>,
    json: bool,
}

/// `--from HEX`: the bank whose digest is that long, and the value.
fn start_value(hex: &str) -> Result<(Bank, Vec<u8>), String> {
    let bad = || format!("--from {hex:?}: not a PCR value in hex");
    if hex.len() % 2 != 0 {
        return Err(bad());
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect::<Result<Vec<u8>, String>>()?;
    let bank = Bank::ALL
        .into_iter()
        .find(|b| b.size() == bytes.len())
        .ok_or_else(|| {
            format!(
                "--from {hex:?}: {} bytes is no bank's digest size",
                bytes.len()
            )
        })?;
    Ok((bank, bytes))
}

fn parse(args: &[OsString]) -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args.iter().cloned());
    let err = |e: lexopt::Error| e.to_string();
    let (mut seed, mut root, mut banks, mut json) = (None, None, Vec::new(), false);
    let mut from = Vec::new();
    while let Some(arg) = p.next().map_err(err)? {
        match arg {
            Long("root") => root = Some(PathBuf::from(p.value().map_err(err)?)),
            Long("bank") => {
                let name = p.value().map_err(err)?.string().map_err(err)?;
                let bank = Bank::from_name(&name).ok_or_else(|| {
                    format!("unknown bank {name:?} (sha1, sha256, sha384, sha512)")
                })?;
                banks.push(bank);
            }
            Long("from") => {
                let hex = p.value().map_err(err)?.string().map_err(err)?;
                let hex = hex.trim_start_matches("0x").to_ascii_lowercase();
                from.push(start_value(&hex)?);
            }
            Long("format") => match p.value().map_err(err)?.to_str() {
                Some("json") => json = true,
                Some("text") => json = false,
                other => return Err(format!("unknown format {other:?}")),
            },
            Short('h') | Long("help") => return Ok(None),
            Value(v) if seed.is_none() => seed = Some(PathBuf::from(v)),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if banks.is_empty() {
        banks = Bank::ALL.to_vec();
    }
    Ok(Some(Args {
        seed: seed.ok_or("a SEED directory is required")?,
        root,
        banks,
        from,
        json,
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
            eprintln!("ember-initrd pcr-predict: {e}\n{USAGE}");
            return 2;
        }
    };
    // No host: nothing of the machine this runs on may enter the prediction.
    let nowhere = PathBuf::from("/nonexistent/ember-pcr-predict");
    let root = a.root.clone().unwrap_or_else(|| nowhere.clone());
    let ctx = Ctx::new(Host::new(&nowhere), root, nowhere, Some(String::new()));
    for d in &ctx.image.diags {
        eprintln!("ember: {d}");
    }
    let data = match crate::datasource::nocloud::from_dir(&ctx.env(), &a.seed) {
        Ok(data) => data,
        Err(d) => {
            eprintln!("ember: {d}");
            return 1;
        }
    };
    // As at boot, a file of the seed that does not read is left out, with its problem.
    for d in &data.diags {
        eprintln!("ember: {d}");
    }
    // Where the boot would read more than the directory holds, a prediction would be wrong.
    let elsewhere = if data.meta_data.get("seedfrom").is_some() {
        Some("its meta-data names a seedfrom URL, which the boot reads the rest from")
    } else if ctx.image.value.pointer("/datasource/NoCloud").is_some() {
        Some("the image's config has datasource: NoCloud settings, which the boot merges in")
    } else {
        None
    };
    if let Some(why) = elsewhere {
        eprintln!(
            "ember: {}: {why}: no prediction (predict from the data the boot reads)",
            a.seed.display()
        );
        return 1;
    }
    let events = events(&data, &ctx.image.value);
    let start = a
        .banks
        .iter()
        .map(|b| match a.from.iter().find(|(f, _)| f == b) {
            Some((_, v)) => (*b, v.clone()),
            None => (*b, b.reset_value()),
        })
        .collect();
    let values = super::predict_from(&events, start);
    if a.json {
        let out = serde_json::json!({
            "pcr": PCR,
            "events": events.iter().map(|e| serde_json::json!({"input": e.input, "word": e.word})).collect::<Vec<_>>(),
            "values": values.iter().map(|(b, v)| (b.name().to_string(), hex(v).into())).collect::<serde_json::Map<_, _>>(),
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        for e in &events {
            println!("{}", e.word);
        }
        for (b, v) in &values {
            println!("{}:{PCR} {}", b.name(), hex(v).to_uppercase());
        }
    }
    0
}
