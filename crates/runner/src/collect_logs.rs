//! `ember collect-logs [--tarfile FILE] [--include-sensitive]`: a tarball for bug reports
//! (cloud-init's `collect-logs`): ember's and cloud-init's status, the redacted instance data,
//! the logs, what the network rendering recorded, the version, and on a live system the
//! kernel log and the journal of ember's units. Redacted by default (cloud-init's current
//! default includes sensitive data): user-data, the handoff, the sensitive instance data and
//! the merged config only with `--include-sensitive` (cloud-init's `--redact-sensitive` is
//! taken and is the default). The tarball is 0600 either way, created
//! new (`--replace` to replace a name that exists: `new_file.rs`). What it gathers is read
//! as regular files with one name reached without any link (RELIABILITY rule 13), what is
//! skipped named on stderr with why; the kernel log and journal within a deadline and an
//! output budget (`crate::child`, rule 15).
//! <https://docs.cloud-init.io/en/latest/reference/cli.html#collect-logs>

use super::new_file::{CreateError, NewFile};
use super::tar::{StoredGz, Tar};
use super::{global_flag, CliError, Ctx};
use crate::child::{self, Bounds};
use crate::paths::RunPaths;
use crate::regular;
use crate::root::{Root, RootError};
use lexopt::prelude::*;
use rustix::fd::AsFd;
use rustix::fs::{Mode, OFlags};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Under the run directory, always.
const RUN_FILES: &[&str] = &[
    "ember/status.json",
    "ember/detect.json",
    "ember/instance-data.json",
    "cloud-init/status.json",
    "cloud-init/result.json",
    "cloud-init/instance-data.json",
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
/// In the instance's directory of the target, with `--include-sensitive` only.
const INSTANCE_SENSITIVE: &[&str] = &["user-data.txt", "vendor-data.txt", "vendor-data2.txt"];
/// One file's cap in the archive.
const MAX_FILE: u64 = 64 << 20;
/// Each of the kernel log and the journal: what a boot's worth holds, with room to spare.
const TOOL_MAX: usize = 16 << 20;
const TOOL_DEADLINE: Duration = ember_core::bounds::COLLECT_LOGS_TOOL;

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let (mut tarfile, mut sensitive) = (PathBuf::from("cloud-init.tar.gz"), false);
    let mut replace = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('t') | Long("tarfile") => tarfile = parser.value()?.into(),
            Long("include-sensitive") | Short('u') | Long("include-userdata") => sensitive = true,
            // cloud-init's switch to redact; ember redacts unless told otherwise.
            Long("redact") | Short('r') | Long("redact-sensitive") => sensitive = false,
            // cloud-init's verbosity: ember says what it skipped either way.
            Short('v') | Long("verbose") => {}
            Long("replace") => replace = true,
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    // Created before anything is gathered: a name that is taken fails at once.
    let mut out = match NewFile::create(&tarfile, replace) {
        Ok(f) => f,
        Err(CreateError::Exists) => {
            let why = "already exists: give --replace to replace it (a new file takes the \
                       name; a link there is replaced, never followed)";
            return Err(CliError::file(&tarfile, why));
        }
        Err(CreateError::Io(e)) => {
            return Err(CliError::file(
                &tarfile,
                format!("cannot create the tarball: {e}"),
            ))
        }
    };
    let root = Root::open(&ctx.target).map_err(|e| CliError::Failed(e.to_string()))?;
    let mtime = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    entries.push((
        "version".into(),
        format!("ember {}\n", env!("CARGO_PKG_VERSION")).into_bytes(),
    ));
    run_files(ctx, sensitive, &mut entries);
    target_files(&root, sensitive, &mut entries);
    if ctx.target == Path::new("/") {
        tools(&mut entries);
    }
    let written = write(out.file(), mtime, &entries)
        .and_then(|n| out.commit().map(|()| n))
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

/// The run directory's files, each a regular file reached without a link below it; what is
/// skipped is said on stderr. ember's `cloud-init/cloud-id` link is read as a name.
fn run_files(ctx: &Ctx, sensitive: bool, entries: &mut Vec<(String, Vec<u8>)>) {
    let run = ctx.run_paths();
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = match rustix::fs::open(run.run(), flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(e) => return eprintln!("skipped {}: {}", run.run().display(), io::Error::from(e)),
    };
    let mut rels: Vec<String> = RUN_FILES.iter().map(|r| r.to_string()).collect();
    if sensitive {
        rels.extend(RUN_SENSITIVE.iter().map(|r| r.to_string()));
    }
    let id_link = run.at(RunPaths::CI_CLOUD_ID).display().to_string();
    match regular::read_link_beneath(dir.as_fd(), RunPaths::CI_CLOUD_ID, &id_link) {
        Ok(None) => {}
        Ok(Some(text)) => match run.cloud_id_link_name(&text) {
            Some(name) => rels.push(format!("cloud-init/{name}")),
            None => eprintln!("skipped {id_link}: a symbolic link out of its directory"),
        },
        Err(e) => eprintln!("skipped {id_link}: {e}"),
    }
    for rel in rels {
        let shown = run.at(&rel).display().to_string();
        match regular::read_beneath(dir.as_fd(), &rel, &shown, regular::STATE_MAX) {
            Ok(Some(data)) => entries.push((format!("run/{rel}"), data)),
            Ok(None) => {}
            Err(e) => eprintln!("skipped {shown}: {e}"),
        }
    }
}

/// The target's files, read as the run directory's are; the instance's through
/// `/var/lib/cloud/instance` (in the image's cloud dir) only when that link names one
/// instance directory.
fn target_files(root: &Root, sensitive: bool, entries: &mut Vec<(String, Vec<u8>)>) {
    let mut rels: Vec<String> = TARGET_FILES.iter().map(|r| r.to_string()).collect();
    let paths = crate::paths::system();
    let (link, instances) = (paths.cloud("instance"), paths.cloud("instances"));
    if sensitive {
        match root.read_link_beneath("/", &link) {
            Ok(None) => {}
            Ok(Some(to)) => match instance_name(&to, &instances) {
                Some(id) => rels.extend(
                    INSTANCE_SENSITIVE
                        .iter()
                        .map(|f| format!("{instances}/{id}/{f}")),
                ),
                None => eprintln!("skipped {link}: a link to no instance directory"),
            },
            Err(e) => eprintln!("skipped {link}: {}", why(&e)),
        }
    }
    for rel in rels {
        match root.read_file_beneath("/", &rel, MAX_FILE) {
            Ok(Some(data)) => entries.push((rel.trim_start_matches('/').to_string(), data)),
            Ok(None) => {}
            Err(e) => eprintln!("skipped {}: {}", e.path(), why(&e)),
        }
    }
}

/// What a read failed on, without repeating the path.
fn why(e: &RootError) -> String {
    match e {
        RootError::Io { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// A link's text that is one plain name in its own directory.
fn one_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains('/')
}

/// The instance directory's name in the `instance` link's text (absolute, below `instances`,
/// as ember and cloud-init make it, or relative to the cloud dir).
fn instance_name<'t>(to: &'t str, instances: &str) -> Option<&'t str> {
    let id = to
        .strip_prefix(instances)
        .or_else(|| to.strip_prefix("instances"))?
        .strip_prefix('/')?
        .trim_end_matches('/');
    one_name(id).then_some(id)
}

/// The kernel log and the journal of ember's units on a live system, each within its
/// deadline and output budget; what was cut is kept and said.
fn tools(entries: &mut Vec<(String, Vec<u8>)>) {
    let units = ["ember-init", "ember-config", "ember-final"];
    let mut journal = vec!["journalctl", "--no-pager", "--boot", "-o", "short-precise"];
    for u in units {
        journal.extend(["-u", u]);
    }
    for (name, argv) in [("dmesg.txt", vec!["dmesg"]), ("journal.txt", journal)] {
        let mut cmd = Command::new(argv[0]);
        cmd.args(&argv[1..]);
        let bounds = Bounds {
            deadline: TOOL_DEADLINE,
            max_output: TOOL_MAX,
        };
        let Ok(got) = child::capture(&mut cmd, bounds) else {
            continue;
        };
        if let Some(cut) = got.cut {
            eprintln!("{}: {cut}; its output so far is kept", argv[0]);
        }
        entries.push((name.into(), got.stdout));
    }
}

fn write(file: &mut std::fs::File, mtime: u64, entries: &[(String, Vec<u8>)]) -> io::Result<usize> {
    let mut tar = Tar::new(StoredGz::new(file, mtime as u32)?, mtime);
    for (name, data) in entries {
        tar.file(&format!("ember-logs/{name}"), 0o600, data)?;
    }
    let gz = tar.finish()?.finish()?;
    gz.flush()?;
    Ok(entries.len())
}
