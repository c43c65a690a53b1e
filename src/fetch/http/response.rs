//! The response: the status line and header lines within their budgets (skipping interim 1xx
//! heads), and the body framed by `Transfer-Encoding: chunked`, `Content-Length` or the end of
//! the stream, refused rather than truncated over its cap. Kept apart because this is the
//! parser that reads whatever a server sends: every limit on untrusted bytes lives here.

use super::{failed, Error};
use std::io::{self, BufRead, Read};

/// Budget of a response head (and of a chunked body's trailers): header lines and bytes.
const MAX_HEADERS: usize = 100;
const MAX_HEAD_BYTES: usize = 64 * 1024;

#[derive(Debug)]
pub(in crate::fetch) struct Head {
    pub status: u16,
    /// Names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Head {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One line (without CR LF) out of `budget` bytes.
fn line(r: &mut impl BufRead, budget: &mut usize) -> Result<String, Error> {
    let mut buf = Vec::new();
    let n = r.take(*budget as u64).read_until(b'\n', &mut buf)?;
    if !buf.ends_with(b"\n") {
        return Err(failed(if n == *budget {
            "response head or trailers too large"
        } else {
            "connection closed in the response head"
        }));
    }
    *budget -= n;
    buf.pop();
    if buf.ends_with(b"\r") {
        buf.pop();
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Header lines up to the empty line, at most `MAX_HEADERS` of them.
fn header_lines(r: &mut impl BufRead, budget: &mut usize) -> Result<Vec<(String, String)>, Error> {
    let mut headers = Vec::new();
    loop {
        let line = line(r, budget)?;
        if line.is_empty() {
            return Ok(headers);
        }
        if headers.len() == MAX_HEADERS {
            return Err(failed("more than 100 response headers"));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| failed("malformed response header"))?;
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) {
            return Err(failed("malformed response header"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
}

/// The status line and headers of the final response, skipping interim 1xx ones.
pub(in crate::fetch) fn read_head(r: &mut impl BufRead) -> Result<Head, Error> {
    let mut budget = MAX_HEAD_BYTES;
    loop {
        let status_line = line(r, &mut budget)?;
        let mut parts = status_line.splitn(3, ' ');
        let version = parts.next().unwrap_or_default();
        let code = parts.next().unwrap_or_default();
        if !version.starts_with("HTTP/1.")
            || code.len() != 3
            || !code.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(failed("malformed response status line"));
        }
        let status: u16 = code
            .parse()
            .map_err(|_| failed("malformed response status line"))?;
        let headers = header_lines(r, &mut budget)?;
        if !(100..200).contains(&status) {
            return Ok(Head { status, headers });
        }
    }
}

/// Fuzz entry (src/fuzz.rs): an answer's bytes as a server sends them, read as ember reads
/// one (interim 1xx heads, the final head, its body by length, chunks or the end) under a
/// small body cap, so the caps are reached too.
pub(in crate::fetch) fn fuzz(data: &[u8]) {
    let mut r = std::io::BufReader::new(data);
    if let Ok(head) = read_head(&mut r) {
        let _ = read_body(&mut r, &head, 4096);
    }
}

/// Appends at most `n` bytes to `body`, growing it to no more than `cap` bytes; returns the
/// count read (fewer than `n` only at the end of the stream).
fn append(r: &mut impl Read, body: &mut Vec<u8>, n: u64, cap: usize) -> Result<u64, Error> {
    let (mut buf, mut done) = ([0u8; 8192], 0u64);
    while done < n {
        let want = (n - done).min(buf.len() as u64) as usize;
        let got = match r.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if body.capacity() - body.len() < got {
            let grown = (body.len() * 2).max(body.len() + got).max(4096).min(cap);
            body.reserve_exact(grown.saturating_sub(body.len()).max(got));
        }
        body.extend_from_slice(&buf[..got]);
        done += got as u64;
    }
    Ok(done)
}

/// The body, framed by `Transfer-Encoding: chunked`, `Content-Length` or the end of the stream.
pub(in crate::fetch) fn read_body(
    r: &mut impl BufRead,
    head: &Head,
    max_bytes: u64,
) -> Result<Vec<u8>, Error> {
    let cap = usize::try_from(max_bytes.saturating_add(1)).unwrap_or(usize::MAX);
    let mut body = Vec::new();
    if head.status == 204 {
        return Ok(body);
    }
    if let Some(te) = head.get("transfer-encoding") {
        if !te.eq_ignore_ascii_case("chunked") {
            return Err(failed("unsupported transfer-encoding"));
        }
        return read_chunked(r, max_bytes, cap);
    }
    let lengths: Vec<&str> = head
        .headers
        .iter()
        .filter(|(n, _)| n == "content-length")
        .map(|(_, v)| v.as_str())
        .collect();
    if let Some(first) = lengths.first() {
        let len: u64 = match first.parse() {
            Ok(len)
                if first.bytes().all(|b| b.is_ascii_digit())
                    && lengths.iter().all(|l| l == first) =>
            {
                len
            }
            _ => return Err(failed("malformed content-length")),
        };
        if len > max_bytes {
            return Err(Error::TooLarge);
        }
        if append(r, &mut body, len, cap)? < len {
            return Err(failed("connection closed before the end of the body"));
        }
        return Ok(body);
    }
    append(r, &mut body, max_bytes.saturating_add(1), cap)?;
    if body.len() as u64 > max_bytes {
        return Err(Error::TooLarge);
    }
    Ok(body)
}

fn read_chunked(r: &mut impl BufRead, max_bytes: u64, cap: usize) -> Result<Vec<u8>, Error> {
    let mut body = Vec::new();
    loop {
        let mut budget = 1024;
        let size_line = line(r, &mut budget)?;
        let hex = size_line.split(';').next().unwrap_or_default().trim();
        let size = match u64::from_str_radix(hex, 16) {
            Ok(size) if hex.len() <= 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => size,
            _ => return Err(failed("malformed chunk size")),
        };
        if size == 0 {
            let mut budget = MAX_HEAD_BYTES;
            header_lines(r, &mut budget)?;
            return Ok(body);
        }
        if (body.len() as u64).saturating_add(size) > max_bytes {
            return Err(Error::TooLarge);
        }
        if append(r, &mut body, size, cap)? < size {
            return Err(failed("connection closed in a chunk"));
        }
        match line(r, &mut 2) {
            Ok(end) if end.is_empty() => {}
            Err(e @ Error::Transient(_)) => return Err(e),
            _ => return Err(failed("malformed chunk")),
        }
    }
}
