//! What the process benchmarks share: one `ember-initrd` run as a child, timed with wait4's
//! rusage (wall, user+sys CPU, peak RSS), and medians.
#![allow(dead_code)] // each bench uses its own subset

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

pub struct Sample {
    pub wall_us: u64,
    pub cpu_us: u64,
    pub max_rss_kib: u64,
}

pub fn write(path: &Path, data: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, data).unwrap();
}

/// The binary under test: `$EMBER_INITRD`, else the one cargo built for this bench.
pub fn initrd_bin() -> String {
    std::env::var("EMBER_INITRD").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ember-initrd").into())
}

/// GNU time, which reports its child's peak RSS cleanly: Linux carries a process's peak RSS
/// across fork and exec, so a child forked from this (large) bench process would report the
/// bench's own peak. time is small, and the child it forks starts clean.
const GNU_TIME: &str = "/usr/bin/time";

/// Runs `bin --host H --target T --run R ARGS…` in `dir` (host, target, run below it) and
/// measures it: wall and CPU (user+sys, from wait4) here, the peak RSS through GNU time.
/// Panics when it fails: a benchmark of a failing run means nothing.
pub fn run_initrd(bin: &str, dir: &Path, args: &[&str]) -> Sample {
    run_initrd_in(bin, dir, &dir.join("run"), args)
}

/// [`run_initrd`] with the run directory at `run`.
#[allow(clippy::zombie_processes)] // the child is reaped by wait4 below, which also gives its rusage
pub fn run_initrd_in(bin: &str, dir: &Path, run: &Path, args: &[&str]) -> Sample {
    let rss_file = dir.join("time-rss");
    let mut cmd = if Path::new(GNU_TIME).exists() {
        let mut c = Command::new(GNU_TIME);
        c.args(["-f", "%M", "-o"]).arg(&rss_file).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let t0 = Instant::now();
    let child = cmd
        .arg("--host")
        .arg(dir.join("host"))
        .arg("--target")
        .arg(dir.join("target"))
        .arg("--run")
        .arg(run)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // wait4's rusage of one child has no safe wrapper in rustix or std.
    #[allow(unsafe_code)]
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waits for the child we spawned, with valid pointers.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_us = t0.elapsed().as_micros() as u64;
    assert_eq!(rc, pid);
    assert_eq!(status, 0, "ember-initrd failed in {}", dir.display());
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    // Without GNU time the figure is an upper bound (it may be this process's own peak).
    let max_rss_kib = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(usage.ru_maxrss as u64);
    Sample {
        wall_us,
        cpu_us: tv(usage.ru_utime) + tv(usage.ru_stime),
        max_rss_kib,
    }
}

pub fn median(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}
