//! The floor beside a process benchmark: the files one `ember-initrd` run produced (what it
//! added to the target root, and its run directory), merely extracted by GNU tar into fresh
//! directories of the same kind and flushed as ember flushes them. Absolute times move with
//! the device's flush and ext4's recently deleted inodes; ember's time over the floor's, taken
//! in the same sitting, much less.
//!
//! Kept fair both ways:
//! - tar runs as a process, timed as ember is: each pays one exec and its start-up.
//! - The floor's target gets the same inputs as ember's (written by the bench, untimed) and
//!   the archive holds only what ember added or changed (an /etc/passwd it rewrote), so the
//!   same files and directories are written under the same existing directories, on the same
//!   filesystems.
//! - `-m` (ember sets no mtimes) and `--numeric-owner` (ember looks no names up on the host);
//!   owners and modes are set, as ember sets them.
//! - The flush: ember makes one `syncfs` of the target's filesystem (`Root::sync`, its one
//!   durable point; the run directory, a tmpfs, is never synced) and writes its markers after
//!   it. The floor makes one `syncfs` of the target's filesystem once tar has exited, from the
//!   bench itself: a `sync -f` process would add an exec ember does not pay; an fsync per file
//!   would flush far more often than ember does. It also flushes the markers (a dozen small
//!   inodes in the same journal commit), a little in ember's favour.
//! - What ember does beyond that is its own cost: reading and parsing the seed, making the
//!   host keys, writing each file under a temporary name and renaming it into place.

use super::{cpu_us, run_measured, How, Sample};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Instant;

const TAR: &str = "tar";

pub struct Floor {
    archive: PathBuf,
    /// The name the run directory's entries carry in the archive.
    run_name: String,
    /// What ember left in the target and the run directory, which the first floor run must
    /// leave too (checked once, untimed).
    expected: (Vec<PathBuf>, Vec<PathBuf>),
    checked: std::cell::Cell<bool>,
}

/// The paths below `dir`, relative to it, parents first.
fn listing(dir: &Path) -> Vec<PathBuf> {
    let name = dir.file_name().unwrap().to_str().unwrap();
    tree(dir.parent().unwrap(), name)
        .into_iter()
        .map(|p| p.strip_prefix(name).unwrap().to_path_buf())
        .collect()
}

/// Every path below `here/top` and `here/top` itself, relative to `here`, parents first.
pub fn tree(here: &Path, top: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(here, PathBuf::from(top), &mut out);
    out
}

fn walk(here: &Path, rel: PathBuf, out: &mut Vec<PathBuf>) {
    let full = here.join(&rel);
    out.push(rel.clone());
    if full.symlink_metadata().unwrap().is_dir() {
        let mut names: Vec<OsString> = std::fs::read_dir(&full)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for name in names {
            walk(here, rel.join(name), out);
        }
    }
}

/// The target before a run: every path below `here/target`, with a regular file's content.
pub struct Inputs(BTreeMap<PathBuf, Option<Vec<u8>>>);

impl Inputs {
    pub fn of(here: &Path) -> Inputs {
        let content = |p: &PathBuf| {
            let full = here.join(p);
            let regular = full.symlink_metadata().unwrap().is_file();
            regular.then(|| std::fs::read(full).unwrap())
        };
        let paths = tree(here, "target").into_iter();
        Inputs(
            paths
                .map(|p| {
                    let before = content(&p);
                    (p, before)
                })
                .collect(),
        )
    }

    /// Whether `p` (relative to `here`) was there before the run and is as it was.
    fn kept(&self, here: &Path, p: &PathBuf) -> bool {
        match self.0.get(p) {
            None => false,
            Some(None) => true,
            Some(Some(before)) => std::fs::read(here.join(p)).is_ok_and(|now| &now == before),
        }
    }
}

impl Floor {
    /// Packs, into `archive`, what one ember run made: the paths now below `here/target`
    /// that `inputs` (taken before the run) lacks or had with other content, and the whole run
    /// directory `run`. Once, after a warm-up run.
    pub fn pack(archive: &Path, here: &Path, inputs: &Inputs, run: &Path) -> Floor {
        let run_name = run.file_name().unwrap().to_str().unwrap().to_string();
        let run_parent = run.parent().unwrap();
        let mut list = format!("-C {}\n", here.display());
        for p in tree(here, "target") {
            if !inputs.kept(here, &p) {
                list.push_str(p.to_str().unwrap());
                list.push('\n');
            }
        }
        list.push_str(&format!("-C {}\n", run_parent.display()));
        for p in tree(run_parent, &run_name) {
            list.push_str(p.to_str().unwrap());
            list.push('\n');
        }
        let list_file = archive.with_extension("list");
        std::fs::write(&list_file, list).unwrap();
        let status = std::process::Command::new(TAR)
            .args(["-c", "--numeric-owner", "--no-recursion", "-f"])
            .arg(archive)
            .arg("-T")
            .arg(&list_file)
            .status()
            .unwrap();
        assert!(status.success(), "tar could not pack {}", here.display());
        let _ = std::fs::remove_file(list_file);
        Floor {
            archive: archive.into(),
            run_name,
            expected: (listing(&here.join("target")), listing(run)),
            checked: std::cell::Cell::new(false),
        }
    }

    /// One floor run: extracts the archive's target entries into `here/target` (its inputs
    /// already written) and its run directory as `run`, then flushes the target's filesystem.
    pub fn run(&self, here: &Path, run: &Path, how: How) -> Sample {
        // The run directory's entries go to `run` (absolute: -P), the target's below `here`;
        // symlink targets stay as ember wrote them (S).
        let transform = format!(
            "s|^{}\\(/\\|$\\)|{}\\1|S",
            escape(&self.run_name, "\\.[]*^$|"),
            escape(run.to_str().unwrap(), "\\&|")
        );
        let args: Vec<OsString> = vec![
            "-x".into(),
            "-P".into(),
            "-m".into(),
            "--numeric-owner".into(),
            "-f".into(),
            self.archive.clone().into(),
            "-C".into(),
            here.into(),
            "--transform".into(),
            transform.into(),
        ];
        let mut sample = run_measured(TAR.as_ref(), &args, here, how);
        let (wall_us, cpu) = timed_syncfs(&here.join("target"));
        sample.wall_us += wall_us;
        sample.cpu_us += cpu;
        if !self.checked.replace(true) {
            let made = (listing(&here.join("target")), listing(run));
            assert!(
                made == self.expected,
                "the floor made other files than ember"
            );
        }
        sample
    }
}

impl Drop for Floor {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.archive);
    }
}

/// One `syncfs` of the filesystem holding `dir`: its wall time and this thread's CPU time for
/// it, in µs.
fn timed_syncfs(dir: &Path) -> (u64, u64) {
    let thread_cpu = || {
        // SAFETY: an all-zero rusage is valid; getrusage fills it.
        #[allow(unsafe_code)]
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to our own rusage.
        #[allow(unsafe_code)]
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
        assert_eq!(rc, 0);
        cpu_us(&usage)
    };
    let (t0, c0) = (Instant::now(), thread_cpu());
    let fd = std::fs::File::open(dir).unwrap();
    // SAFETY: syncfs on a descriptor we own.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::syncfs(fd.as_raw_fd()) };
    assert_eq!(rc, 0, "syncfs {}", dir.display());
    drop(fd);
    (t0.elapsed().as_micros() as u64, thread_cpu() - c0)
}

/// `s` with a backslash before each of `specials`: a literal in a `|`-delimited basic regular
/// expression (`\.[]*^$|`) or in the replacement of such an `s` command (`\&|`).
fn escape(s: &str, specials: &str) -> String {
    s.chars().fold(String::new(), |mut out, c| {
        if specials.contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}
