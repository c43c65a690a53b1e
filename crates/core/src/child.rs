//! Running an external command with a deadline and an output budget (RELIABILITY rule 15): a
//! platform tool (VMware's `vmware-rpctool`, WSL's `wslpath`), a disk tool, a network reload.
//! The child gets its own process group, so a deadline or a flood ends it and whatever it
//! started; its output is read as it comes (a pipe left full would stall it) and counted. Not
//! for the user's own commands (`runcmd`, scripts), which cloud-init lets run as long as they
//! take, and not for deciding what a command's output means.

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{kill_process_group, pidfd_open, Pid, PidfdFlags, Signal};
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a command may run and how much it may print (stdout and stderr together).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub deadline: Duration,
    pub max_output: usize,
}

/// Why a command gave no output to use. The messages name neither its arguments nor what it
/// printed (either may be user-data).
#[derive(Debug)]
pub enum ChildError {
    Start(io::Error),
    /// Still running at its deadline: killed, with its process group.
    Deadline(Duration),
    /// Printed more than its budget: killed, with its process group.
    TooMuchOutput(usize),
    Io(io::Error),
}

impl std::fmt::Display for ChildError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            ChildError::Start(e) => write!(f, "could not be started: {e}"),
            ChildError::Deadline(d) => {
                write!(
                    f,
                    "still running at its deadline of {} s: killed",
                    d.as_secs_f32()
                )
            }
            ChildError::TooMuchOutput(n) => {
                write!(f, "printed past its output budget of {n} bytes: killed")
            }
            ChildError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Runs `cmd` (standard input from /dev/null) within `bounds`: its exit status and output.
pub fn output(cmd: &mut Command, bounds: Bounds) -> Result<Output, ChildError> {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(ChildError::Start)?;
    Running::new(child, bounds).finish()
}

/// What [`capture`] read of a command's standard output, and why it was cut, if it was.
#[derive(Debug)]
pub struct Captured {
    /// At most `bounds.max_output` bytes.
    pub stdout: Vec<u8>,
    /// The deadline, the budget or a read error that ended it early (the child killed).
    pub cut: Option<ChildError>,
}

/// Runs `cmd` (standard input and error on /dev/null) within `bounds` and keeps what it
/// printed even when it was killed: for a report that wants what a tool said so far (the
/// kernel log, the journal). `Err` only when it could not be started.
pub fn capture(cmd: &mut Command, bounds: Bounds) -> Result<Captured, ChildError> {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(ChildError::Start)?;
    let mut run = Running::new(child, bounds);
    let cut = run.collect().err();
    if cut.is_some() {
        kill(&mut run.child);
    }
    let mut stdout = run.out;
    stdout.truncate(bounds.max_output);
    Ok(Captured { stdout, cut })
}

/// Runs `cmd` within `bounds.deadline`, its output going where `cmd` sends it (the console,
/// /dev/null): for a command whose output nobody reads, which may leave daemons behind
/// (`ifup -a` starts a DHCP client) that must keep running after it.
pub fn status(cmd: &mut Command, deadline: Duration) -> Result<ExitStatus, ChildError> {
    let mut child = cmd
        .stdin(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(ChildError::Start)?;
    let until = Instant::now() + deadline;
    let exit = exit_fd(&child);
    loop {
        if let Some(status) = child.try_wait().map_err(ChildError::Io)? {
            return Ok(status);
        }
        if !wait_for(Vec::new(), exit.as_ref(), until)? {
            kill(&mut child);
            return Err(ChildError::Deadline(deadline));
        }
    }
}

/// Reads a running user command's stdout and stderr as they come, handing each chunk to
/// `sink`, with no deadline (cloud-init lets `runcmd` and scripts run as long as they take).
/// It ends when the child exits and its pipes hold nothing more: a daemon the command left in
/// the background still holding the pipes does not hold the stage (cloud-init waits for its
/// child, not for the pipe's end).
pub fn stream(child: &mut Child, mut sink: impl FnMut(&[u8])) -> Result<ExitStatus, ChildError> {
    let mut pipes: [Option<std::fs::File>; 2] = [
        child
            .stdout
            .take()
            .map(|p| rustix::fd::OwnedFd::from(p).into()),
        child
            .stderr
            .take()
            .map(|p| rustix::fd::OwnedFd::from(p).into()),
    ];
    for pipe in pipes.iter().flatten() {
        rustix::io::ioctl_fionbio(pipe, true).map_err(|e| ChildError::Io(e.into()))?;
    }
    let exit = exit_fd(child);
    let mut got = Vec::new();
    loop {
        let exited = child.try_wait().map_err(ChildError::Io)?;
        for pipe in &mut pipes {
            drain(pipe, &mut got)?;
            if !got.is_empty() {
                sink(&got);
                got.clear();
            }
        }
        if let Some(status) = exited {
            return Ok(status);
        }
        let fds = pipes
            .iter()
            .flatten()
            .map(|p| PollFd::new(p, PollFlags::IN))
            .collect();
        // A day at a time: the wait has no end of its own.
        wait_for(
            fds,
            exit.as_ref(),
            Instant::now() + Duration::from_secs(86_400),
        )?;
    }
}

struct Running {
    child: Child,
    bounds: Bounds,
    until: Instant,
    out: Vec<u8>,
    err: Vec<u8>,
}

impl Running {
    fn new(child: Child, bounds: Bounds) -> Running {
        Running {
            child,
            bounds,
            until: Instant::now() + bounds.deadline,
            out: Vec::new(),
            err: Vec::new(),
        }
    }

    fn finish(mut self) -> Result<Output, ChildError> {
        let result = self.collect();
        if result.is_err() {
            kill(&mut self.child);
        }
        let status = result?;
        Ok(Output {
            status,
            stdout: self.out,
            stderr: self.err,
        })
    }

    /// Reads both pipes until the child has exited and they are drained; a pipe a grandchild
    /// still holds open after the child exited is not waited for.
    fn collect(&mut self) -> Result<ExitStatus, ChildError> {
        let mut stdout = self.child.stdout.take();
        let mut stderr = self.child.stderr.take();
        for pipe in [
            stdout.as_ref().map(AsFd::as_fd),
            stderr.as_ref().map(AsFd::as_fd),
        ]
        .into_iter()
        .flatten()
        {
            rustix::io::ioctl_fionbio(pipe, true).map_err(|e| ChildError::Io(e.into()))?;
        }
        let exit = exit_fd(&self.child);
        loop {
            let exited = self.child.try_wait().map_err(ChildError::Io)?;
            drain(&mut stdout, &mut self.out)?;
            drain(&mut stderr, &mut self.err)?;
            let total = self.out.len() + self.err.len();
            if total > self.bounds.max_output {
                return Err(ChildError::TooMuchOutput(self.bounds.max_output));
            }
            if let Some(status) = exited {
                return Ok(status);
            }
            let fds: Vec<PollFd> = [
                stdout.as_ref().map(AsFd::as_fd),
                stderr.as_ref().map(AsFd::as_fd),
            ]
            .into_iter()
            .flatten()
            .map(|p| PollFd::from_borrowed_fd(p, PollFlags::IN))
            .collect();
            if !wait_for(fds, exit.as_ref(), self.until)? {
                return Err(ChildError::Deadline(self.bounds.deadline));
            }
        }
    }
}

/// Reads what `pipe` holds now into `into`; at its end the pipe is closed (set to `None`).
fn drain<R: Read>(pipe: &mut Option<R>, into: &mut Vec<u8>) -> Result<(), ChildError> {
    let Some(p) = pipe else { return Ok(()) };
    let mut chunk = [0u8; 8192];
    loop {
        match p.read(&mut chunk) {
            Ok(0) => {
                *pipe = None;
                return Ok(());
            }
            Ok(n) => into.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ChildError::Io(e)),
        }
    }
}

/// A descriptor that becomes readable when the child exits (Linux 5.3's pidfd); without one,
/// the wait below wakes every 20 ms to look.
fn exit_fd(child: &Child) -> Option<rustix::fd::OwnedFd> {
    pidfd_open(Pid::from_child(child), PidfdFlags::empty()).ok()
}

/// Waits for `fds` or the child's exit until `until`; false once it has passed.
fn wait_for<'a>(
    mut fds: Vec<PollFd<'a>>,
    exit: Option<&'a rustix::fd::OwnedFd>,
    until: Instant,
) -> Result<bool, ChildError> {
    let left = until.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Ok(false);
    }
    let left = match exit {
        Some(fd) => {
            fds.push(PollFd::new(fd, PollFlags::IN));
            left
        }
        None => left.min(Duration::from_millis(20)),
    };
    let ts = Timespec {
        tv_sec: left.as_secs() as i64,
        tv_nsec: left.subsec_nanos() as i64,
    };
    match poll(&mut fds, Some(&ts)) {
        Ok(_) | Err(rustix::io::Errno::INTR) => Ok(true),
        Err(e) => Err(ChildError::Io(e.into())),
    }
}

/// Kills the child's process group (it leads it) and reaps the child.
fn kill(child: &mut Child) {
    let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    const SHORT: Bounds = Bounds {
        deadline: Duration::from_millis(500),
        max_output: 1 << 20,
    };

    #[test]
    fn output_and_status_come_back_whole() {
        let out = output(&mut sh("printf out; printf err >&2; exit 3"), SHORT).unwrap();
        assert_eq!(
            (out.stdout.as_slice(), out.stderr.as_slice()),
            (&b"out"[..], &b"err"[..])
        );
        assert_eq!(out.status.code(), Some(3));
        // More than a pipe holds, read as it comes.
        let big = output(&mut sh("head -c 300000 /dev/zero"), SHORT).unwrap();
        assert_eq!(big.stdout.len(), 300_000);
    }

    /// Expected: a command that hangs, or leaves a grandchild that hangs holding the pipe, is
    /// killed at its deadline with its whole process group; one that floods is killed at its
    /// budget; a grandchild holding the pipe after the command exited is not waited for.
    #[test]
    fn hangs_and_floods_end_at_their_bounds() {
        let started = Instant::now();
        let hung = output(&mut sh("sleep 30"), SHORT);
        assert!(matches!(hung, Err(ChildError::Deadline(_))), "{hung:?}");
        let flood = output(&mut sh("yes"), SHORT);
        assert!(
            matches!(flood, Err(ChildError::TooMuchOutput(_))),
            "{flood:?}"
        );
        let left = output(&mut sh("sleep 3 & echo started"), SHORT).unwrap();
        assert_eq!(left.stdout, b"started\n");
        let st = status(&mut sh("sleep 30"), Duration::from_millis(300));
        assert!(matches!(st, Err(ChildError::Deadline(_))), "{st:?}");
        assert!(status(&mut sh("exit 0"), SHORT.deadline).unwrap().success());
        // What came before the cut is kept, at most the budget.
        let small = Bounds {
            deadline: SHORT.deadline,
            max_output: 1000,
        };
        let got = capture(&mut sh("yes"), small).unwrap();
        assert_eq!(got.stdout.len(), 1000);
        assert!(matches!(got.cut, Some(ChildError::TooMuchOutput(1000))));
        let got = capture(&mut sh("echo a; sleep 30"), SHORT).unwrap();
        assert_eq!(got.stdout, b"a\n");
        assert!(
            matches!(got.cut, Some(ChildError::Deadline(_))),
            "{:?}",
            got.cut
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    /// Expected: `stream` hands over everything the command printed on both pipes, and ends
    /// at the command's exit although a daemon it left behind holds the pipes for 30 s.
    #[test]
    fn stream_ends_at_the_commands_exit_not_its_daemons() {
        let started = Instant::now();
        let mut child = sh("echo out; echo err >&2; sleep 30 & exit 4")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut seen = Vec::new();
        let status = stream(&mut child, |b| seen.extend_from_slice(b)).unwrap();
        assert_eq!(status.code(), Some(4));
        let mut lines: Vec<&str> = std::str::from_utf8(&seen).unwrap().lines().collect();
        lines.sort();
        assert_eq!(lines, ["err", "out"]);
        assert!(started.elapsed() < Duration::from_secs(10));
        // More than a pipe holds, in order.
        let mut child = sh("seq 1 100000").stdout(Stdio::piped()).spawn().unwrap();
        let mut seen = Vec::new();
        stream(&mut child, |b| seen.extend_from_slice(b)).unwrap();
        let text = String::from_utf8(seen).unwrap();
        assert_eq!(text.lines().count(), 100_000);
        assert_eq!(text.lines().last(), Some("100000"));
    }
}
