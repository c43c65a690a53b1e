//! Host names to addresses for the HTTP client, without glibc's NSS (a static binary cannot
//! load it, and the initramfs has no resolv.conf for ember's own lease): `/etc/hosts` if
//! present, else a stub resolver asking A and AAAA of the DNS servers of ember's lease, then
//! of `/etc/resolv.conf`, then of the kernel command line (`nameserver=`, the DNS fields of
//! `ip=`): over UDP (TCP when truncated) and, in the last round, over TCP. Every try ends by
//! the request's deadline; a resolver remembers its answers (one fetcher's life).
//! `wire` holds the messages, `exchange` one server's exchange, `conf` the files.
//! Not here: `options` of resolv.conf, DNSSEC, IPv6 RDNSS from router advertisements.

pub(super) mod conf;
mod exchange;
pub(super) mod wire;

#[cfg(test)]
pub(super) use exchange::{ask, ask_tcp};

use crate::host::Host;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wire::Answer;

/// The first try's wait for a server; it doubles each round, as glibc's RES_TIMEOUT does.
const FIRST_TRY: Duration = Duration::from_secs(1);
/// Rounds over the servers (1, 2 and 4 s each); the last over TCP.
const ROUNDS: u32 = 3;
/// resolv.conf and hosts are small; more than this is not one.
const FILE_BYTES: u64 = 1 << 20;

/// Why a name gave no address; `retry`: no server answered, so a later try may do better.
#[derive(Debug)]
pub struct Failure {
    pub reason: String,
    pub retry: bool,
}

/// Where names are looked up (the host's files, the kernel command line), and the answers
/// so far.
pub struct Resolver {
    host: Host,
    cmdline: Vec<String>,
    known: Mutex<Vec<(String, Vec<IpAddr>)>>,
}

impl Resolver {
    pub fn new(host: &Host, cmdline: &[String]) -> Resolver {
        Resolver {
            host: host.clone(),
            cmdline: cmdline.to_vec(),
            known: Mutex::new(Vec::new()),
        }
    }

    fn read(&self, path: &str) -> String {
        crate::regular::read_to_string(&self.host.path(path), FILE_BYTES).unwrap_or_default()
    }

    /// The servers to ask, in order, each with where it comes from, and the search domains.
    /// One list rather than the first source only: a lease's server that does not answer
    /// (QEMU's user network drops it when restricted) leaves the others to try.
    fn servers(&self) -> (Vec<(IpAddr, &'static str)>, Vec<String>) {
        let (lease, domain) = crate::network::ephemeral::lease_dns().unwrap_or_default();
        let conf = conf::resolv_conf(&self.read("/etc/resolv.conf"));
        let cmdline = crate::network::cmdline::nameservers(&self.cmdline);
        let mut servers: Vec<(IpAddr, &'static str)> = Vec::new();
        let lease = lease.into_iter().map(IpAddr::V4);
        for (ips, from) in [
            (lease.collect::<Vec<_>>(), "ember's lease"),
            (conf.servers, "/etc/resolv.conf"),
            (cmdline, "the kernel command line"),
        ] {
            for ip in ips {
                if !servers.iter().any(|(s, _)| *s == ip) {
                    servers.push((ip, from));
                }
            }
        }
        let mut search: Vec<String> = domain.into_iter().collect();
        for d in conf.search {
            if !search.contains(&d) {
                search.push(d);
            }
        }
        (servers, search)
    }

    /// `name`'s addresses, IPv4 first: ember's lease is IPv4 unless SLAAC made it, and an
    /// address of a family without a route fails at once, so the order costs an IPv6-only
    /// link nothing.
    pub fn resolve(&self, name: &str, deadline: Instant) -> Result<Vec<IpAddr>, Failure> {
        let name = name.to_ascii_lowercase();
        let known = self.known.lock().ok().and_then(|k| {
            let found = k.iter().find(|(n, _)| *n == name);
            found.map(|(_, ips)| ips.clone())
        });
        if let Some(ips) = known {
            return Ok(ips);
        }
        let ips = self.look_up(&name, deadline)?;
        if let Ok(mut k) = self.known.lock() {
            k.push((name, ips.clone()));
        }
        Ok(ips)
    }

    fn look_up(&self, name: &str, deadline: Instant) -> Result<Vec<IpAddr>, Failure> {
        let found = conf::hosts(&self.read("/etc/hosts"), name.trim_end_matches('.'));
        if !found.is_empty() {
            return Ok(found);
        }
        let (servers, search) = self.servers();
        let fail = |reason: String, retry| Failure {
            reason: format!("resolving {name}: {reason}"),
            retry,
        };
        if servers.is_empty() {
            let none = "no DNS server (none from ember's lease, in /etc/resolv.conf or on the kernel command line)";
            return Err(fail(none.into(), false));
        }
        let (mut negative, mut said_by) = ("no such name", 0);
        let names = conf::candidates(name, &search);
        for candidate in &names {
            match ask_all(&servers, candidate, deadline) {
                Ok((Answer::Addresses(ips), _)) => return Ok(ips),
                Ok((Answer::NoData, i)) => (negative, said_by) = ("no address", i),
                Ok((_, i)) => said_by = i,
                Err(tried) => return Err(fail(format!("no answer ({tried})"), true)),
            }
        }
        // The server that said so, and the names asked when the search list added some.
        let (ip, from) = servers[said_by];
        let asked = match names.len() {
            1 => String::new(),
            _ => format!(", as {}", names.join(", ")),
        };
        let said = format!("{negative} (asked {ip} from {from}{asked})");
        Err(fail(said, false))
    }
}

/// Asks each server in turn, round after round with a doubling wait (the last over TCP),
/// until one answers or `deadline` passes; `Err` names each server's last failure.
fn ask_all(
    servers: &[(IpAddr, &'static str)],
    name: &str,
    deadline: Instant,
) -> Result<(Answer, usize), String> {
    let mut last: Vec<Option<String>> = vec![None; servers.len()];
    'rounds: for round in 0..ROUNDS {
        for (i, (server, _)) in servers.iter().enumerate() {
            let now = Instant::now();
            if now >= deadline {
                break 'rounds;
            }
            let until = (now + FIRST_TRY * (1 << round)).min(deadline);
            let to = SocketAddr::new(*server, 53);
            let asked = match round + 1 == ROUNDS {
                true => exchange::ask_tcp(to, name, until),
                false => exchange::ask(to, name, until),
            };
            match asked {
                Ok(a) => return Ok((a, i)),
                Err(why) => last[i] = Some(why),
            }
        }
    }
    let tried: Vec<String> = servers
        .iter()
        .zip(last)
        .map(|((s, from), why)| {
            let why = why.unwrap_or_else(|| "not asked before the deadline".into());
            format!("{s} from {from}: {why}")
        })
        .collect();
    Err(tried.join("; "))
}

/// Fuzz entry: `data` as the answer to its own question (id and name), of either type.
pub(super) fn fuzz(data: &[u8]) {
    let id = data
        .get(..2)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]));
    let asked = wire::name(data, 12).map_or_else(|| "seed.example".into(), |(n, _)| n);
    for qtype in [wire::A, wire::AAAA] {
        let _ = wire::answer(data, id, &asked, qtype);
    }
}

#[cfg(test)]
mod tests;
