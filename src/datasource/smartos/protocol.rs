//! The Joyent metadata protocol, version 2, as cloud-init's JoyentMetadataClient speaks it:
//! `NEGOTIATE V2` (answered `V2_OK`), then one framed request per key, `V2 <length> <crc32>
//! <request id> GET <base64 key>`, answered `V2 <length> <crc32> <request id> SUCCESS
//! <base64 value>` or `… NOTFOUND`; the length and CRC-32 (lower-case hex) cover the body
//! after them. On a serial port the line is first drained and probed with an empty line
//! (answered `invalid command`). Values never reach a diagnostic. Not here: `PUT`, `DELETE`
//! and version 1 of the protocol (cloud-init does not speak it either).
//! <https://eng.tritondatacenter.com/mdata/protocol.html>

use crate::datasource::common::serial::{Channel, LineError};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use std::time::{Duration, Instant};

/// What one request got.
#[derive(Debug, PartialEq)]
pub enum Reply {
    Value(Vec<u8>),
    NotFound,
}

/// Why a frame was not a usable answer.
#[derive(Debug, PartialEq)]
pub enum FrameError {
    /// Not `V2 <length> <crc> <id> <status> [payload]`.
    Malformed,
    Length {
        said: usize,
        was: usize,
    },
    Checksum {
        said: String,
        was: String,
    },
    /// A status other than SUCCESS and NOTFOUND (the agent's `FAILURE`).
    Status(String),
    Payload,
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            FrameError::Malformed => write!(f, "an answer that is not a V2 frame"),
            FrameError::Length { said, was } => {
                write!(f, "a frame whose length says {said} but has {was} bytes")
            }
            FrameError::Checksum { said, was } => {
                write!(f, "a frame whose CRC-32 says {said} but is {was}")
            }
            FrameError::Status(s) => write!(f, "the status {s}"),
            FrameError::Payload => write!(f, "a value that is not base64"),
        }
    }
}

pub fn crc32_hex(body: &str) -> String {
    let mut c = flate2::Crc::new();
    c.update(body.as_bytes());
    format!("{:08x}", c.sum())
}

/// The request line for `op` (`GET`, `KEYS`) with its argument, base64-encoded.
pub fn request(id: &str, op: &str, arg: Option<&str>) -> String {
    let mut body = format!("{id} {op}");
    if let Some(a) = arg {
        body.push(' ');
        body.push_str(&B64.encode(a));
    }
    format!("V2 {} {} {body}\n", body.len(), crc32_hex(&body))
}

/// Reads a reply frame: its request id and what it says.
pub fn parse(line: &str) -> Result<(String, Result<Reply, FrameError>), FrameError> {
    let rest = line.strip_prefix("V2 ").ok_or(FrameError::Malformed)?;
    let (len, rest) = rest.split_once(' ').ok_or(FrameError::Malformed)?;
    let (crc, body) = rest.split_once(' ').ok_or(FrameError::Malformed)?;
    let said: usize = len.parse().map_err(|_| FrameError::Malformed)?;
    if said != body.len() {
        return Err(FrameError::Length {
            said,
            was: body.len(),
        });
    }
    let was = crc32_hex(body);
    if crc != was {
        let said = crc.chars().take(8).collect();
        return Err(FrameError::Checksum { said, was });
    }
    let mut parts = body.splitn(3, ' ');
    let id = parts.next().unwrap_or_default().to_string();
    let status = parts.next().ok_or(FrameError::Malformed)?;
    let payload = parts.next();
    let reply = match status {
        "NOTFOUND" => Ok(Reply::NotFound),
        "SUCCESS" => match payload {
            None | Some("") => Ok(Reply::Value(Vec::new())),
            Some(p) => B64
                .decode(p)
                .map(Reply::Value)
                .map_err(|_| FrameError::Payload),
        },
        other => Err(FrameError::Status(other.chars().take(20).collect())),
    };
    Ok((id, reply))
}

/// Why a request failed: the channel, or the frame.
#[derive(Debug)]
pub enum Failure {
    Channel(LineError),
    Frame(FrameError),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Failure::Channel(e) => e.fmt(f),
            Failure::Frame(e) => e.fmt(f),
        }
    }
}

/// A session with the agent: requests are one at a time, each waited for `per_reply`,
/// all by `until`.
pub struct Client {
    pub chan: Channel,
    pub per_reply: Duration,
    pub until: Instant,
    /// Requests sent, for status.
    pub sent: u32,
}

impl Client {
    fn by(&self) -> Instant {
        (Instant::now() + self.per_reply).min(self.until)
    }

    fn line(&mut self) -> Result<String, Failure> {
        let by = self.by();
        let bytes = self.chan.read_line(by).map_err(Failure::Channel)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn send(&mut self, text: &str) -> Result<(), Failure> {
        self.sent += 1;
        let by = self.by();
        self.chan
            .write_all(text.as_bytes(), by)
            .map_err(Failure::Channel)
    }

    /// A serial line may hold the answers to a client that gave up: drain it, then send empty
    /// lines until the agent says `invalid command` (it answers `FAILURE` while busy).
    pub fn probe(&mut self) -> Result<(), Failure> {
        let until = self.until;
        let quiet = Duration::from_millis(100);
        self.chan
            .discard_pending(quiet, until)
            .map_err(Failure::Channel)?;
        loop {
            self.send("\n")?;
            match self.line() {
                Ok(l) if l == "invalid command" => return Ok(()),
                Ok(_) | Err(Failure::Channel(LineError::Timeout(_))) if Instant::now() < until => {}
                Ok(l) => return Err(Failure::Frame(FrameError::Status(l))),
                Err(e) => return Err(e),
            }
        }
    }

    /// Agrees on version 2. Late answers to the probe's earlier empty lines may come first.
    pub fn negotiate(&mut self) -> Result<(), Failure> {
        self.send("NEGOTIATE V2\n")?;
        loop {
            match self.line()? {
                l if l == "V2_OK" => return Ok(()),
                l if l == "invalid command" => {}
                l => {
                    let status = l.chars().take(20).collect();
                    return Err(Failure::Frame(FrameError::Status(status)));
                }
            }
        }
    }

    /// One request and its answer. A frame for another request id (the late answer to one
    /// that timed out) is skipped rather than taken for this one's.
    pub fn ask(&mut self, op: &str, arg: Option<&str>) -> Result<Reply, Failure> {
        let id = request_id();
        self.send(&request(&id, op, arg))?;
        loop {
            let line = self.line()?;
            let (got, reply) = parse(&line).map_err(Failure::Frame)?;
            if got == id {
                return reply.map_err(Failure::Frame);
            }
        }
    }
}

/// Eight random hex digits, as cloud-init's request ids.
fn request_id() -> String {
    let mut b = [0u8; 4];
    let _ = rustix::rand::getrandom(&mut b, rustix::rand::GetRandomFlags::empty());
    format!("{:08x}", u32::from_be_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_framed_with_length_and_crc() {
        // The body `dc4fae17 GET aG9zdG5hbWU=` is 25 bytes; its CRC-32 as zlib computes it.
        let r = request("dc4fae17", "GET", Some("hostname"));
        assert_eq!(r, "V2 25 59f28311 dc4fae17 GET aG9zdG5hbWU=\n");
        assert_eq!(
            request("00000001", "KEYS", None),
            "V2 13 f29aef38 00000001 KEYS\n"
        );
    }

    #[test]
    fn replies_are_checked() {
        let frame = |body: &str| format!("V2 {} {} {body}", body.len(), crc32_hex(body));
        let ok = frame("dc4fae17 SUCCESS aGVsbG8=");
        assert_eq!(
            parse(&ok).unwrap(),
            ("dc4fae17".into(), Ok(Reply::Value(b"hello".to_vec())))
        );
        let nf = frame("dc4fae17 NOTFOUND");
        assert_eq!(parse(&nf).unwrap().1, Ok(Reply::NotFound));
        let fail = frame("dc4fae17 FAILURE");
        assert_eq!(
            parse(&fail).unwrap().1,
            Err(FrameError::Status("FAILURE".into()))
        );
        let bad64 = frame("dc4fae17 SUCCESS !!!");
        assert_eq!(parse(&bad64).unwrap().1, Err(FrameError::Payload));
        let crc = ok.replacen(&crc32_hex("dc4fae17 SUCCESS aGVsbG8="), "00000000", 1);
        assert!(matches!(parse(&crc), Err(FrameError::Checksum { .. })));
        let len = ok.replacen("V2 25", "V2 24", 1);
        assert_eq!(parse(&len), Err(FrameError::Length { said: 24, was: 25 }));
        for bad in ["", "V2", "V2 x y z", "invalid command", "V1 SUCCESS"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn late_probe_answers_do_not_spoil_the_negotiation() {
        use std::io::{Read, Write};
        let dir = std::env::temp_dir().join(format!("ember-mdata-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("agent.sock");
        let _ = std::fs::remove_file(&path);
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        // An agent that answers the first empty line only after the second came.
        let agent = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut seen = Vec::new();
            let mut b = [0u8; 64];
            while seen.iter().filter(|c| **c == b'\n').count() < 2 {
                let n = s.read(&mut b).unwrap();
                seen.extend_from_slice(&b[..n]);
            }
            s.write_all(b"invalid command\ninvalid command\n").unwrap();
            let mut neg = [0u8; 13];
            s.read_exact(&mut neg).unwrap();
            assert_eq!(&neg, b"NEGOTIATE V2\n");
            s.write_all(b"V2_OK\n").unwrap();
        });
        let chan = crate::datasource::common::serial::open_socket(&path, 1024).unwrap();
        let mut c = Client {
            chan,
            per_reply: Duration::from_millis(200),
            until: Instant::now() + Duration::from_secs(5),
            sent: 0,
        };
        c.probe().unwrap();
        c.negotiate().unwrap();
        agent.join().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
