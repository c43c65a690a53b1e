//! `ember collect-logs [--tarfile FILE] [--include-sensitive]`: a tarball for bug reports
//! (cloud-init's `collect-logs`): ember's and cloud-init's status, the redacted instance data,
//! the logs, what the network rendering recorded, the version, and on a live system the
//! kernel log and the journal of ember's units. Redacted by default (cloud-init's current
//! default includes sensitive data): user-data, the handoff, the sensitive instance data and
//! the merged config only with `--include-sensitive`. The tarball is 0600 either way.
//! <https://docs.cloud-init.io/en/latest/reference/cli.html#collect-logs>

use super::tar::{StoredGz, Tar};
use super::{global_flag, CliError, Ctx};
use crate::root::Root;
use lexopt::prelude::*;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Under the run directory, always.
const RUN_FILES: &[&str] = &[
    "ember/status.json",
    "ember/detect.json",
    "ember/instance-data.json",
    "cloud-init/status.json",
    "cloud-init/result.json",
    "cloud-init/instance-data.json",
    "cloud-init/cloud-id",
];
/// Under the run directory, with `--include-sensitive` only.
const RUN_SENSITIVE: &[&str] = &[
    "ember/instance-data-sensitive.json",
    "ember/handoff.json",
    "ember/fetched.json",
    "ember/network-config.json",
    "cloud-init/instance-data-sensitive.json",
    "cloud-init/combined-cloud-config.json",
];
/// In the target, always.
const TARGET_FILES: &[&str] = &[
    "/var/log/cloud-init.log",
    "/var/log/cloud-init-output.log",
    crate::network::render::owned::RECORD,
];
/// In the target, with `--include-sensitive` only.
const TARGET_SENSITIVE: &[&str] = &[
    "/var/lib/cloud/instance/user-data.txt",
    "/var/lib/cloud/instance/vendor-data.txt",
    "/var/lib/cloud/instance/vendor-data2.txt",
];
/// One file's cap in the archive.
const MAX_FILE: u64 = 64 << 20;

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let (mut tarfile, mut sensitive) = (PathBuf::from("cloud-init.tar.gz"), false);
    while let Some(arg) = parser.next()? {
        match arg {
            Short('t') | Long("tarfile") => tarfile = parser.value()?.into(),
            Long("include-sensitive") | Short('u') | Long("include-userdata") => sensitive = true,
            Long("redact") => sensitive = false,
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    let root = Root::open(&ctx.target).map_err(|e| CliError::Failed(e.to_string()))?;
    let mtime = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    entries.push((
        "version".into(),
        format!("ember {}\n", env!("CARGO_PKG_VERSION")).into_bytes(),
    ));
    let run = ctx.run_paths();
    let run_files = RUN_FILES
        .iter()
        .chain(if sensitive { RUN_SENSITIVE } else { &[] });
    for rel in run_files {
        if let Ok(data) = crate::regular::read(&run.at(rel), crate::regular::STATE_MAX) {
            entries.push((format!("run/{rel}"), data));
        }
    }
    let target_files = TARGET_FILES
        .iter()
        .chain(if sensitive { TARGET_SENSITIVE } else { &[] });
    for rel in target_files {
        if let Ok(Some(data)) = root.read_file(rel, MAX_FILE) {
            entries.push((rel.trim_start_matches('/').to_string(), data));
        }
    }
    if ctx.target == Path::new("/") {
        let units = ["ember-init", "ember-config", "ember-final"];
        let mut journal = vec!["journalctl", "--boot", "-o", "short-precise"];
        for u in units {
            journal.extend(["-u", u]);
        }
        for (name, argv) in [("dmesg.txt", vec!["dmesg"]), ("journal.txt", journal)] {
            if let Ok(out) = Command::new(argv[0]).args(&argv[1..]).output() {
                entries.push((name.into(), out.stdout));
            }
        }
    }
    let written = write(&tarfile, mtime, &entries)
        .map_err(|e| CliError::file(&tarfile, format!("cannot write the tarball: {e}")))?;
    eprintln!(
        "Wrote {} ({written} files{})",
        tarfile.display(),
        if sensitive {
            ", sensitive data included"
        } else {
            ", redacted"
        }
    );
    Ok(0)
}

fn write(path: &Path, mtime: u64, entries: &[(String, Vec<u8>)]) -> std::io::Result<usize> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // An existing file keeps its mode on open: make it 0600 too.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    let mut tar = Tar::new(StoredGz::new(file, mtime as u32)?, mtime);
    for (name, data) in entries {
        tar.file(&format!("ember-logs/{name}"), 0o600, data)?;
    }
    let mut gz = tar.finish()?.finish()?;
    gz.flush()?;
    gz.sync_all()?;
    Ok(entries.len())
}
