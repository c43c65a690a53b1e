//! Host names to addresses for the HTTP client, without glibc's NSS (a static binary cannot
//! load it, and the initramfs has no resolv.conf for ember's own lease): `/etc/hosts` if
//! present, else a stub resolver asking A and AAAA over UDP (TCP when truncated) of the DNS
//! servers of ember's lease, else those of `/etc/resolv.conf`, else those the kernel command
//! line names (`nameserver=`, the DNS fields of `ip=`). Every try ends by the request's
//! deadline. `wire` holds the messages, `exchange` one server's exchange, `conf` the files.
//! Not here: `options` of resolv.conf, DNSSEC, IPv6 RDNSS from router advertisements, caching.

pub(super) mod conf;
mod exchange;
pub(super) mod wire;

#[cfg(test)]
pub(super) use exchange::ask;

use crate::host::Host;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};
use wire::Answer;

/// The first try's wait for a server; it doubles each round, as glibc's RES_TIMEOUT does.
const FIRST_TRY: Duration = Duration::from_secs(1);
/// Rounds over the servers (1 + 2 + 4 s each) before the name is given up on.
const ROUNDS: u32 = 3;
/// resolv.conf and hosts are small; more than this is not one.
const FILE_BYTES: u64 = 1 << 20;

/// Why a name gave no address; `retry`: no server answered, so a later try may do better.
#[derive(Debug)]
pub struct Failure {
    pub reason: String,
    pub retry: bool,
}

/// Where names are looked up: the host's files and the kernel command line.
pub struct Resolver {
    host: Host,
    cmdline: Vec<String>,
}

impl Resolver {
    pub fn new(host: &Host, cmdline: &[String]) -> Resolver {
        Resolver {
            host: host.clone(),
            cmdline: cmdline.to_vec(),
        }
    }

    fn read(&self, path: &str) -> String {
        crate::regular::read_to_string(&self.host.path(path), FILE_BYTES).unwrap_or_default()
    }

    /// The servers to ask now, where they come from, and the search domains that go with them.
    fn servers(&self) -> (Vec<IpAddr>, &'static str, Vec<String>) {
        if let Some((servers, domain)) = crate::network::ephemeral::lease_dns() {
            if !servers.is_empty() {
                let servers = servers.into_iter().map(IpAddr::V4).collect();
                return (servers, "ember's lease", domain.into_iter().collect());
            }
        }
        let conf = conf::resolv_conf(&self.read("/etc/resolv.conf"));
        if !conf.servers.is_empty() {
            return (conf.servers, "/etc/resolv.conf", conf.search);
        }
        let cmdline = crate::network::cmdline::nameservers(&self.cmdline);
        (cmdline, "the kernel command line", Vec::new())
    }

    /// `name`'s addresses, IPv4 first: ember's lease is IPv4 unless SLAAC made it, and an
    /// address of a family without a route fails at once, so the order costs an IPv6-only
    /// link nothing.
    pub fn resolve(&self, name: &str, deadline: Instant) -> Result<Vec<IpAddr>, Failure> {
        let name = name.to_ascii_lowercase();
        let found = conf::hosts(&self.read("/etc/hosts"), name.trim_end_matches('.'));
        if !found.is_empty() {
            return Ok(found);
        }
        let (servers, from, search) = self.servers();
        let fail = |reason: String, retry| Failure {
            reason: format!("resolving {name}: {reason}"),
            retry,
        };
        if servers.is_empty() {
            let none = "no DNS server (none from ember's lease, in /etc/resolv.conf or on the kernel command line)";
            return Err(fail(none.into(), false));
        }
        let shown: Vec<String> = servers.iter().map(IpAddr::to_string).collect();
        let shown = format!("{} from {from}", shown.join(", "));
        let mut negative = "no such name";
        let names = conf::candidates(&name, &search);
        for candidate in &names {
            match ask_all(&servers, candidate, deadline) {
                Ok(Answer::Addresses(ips)) => return Ok(ips),
                Ok(Answer::NoData) => negative = "no address",
                Ok(_) => {}
                Err(tried) => return Err(fail(format!("no answer ({tried}; {shown})"), true)),
            }
        }
        let asked = match names.len() {
            1 => String::new(),
            _ => format!(", as {}", names.join(", ")),
        };
        Err(fail(format!("{negative} (asked {shown}{asked})"), false))
    }
}

/// Asks each server in turn, round after round with a doubling wait, until one answers or
/// `deadline` passes; `Err` names each server's last failure.
fn ask_all(servers: &[IpAddr], name: &str, deadline: Instant) -> Result<Answer, String> {
    let mut last: Vec<Option<String>> = vec![None; servers.len()];
    'rounds: for round in 0..ROUNDS {
        for (i, server) in servers.iter().enumerate() {
            let now = Instant::now();
            if now >= deadline {
                break 'rounds;
            }
            let until = (now + FIRST_TRY * (1 << round)).min(deadline);
            match exchange::ask(SocketAddr::new(*server, 53), name, until) {
                Ok(a) => return Ok(a),
                Err(why) => last[i] = Some(why),
            }
        }
    }
    let tried: Vec<String> = servers
        .iter()
        .zip(last)
        .map(|(s, why)| format!("{s}: {}", why.as_deref().unwrap_or("not asked, deadline")))
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
