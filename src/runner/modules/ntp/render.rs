//! The NTP client files ember writes: pure text from the lists, one per client, with the
//! distribution's usual drift and log settings after ember's source lines. Each value was
//! checked to be one plain word, so none can start a directive of its own.

use super::Client;
use crate::runner::modules::distro::Family;

/// First line of every file ember writes here: how `write_config` knows its own.
pub const HEADER: &str =
    "# Written by ember from the cloud-config key ntp (cloud-init's cc_ntp).\n";

/// cloud-init's number of default pool servers.
const NR_POOL_SERVERS: usize = 4;

pub struct Lists {
    pub servers: Vec<String>,
    pub pools: Vec<String>,
    pub peers: Vec<String>,
    pub allow: Vec<String>,
}

/// cloud-init's default pools for the distribution `id`: `0.debian.pool.ntp.org`, ...
/// (SLES uses openSUSE's; Alpine has none of its own).
pub fn default_pools(id: &str) -> Vec<String> {
    let distro = match id {
        "sles" => "opensuse",
        "alpine" | "eurolinux" | "" => "",
        other => other,
    };
    (0..NR_POOL_SERVERS)
        .map(|i| match distro {
            "" => format!("{i}.pool.ntp.org"),
            d => format!("{i}.{d}.pool.ntp.org"),
        })
        .collect()
}

pub fn render(client: Client, family: Family, id: &str, lists: &Lists) -> String {
    let mut servers = lists.servers.clone();
    let mut pools = lists.pools.clone();
    // Alpine's ntpd is busybox's, which knows `server` lines only.
    let busybox_ntpd = client == Client::Ntpd && family == Family::Alpine;
    if servers.is_empty() && pools.is_empty() {
        if busybox_ntpd {
            servers = default_pools(id);
        } else {
            pools = default_pools(id);
        }
    }
    let mut out = String::from(HEADER);
    match client {
        Client::Timesyncd => {
            let all: Vec<&str> = servers.iter().chain(&pools).map(String::as_str).collect();
            out.push_str(&format!("[Time]\nNTP={}\n", all.join(" ")));
        }
        Client::Chrony => {
            lines(&mut out, "pool", &pools, " iburst");
            lines(&mut out, "server", &servers, " iburst");
            lines(&mut out, "peer", &lists.peers, "");
            lines(&mut out, "allow", &lists.allow, "");
            out.push_str(match family {
                Family::Debian => {
                    "keyfile /etc/chrony/chrony.keys\ndriftfile /var/lib/chrony/chrony.drift\n\
                     logdir /var/log/chrony\nmaxupdateskew 100.0\nrtcsync\nmakestep 1 3\n"
                }
                _ => "driftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\nlogdir /var/log/chrony\n",
            });
        }
        Client::Ntpd if busybox_ntpd => {
            lines(&mut out, "server", &servers, "");
            lines(&mut out, "server", &pools, "");
            lines(&mut out, "peer", &lists.peers, "");
        }
        Client::Ntpd => {
            let drift = if family == Family::Debian {
                "/var/lib/ntp/ntp.drift"
            } else {
                "/var/lib/ntp/drift"
            };
            out.push_str(&format!(
                "driftfile {drift}\n\
                 restrict -4 default kod notrap nomodify nopeer noquery limited\n\
                 restrict -6 default kod notrap nomodify nopeer noquery limited\n\
                 restrict 127.0.0.1\nrestrict ::1\nrestrict source notrap nomodify noquery\n"
            ));
            lines(&mut out, "pool", &pools, " iburst");
            lines(&mut out, "server", &servers, " iburst");
            lines(&mut out, "peer", &lists.peers, "");
        }
    }
    out
}

fn lines(out: &mut String, word: &str, list: &[String], suffix: &str) {
    for host in list {
        out.push_str(&format!("{word} {host}{suffix}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(servers: &[&str], pools: &[&str]) -> Lists {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        Lists {
            servers: v(servers),
            pools: v(pools),
            peers: vec!["peer1".into()],
            allow: vec!["10.0.0.0/8".into()],
        }
    }

    #[test]
    fn files() {
        let l = lists(&["ntp.example.com"], &["pool.example.com"]);
        let t = render(Client::Timesyncd, Family::Debian, "debian", &l);
        assert_eq!(
            t,
            format!("{HEADER}[Time]\nNTP=ntp.example.com pool.example.com\n")
        );
        let c = render(Client::Chrony, Family::RedHat, "rocky", &l);
        assert!(c.starts_with(&format!(
            "{HEADER}pool pool.example.com iburst\nserver ntp.example.com iburst\n\
             peer peer1\nallow 10.0.0.0/8\ndriftfile /var/lib/chrony/drift\n"
        )));
        let n = render(Client::Ntpd, Family::Alpine, "alpine", &lists(&[], &[]));
        assert!(n.ends_with("server 0.pool.ntp.org\nserver 1.pool.ntp.org\nserver 2.pool.ntp.org\nserver 3.pool.ntp.org\npeer peer1\n"), "{n}");
    }

    #[test]
    fn pools_by_distro() {
        assert_eq!(default_pools("debian")[0], "0.debian.pool.ntp.org");
        assert_eq!(default_pools("sles")[3], "3.opensuse.pool.ntp.org");
        assert_eq!(default_pools("alpine")[1], "1.pool.ntp.org");
    }
}
