//! The resolver's files as glibc reads them: `/etc/resolv.conf` (`nameserver`, `search`,
//! `domain`) and `/etc/hosts`. Pure text; the caller reads the files. Not read: `options`
//! (ndots is 1, timeouts are ember's own), `sortlist`, scoped IPv6 servers (`fe80::1%eth0`).

use std::net::IpAddr;

/// glibc uses the first three `nameserver` lines.
const MAX_SERVERS: usize = 3;

#[derive(Debug, Default, PartialEq)]
pub struct ResolvConf {
    pub servers: Vec<IpAddr>,
    pub search: Vec<String>,
}

/// `nameserver` lines in order; `search` or `domain`, whichever comes last, as glibc does.
pub fn resolv_conf(text: &str) -> ResolvConf {
    let mut conf = ResolvConf::default();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("nameserver") => {
                let ip = words.next().and_then(|w| w.parse().ok());
                if let (Some(ip), true) = (ip, conf.servers.len() < MAX_SERVERS) {
                    conf.servers.push(ip);
                }
            }
            Some("search" | "domain") => {
                conf.search = words
                    .take_while(|w| !w.starts_with(['#', ';']))
                    .map(|w| w.trim_end_matches('.').to_ascii_lowercase())
                    .filter(|w| !w.is_empty())
                    .collect();
            }
            _ => {}
        }
    }
    conf
}

/// Every address `/etc/hosts` gives `name` (lowercase, no trailing dot), in file order.
pub fn hosts(text: &str, name: &str) -> Vec<IpAddr> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut words = line
            .split('#')
            .next()
            .unwrap_or_default()
            .split_whitespace();
        let Some(Ok(ip)) = words.next().map(str::parse::<IpAddr>) else {
            continue;
        };
        if words.any(|w| w.trim_end_matches('.').eq_ignore_ascii_case(name)) && !found.contains(&ip)
        {
            found.push(ip);
        }
    }
    found
}

/// The names to ask for `name`, with ndots 1 as glibc's default: a name with a dot is asked
/// as it is first, then with each search domain; a single label the other way round; a name
/// with a trailing dot only as it is.
pub fn candidates(name: &str, search: &[String]) -> Vec<String> {
    if let Some(absolute) = name.strip_suffix('.') {
        return vec![absolute.to_string()];
    }
    let mut out: Vec<String> = search.iter().map(|d| format!("{name}.{d}")).collect();
    match name.contains('.') {
        true => out.insert(0, name.to_string()),
        false => out.push(name.to_string()),
    }
    out
}
