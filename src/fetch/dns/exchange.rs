//! One server asked for one name: the A and AAAA queries sent together over one UDP socket
//! (connected, so only that server's datagrams arrive; the kernel picks a random source port),
//! random ids, answers matched by id and question, and a truncated answer asked again over
//! TCP; or both over TCP (`ask_tcp`) where UDP went unanswered. Everything ends by the
//! caller's `until`.

use super::wire::{self, Answer, A, AAAA};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

/// Once one family's addresses are in, how long the other's answer is waited for: a server
/// that drops AAAA queries must not cost the whole try.
const OTHER_WAIT: Duration = Duration::from_millis(300);

fn random_ids() -> [u16; 2] {
    let mut b = [0u8; 4];
    // Without getrandom (never on Linux 3.17 and later) the clock still varies the ids.
    if rustix::rand::getrandom(&mut b, rustix::rand::GetRandomFlags::empty()).is_err() {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        b = now.map_or(0, |d| d.subsec_nanos()).to_le_bytes();
    }
    let (first, second) = (
        u16::from_le_bytes([b[0], b[1]]),
        u16::from_le_bytes([b[2], b[3]]),
    );
    [first, if second == first { !first } else { second }]
}

fn left(until: Instant) -> io::Result<Duration> {
    Some(until.saturating_duration_since(Instant::now()))
        .filter(|d| !d.is_zero())
        .ok_or_else(|| io::ErrorKind::TimedOut.into())
}

fn why(e: io::Error) -> String {
    match e.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => "timed out".into(),
        _ => e.to_string(),
    }
}

/// `name`'s addresses from `server` (IPv4 first), or what it said instead (`NoName`,
/// `NoData`); `Err` when it gave no usable answer by `until`.
pub fn ask(server: SocketAddr, name: &str, until: Instant) -> Result<Answer, String> {
    let ids = random_ids();
    let types = [A, AAAA];
    let mut queries = Vec::new();
    for (id, t) in ids.iter().zip(types) {
        queries.push(wire::query(*id, name, t).ok_or("not a valid host name")?);
    }
    let any: IpAddr = match server {
        SocketAddr::V4(_) => Ipv4Addr::UNSPECIFIED.into(),
        SocketAddr::V6(_) => Ipv6Addr::UNSPECIFIED.into(),
    };
    let sock = UdpSocket::bind((any, 0)).map_err(why)?;
    sock.connect(server).map_err(why)?;
    for q in &queries {
        sock.send(q).map_err(why)?;
    }
    let mut got: [Option<Result<Answer, String>>; 2] = [None, None];
    let mut until = until;
    let mut buf = [0u8; 4096];
    while got.iter().any(Option::is_none) {
        let n = match left(until).and_then(|t| {
            sock.set_read_timeout(Some(t))?;
            sock.recv(&mut buf)
        }) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                ) =>
            {
                break
            }
            // Refused (an ICMP port unreachable) and the like: this server will not answer.
            Err(e) => return Err(why(e)),
        };
        for i in 0..2 {
            let Some(a) = got[i]
                .is_none()
                .then(|| wire::answer(&buf[..n], ids[i], name, types[i]))
                .flatten()
            else {
                continue;
            };
            let a = match a {
                Answer::Truncated => over_tcp(server, &queries[i], ids[i], name, types[i], until),
                Answer::Failed(code) => Err(failed(code)),
                a => Ok(a),
            };
            if matches!(a, Ok(Answer::Addresses(_))) {
                until = until.min(Instant::now() + OTHER_WAIT);
            }
            got[i] = Some(a);
        }
    }
    combine(got)
}

/// `ask` over TCP only, one connection per type: for a server whose UDP went unanswered (a
/// network that drops UDP, such as QEMU's restricted user network, still carries TCP, which
/// every DNS server speaks, RFC 7766).
pub fn ask_tcp(server: SocketAddr, name: &str, until: Instant) -> Result<Answer, String> {
    let ids = random_ids();
    let mut got = [None, None];
    for (i, t) in [A, AAAA].into_iter().enumerate() {
        let q = wire::query(ids[i], name, t).ok_or("not a valid host name")?;
        got[i] = Some(over_tcp(server, &q, ids[i], name, t, until));
    }
    combine(got)
}

/// Both families' answers as one: any addresses (IPv4 first), else NXDOMAIN, else "no
/// address" when both said so, else the first failure.
fn combine(got: [Option<Result<Answer, String>>; 2]) -> Result<Answer, String> {
    let mut found = Vec::new();
    for a in got.iter().flatten() {
        if let Ok(Answer::Addresses(ips)) = a {
            found.extend_from_slice(ips);
        }
    }
    if !found.is_empty() {
        return Ok(Answer::Addresses(found));
    }
    if got.iter().any(|a| matches!(a, Some(Ok(Answer::NoName)))) {
        return Ok(Answer::NoName);
    }
    if got.iter().all(|a| matches!(a, Some(Ok(Answer::NoData)))) {
        return Ok(Answer::NoData);
    }
    let failure = got.into_iter().flatten().find_map(Result::err);
    Err(failure.unwrap_or_else(|| "timed out".into()))
}

/// The query again over TCP (RFC 1035 §4.2.2: a two-byte length before each message).
fn over_tcp(
    server: SocketAddr,
    query: &[u8],
    id: u16,
    name: &str,
    qtype: u16,
    until: Instant,
) -> Result<Answer, String> {
    let tcp = |e: io::Error| format!("over TCP: {}", why(e));
    let mut s = TcpStream::connect_timeout(&server, left(until).map_err(tcp)?).map_err(tcp)?;
    s.set_write_timeout(Some(left(until).map_err(tcp)?))
        .map_err(tcp)?;
    let mut msg = (query.len() as u16).to_be_bytes().to_vec();
    msg.extend_from_slice(query);
    s.write_all(&msg).map_err(tcp)?;
    let mut len = [0u8; 2];
    read_full(&mut s, &mut len, until).map_err(tcp)?;
    let mut body = vec![0u8; u16::from_be_bytes(len) as usize];
    read_full(&mut s, &mut body, until).map_err(tcp)?;
    match wire::answer(&body, id, name, qtype) {
        Some(Answer::Truncated) | None => Err("a malformed answer over TCP".into()),
        Some(Answer::Failed(code)) => Err(failed(code)),
        Some(a) => Ok(a),
    }
}

/// Fills `buf`, each read bounded by what is left, so a dripping server meets `until`.
fn read_full(s: &mut TcpStream, buf: &mut [u8], until: Instant) -> io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        s.set_read_timeout(Some(left(until)?))?;
        match s.read(&mut buf[filled..])? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => filled += n,
        }
    }
    Ok(())
}

fn failed(code: u8) -> String {
    match code {
        2 => "server failure (SERVFAIL)".into(),
        5 => "refused the query (REFUSED)".into(),
        _ => format!("answered with response code {code}"),
    }
}
