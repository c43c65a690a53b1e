//! An external command whose output is the answer (the kernel log, the journal), run with a
//! deadline and an output budget (RELIABILITY rule 15): in its own process group, stdin and
//! stderr closed, stdout read by a thread up to the budget; at the deadline or the budget the
//! whole group is killed and what was read is kept. Not here: commands whose output goes to
//! the console and the output log (`exec.rs`).

use rustix::process::{kill_process_group, Pid, Signal};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Why a command's output was cut short.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Cut {
    /// It printed more than the budget.
    Budget,
    /// It had not ended at the deadline.
    Deadline,
}

pub struct Captured {
    /// At most the budget.
    pub stdout: Vec<u8>,
    pub cut: Option<Cut>,
}

/// How often a live child is looked at while its output is quiet.
const POLL: Duration = Duration::from_millis(20);
/// After a kill, how long the reader may take to see the pipe's end (a process that left
/// the group can hold it open for ever; its output is then left out).
const DRAIN: Duration = Duration::from_secs(1);

/// Runs `cmd` and returns its stdout, cut at `max_bytes` or at `deadline` from now.
/// `Err` only when it could not be started.
pub fn capture(
    cmd: &mut Command,
    deadline: Duration,
    max_bytes: usize,
) -> std::io::Result<Captured> {
    let end = Instant::now() + deadline;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    let group = Pid::from_child(&child);
    let mut pipe = child.stdout.take().expect("stdout is piped");
    let out = Arc::new(Mutex::new(Vec::new()));
    let (done, finished) = mpsc::channel();
    let shared = out.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 64 << 10];
        let over = loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break false,
                Ok(n) => {
                    let mut kept = shared.lock().unwrap_or_else(|e| e.into_inner());
                    let room = max_bytes - kept.len();
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    if n > room {
                        break true;
                    }
                }
            }
        };
        let _ = done.send(over);
    });
    let mut cut = match finished.recv_timeout(end.saturating_duration_since(Instant::now())) {
        Ok(true) => Some(Cut::Budget),
        Ok(false) => None,
        Err(_) => Some(Cut::Deadline),
    };
    if cut.is_none() {
        // The output ended; the process may still linger.
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < end => std::thread::sleep(POLL),
                _ => {
                    cut = Some(Cut::Deadline);
                    break;
                }
            }
        }
    }
    if cut.is_some() {
        let _ = kill_process_group(group, Signal::KILL);
        let _ = child.wait();
        if cut == Some(Cut::Deadline) {
            let _ = finished.recv_timeout(DRAIN);
        }
    }
    let stdout = std::mem::take(&mut *out.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(Captured { stdout, cut })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_that_flood_or_never_end_are_cut_and_the_group_killed() {
        let sh = |script: &str| {
            let mut c = Command::new("/bin/sh");
            c.args(["-c", script]);
            c
        };
        let got = capture(&mut sh("echo hi"), Duration::from_secs(10), 100).unwrap();
        assert_eq!((got.stdout.as_slice(), got.cut), (&b"hi\n"[..], None));

        let got = capture(&mut sh("yes"), Duration::from_secs(10), 1000).unwrap();
        assert_eq!((got.stdout.len(), got.cut), (1000, Some(Cut::Budget)));

        // A grandchild holding the pipe ends with the group, not after its minute.
        let start = Instant::now();
        let got = capture(
            &mut sh("echo a; sleep 60 & sleep 60"),
            Duration::from_millis(300),
            100,
        )
        .unwrap();
        assert_eq!(
            (got.stdout.as_slice(), got.cut),
            (&b"a\n"[..], Some(Cut::Deadline))
        );
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
