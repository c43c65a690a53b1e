//! A line channel to a host-side metadata agent: a serial port (the guest's second UART, in
//! raw mode: no echo, no line discipline, 8N1) or a unix socket (a SmartOS zone's). Reads wait
//! with `poll` under a monotonic deadline, lines are capped, and nothing read is logged: the
//! protocol above it (SmartOS, CloudSigma) decides what a line means. Not here: framing,
//! retries, and locking the port against other clients (the initramfs has none).

use crate::limits::Tally;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;
use rustix::termios::{self, OptionalActions};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why no line came.
#[derive(Debug)]
pub enum LineError {
    /// Nothing (or no end of line) before the deadline; how many bytes of a line had come.
    Timeout(usize),
    /// The other end closed.
    Closed,
    /// A line longer than the cap.
    TooLong(usize),
    /// The answers passed what the datasource may fetch in all (`datasource_bytes`).
    OverTotal(u64),
    Io(io::Error),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            LineError::Timeout(0) => write!(f, "no answer in time"),
            LineError::Timeout(n) => write!(f, "an answer cut short ({n} bytes, no end of line)"),
            LineError::Closed => write!(f, "the other end closed the channel"),
            LineError::TooLong(cap) => write!(f, "an answer longer than {cap} bytes"),
            LineError::OverTotal(limit) => write!(
                f,
                "past the {limit} bytes the datasource may fetch in all (datasource_bytes)"
            ),
            LineError::Io(e) => write!(f, "{e}"),
        }
    }
}

pub struct Channel {
    io: File,
    buf: Vec<u8>,
    max_line: usize,
    /// The datasource's: every line read is charged to it.
    tally: Option<Arc<Tally>>,
}

/// Opens a serial port as a metadata channel: non-blocking, not our controlling terminal, raw
/// at 115200 baud (a virtual UART ignores the speed; a real one on a hypervisor's side too).
pub fn open_serial(path: &Path, max_line: usize) -> io::Result<Channel> {
    let flags = OFlags::NOCTTY | OFlags::NONBLOCK;
    let io = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(flags.bits() as i32)
        .open(path)?;
    let mut tio = termios::tcgetattr(&io)?;
    tio.make_raw();
    tio.set_speed(115_200)?;
    termios::tcsetattr(&io, OptionalActions::Now, &tio)?;
    Ok(Channel::new(io, max_line))
}

/// Connects to a unix socket as a metadata channel.
pub fn open_socket(path: &Path, max_line: usize) -> io::Result<Channel> {
    let s = UnixStream::connect(path)?;
    s.set_nonblocking(true)?;
    Ok(Channel::new(
        File::from(std::os::fd::OwnedFd::from(s)),
        max_line,
    ))
}

impl Channel {
    fn new(io: File, max_line: usize) -> Channel {
        Channel {
            io,
            buf: Vec::new(),
            max_line,
            tally: None,
        }
    }

    /// Charges every later line to `tally` and caps lines at what is left of it.
    pub fn metered(mut self, tally: &Arc<Tally>) -> Channel {
        self.tally = Some(tally.clone());
        self
    }

    /// Waits for `flags` on the channel until `until`; false when the time ran out.
    fn wait(&self, flags: PollFlags, until: Instant) -> Result<bool, LineError> {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        let ts = Timespec {
            tv_sec: left.as_secs() as i64,
            tv_nsec: left.subsec_nanos() as i64,
        };
        let mut fds = [PollFd::new(&self.io, flags)];
        match poll(&mut fds, Some(&ts)) {
            Ok(0) => Ok(false),
            Ok(_) => Ok(true),
            Err(rustix::io::Errno::INTR) => Ok(true),
            Err(e) => Err(LineError::Io(e.into())),
        }
    }

    pub fn write_all(&mut self, mut bytes: &[u8], until: Instant) -> Result<(), LineError> {
        while !bytes.is_empty() {
            match self.io.write(bytes) {
                Ok(0) => return Err(LineError::Closed),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !self.wait(PollFlags::OUT, until)? {
                        return Err(LineError::Timeout(0));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(LineError::Io(e)),
            }
        }
        Ok(())
    }

    /// Reads what is there now, or waits until `until` for something; Ok(false) on timeout.
    fn fill(&mut self, until: Instant) -> Result<bool, LineError> {
        let mut chunk = [0u8; 4096];
        loop {
            match self.io.read(&mut chunk) {
                Ok(0) => return Err(LineError::Closed),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !self.wait(PollFlags::IN, until)? {
                        return Ok(false);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(LineError::Io(e)),
            }
        }
    }

    /// The next line, without its `\n` (and a `\r` before it), by `until`.
    pub fn read_line(&mut self, until: Instant) -> Result<Vec<u8>, LineError> {
        self.read_to(b"\n", until)
    }

    /// What comes before the first of the bytes `ends` (dropped, with a `\r` before it),
    /// by `until`.
    pub fn read_to(&mut self, ends: &[u8], until: Instant) -> Result<Vec<u8>, LineError> {
        // Bytes already looked at for an end: a long line arriving in small reads is scanned
        // once, not again with every read (rule 15: cost linear in the input).
        let mut scanned = 0;
        loop {
            // Every pass, not only when `fill` would wait: a peer that writes faster than we
            // read never lets it wait, and a caller that skips lines would loop for ever.
            if Instant::now() >= until {
                return Err(LineError::Timeout(self.buf.len()));
            }
            let found = self.buf[scanned..].iter().position(|b| ends.contains(b));
            if let Some(at) = found.map(|i| scanned + i) {
                let mut line: Vec<u8> = self.buf.drain(..=at).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if let Some(tally) = &self.tally {
                    tally.charge(at + 1);
                }
                return Ok(line);
            }
            let (cap, capped) = match &self.tally {
                Some(tally) => tally.cap(self.max_line as u64),
                None => (self.max_line as u64, false),
            };
            if self.buf.len() as u64 > cap {
                self.buf.clear();
                return Err(match (capped, &self.tally) {
                    (true, Some(tally)) => LineError::OverTotal(tally.limit()),
                    _ => LineError::TooLong(self.max_line),
                });
            }
            scanned = self.buf.len();
            if !self.fill(until)? {
                return Err(LineError::Timeout(self.buf.len()));
            }
        }
    }

    /// Throws away what is waiting, until the line has been quiet for `quiet` (or `until`):
    /// answers to a client that gave up earlier must not be taken for ours.
    pub fn discard_pending(&mut self, quiet: Duration, until: Instant) -> Result<(), LineError> {
        self.buf.clear();
        loop {
            let by = (Instant::now() + quiet).min(until);
            if !self.fill(by)? {
                self.buf.clear();
                return Ok(());
            }
            self.buf.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (Channel, UnixStream) {
        let (a, b) = UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let ch = Channel::new(File::from(std::os::fd::OwnedFd::from(a)), 16);
        (ch, b)
    }

    #[test]
    fn lines_are_split_capped_and_timed() {
        let (mut ch, mut peer) = pair();
        peer.write_all(b"V2_OK\r\nsecond\npart").unwrap();
        let soon = || Instant::now() + Duration::from_millis(200);
        assert_eq!(ch.read_line(soon()).unwrap(), b"V2_OK");
        assert_eq!(ch.read_line(soon()).unwrap(), b"second");
        peer.write_all(b"{}\x04\n").unwrap();
        assert_eq!(ch.read_to(b"\n\x04", soon()).unwrap(), b"part{}");
        assert_eq!(ch.read_line(soon()).unwrap(), b"");
        peer.write_all(b"part").unwrap();
        assert!(matches!(ch.read_line(soon()), Err(LineError::Timeout(4))));
        peer.write_all(&[b'x'; 40]).unwrap();
        assert!(matches!(ch.read_line(soon()), Err(LineError::TooLong(16))));
        ch.write_all(b"hi\n", soon()).unwrap();
        let mut got = [0u8; 3];
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hi\n");
        drop(peer);
        assert!(matches!(ch.read_line(soon()), Err(LineError::Closed)));
    }

    /// A peer that writes faster than we read never lets `fill` wait, so the deadline must be
    /// checked on every pass, whatever is waiting: a caller that skips lines (another
    /// request's answers, `invalid command`) stops at its deadline. The socket's buffer is
    /// filled before the deadline passes: a flood the reader can never catch up with.
    #[test]
    fn lines_waiting_past_the_deadline_are_not_read() {
        let (mut ch, mut peer) = pair();
        peer.set_nonblocking(true).unwrap();
        let lines = b"noise\n".repeat(512);
        let mut sent = 0;
        while let Ok(n) = peer.write(&lines) {
            sent += n;
        }
        let until = Instant::now();
        let mut read = 0;
        let end = loop {
            match ch.read_line(until) {
                Ok(_) => read += 1,
                other => break other,
            }
        };
        assert!(matches!(end, Err(LineError::Timeout(_))), "{end:?}");
        assert_eq!(
            read, 0,
            "lines read past the deadline, of {sent} bytes waiting"
        );
    }

    #[test]
    fn pending_answers_are_discarded() {
        let (mut ch, mut peer) = pair();
        peer.write_all(b"stale 1\nstale 2\n").unwrap();
        let until = Instant::now() + Duration::from_secs(1);
        ch.discard_pending(Duration::from_millis(50), until)
            .unwrap();
        peer.write_all(b"fresh\n").unwrap();
        assert_eq!(ch.read_line(until).unwrap(), b"fresh");
    }
}
