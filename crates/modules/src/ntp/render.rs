//! The NTP client files cloud-init's own templates make, in ember's code (the runner has no
//! Jinja): for each template name, the same directives in the same order as cloud-init 26's
//! template renders them, the `# pools`/`# servers` markers included; the comments are
//! ember's own. Each value was checked to be one plain word, so none can start a directive of
//! its own.

/// First line of every file ember writes from its own templates: how `write_config` knows
/// its own.
pub const HEADER: &str =
    "# Written by ember from the cloud-config key ntp (cloud-init's cc_ntp).\n";

/// cloud-init's number of default pool servers.
const NR_POOL_SERVERS: usize = 4;

/// What a template is given (cloud-init's template parameters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lists {
    pub servers: Vec<String>,
    pub pools: Vec<String>,
    pub allow: Vec<String>,
    pub peers: Vec<String>,
}

/// cloud-init's default pools for the distribution `distro`: `0.debian.pool.ntp.org`, ...
/// (SLES uses openSUSE's; Alpine and EuroLinux have none of their own).
pub fn default_pools(distro: &str) -> Vec<String> {
    let distro = match distro {
        "sles" => "opensuse",
        "alpine" | "eurolinux" => "",
        other => other,
    };
    (0..NR_POOL_SERVERS)
        .map(|i| match distro {
            "" => format!("{i}.pool.ntp.org"),
            d => format!("{i}.{d}.pool.ntp.org"),
        })
        .collect()
}

/// The templates ember carries: cloud-init's `chrony.conf.<distro>`, `ntp.conf.<distro>` and
/// `timesyncd.conf`, by the layout each distribution's shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// chrony.conf.debian and .ubuntu.
    ChronyDebian,
    /// chrony.conf.rhel.
    ChronyRhel,
    /// chrony.conf.opensuse.
    ChronySuse,
    /// chrony.conf.alpine: no peers or allow.
    ChronyAlpine,
    /// ntp.conf.debian and .ubuntu.
    NtpDebian,
    /// ntp.conf.rhel and .rocky.
    NtpRhel,
    NtpFedora,
    /// ntp.conf.sles and .opensuse: no peers.
    NtpSuse,
    /// ntp.conf.alpine, for busybox's ntpd: servers only.
    NtpAlpine,
    Timesyncd,
}

impl Builtin {
    /// The template cloud-init names `name` (with the distribution already in it).
    pub fn named(name: &str) -> Option<Builtin> {
        use Builtin::*;
        Some(match name {
            "chrony.conf.debian" | "chrony.conf.ubuntu" => ChronyDebian,
            "chrony.conf.rhel" | "chrony.conf.centos" => ChronyRhel,
            "chrony.conf.opensuse" | "chrony.conf.opensuse-tumbleweed" => ChronySuse,
            "chrony.conf.alpine" => ChronyAlpine,
            "ntp.conf.debian" | "ntp.conf.ubuntu" => NtpDebian,
            "ntp.conf.rhel" | "ntp.conf.rocky" => NtpRhel,
            "ntp.conf.fedora" => NtpFedora,
            "ntp.conf.sles" | "ntp.conf.opensuse" => NtpSuse,
            "ntp.conf.alpine" => NtpAlpine,
            "timesyncd.conf" => Timesyncd,
            _ => return None,
        })
    }

    /// Which of `pools`, `peers` and `allow` the template writes (all write `servers`).
    pub fn takes(self, key: &str) -> bool {
        use Builtin::*;
        match key {
            "pools" => self != NtpAlpine,
            "peers" => !matches!(self, ChronyAlpine | NtpSuse | NtpAlpine | Timesyncd),
            "allow" => matches!(self, ChronyDebian | ChronyRhel | ChronySuse),
            _ => true,
        }
    }

    pub fn render(self, l: &Lists) -> String {
        use Builtin::*;
        let mut out = String::from(HEADER);
        let src = |out: &mut String| {
            let iburst = self != NtpAlpine;
            sources(out, l, self.takes("peers"), self.takes("allow"), iburst)
        };
        match self {
            Timesyncd => {
                out.push_str("# See timesyncd.conf(5).\n\n[Time]\n");
                if !l.servers.is_empty() || !l.pools.is_empty() {
                    out.push_str("NTP=");
                    for host in l.servers.iter().chain(&l.pools) {
                        // cloud-init's template leaves a space after each host.
                        out.push_str(host);
                        out.push(' ');
                    }
                }
                out.push('\n');
            }
            ChronyDebian | ChronyAlpine => {
                out.push_str("# chrony's settings: see chrony.conf(5).\n");
                src(&mut out);
                out.push_str(
                    "\nkeyfile /etc/chrony/chrony.keys\n\
                     driftfile /var/lib/chrony/chrony.drift\n\
                     logdir /var/log/chrony\n\
                     maxupdateskew 100.0\n\
                     rtcsync\n\
                     makestep 1 3\n",
                );
            }
            ChronyRhel | ChronySuse => {
                out.push_str("# chrony's settings: see chrony.conf(5).\n");
                src(&mut out);
                out.push_str(
                    "\ndriftfile /var/lib/chrony/drift\n\
                     makestep 1.0 3\n\
                     rtcsync\n\
                     logdir /var/log/chrony\n",
                );
            }
            NtpDebian => {
                out.push_str(
                    "# ntpd's settings: see ntp.conf(5).\n\n\
                     driftfile /var/lib/ntp/ntp.drift\n\n\
                     statistics loopstats peerstats clockstats\n\
                     filegen loopstats file loopstats type day enable\n\
                     filegen peerstats file peerstats type day enable\n\
                     filegen clockstats file clockstats type day enable\n\n",
                );
                src(&mut out);
                out.push_str(
                    "\nrestrict -4 default kod notrap nomodify nopeer noquery limited\n\
                     restrict -6 default kod notrap nomodify nopeer noquery limited\n\
                     restrict 127.0.0.1\n\
                     restrict ::1\n\
                     restrict source notrap nomodify noquery\n",
                );
            }
            NtpRhel | NtpFedora => {
                out.push_str(
                    "# ntpd's settings: see ntp.conf(5).\n\ndriftfile /var/lib/ntp/drift\n",
                );
                if self == NtpRhel {
                    out.push_str(
                        "restrict default kod nomodify notrap nopeer noquery\n\
                         restrict -6 default kod nomodify notrap nopeer noquery\n\
                         restrict 127.0.0.1\n\
                         restrict -6 ::1\n\n",
                    );
                } else {
                    out.push_str(
                        "restrict default nomodify notrap nopeer noquery\n\
                         restrict 127.0.0.1\n\
                         restrict ::1\n\n",
                    );
                }
                src(&mut out);
                out.push_str("\nincludefile /etc/ntp/crypto/pw\nkeys /etc/ntp/keys\n");
                if self == NtpFedora {
                    out.push_str("disable monitor\n");
                }
            }
            NtpSuse => {
                out.push_str("# ntpd's settings: see ntp.conf(5).\n");
                src(&mut out);
                out.push_str(
                    "\nrestrict -4 default notrap nomodify nopeer noquery\n\
                     restrict -6 default notrap nomodify nopeer noquery\n\
                     restrict 127.0.0.1\n\
                     restrict ::1\n\n\
                     driftfile /var/lib/ntp/drift/ntp.drift\n\
                     logfile /var/log/ntp\n\n\
                     keys /etc/ntp.keys\n\
                     trustedkey 1\n\
                     requestkey 1\n\
                     controlkey 1\n",
                );
            }
            NtpAlpine => {
                out.push_str("# busybox ntpd: server lines only.\n\n");
                src(&mut out);
            }
        }
        out
    }
}

/// The source lines as cloud-init's templates write them: `# pools` and the pools, `#
/// servers` and the servers (Alpine's ntpd: `# Servers`, servers only), then peers and allow.
fn sources(out: &mut String, l: &Lists, peers: bool, allow: bool, iburst: bool) {
    let suffix = if iburst { " iburst" } else { "" };
    if !iburst {
        if !l.servers.is_empty() {
            out.push_str("# Servers\n");
        }
        for s in &l.servers {
            out.push_str(&format!("server {s}\n"));
        }
        return;
    }
    if !l.pools.is_empty() {
        out.push_str("# pools\n");
    }
    for p in &l.pools {
        out.push_str(&format!("pool {p}{suffix}\n"));
    }
    if !l.servers.is_empty() {
        out.push_str("# servers\n");
    }
    for s in &l.servers {
        out.push_str(&format!("server {s}{suffix}\n"));
    }
    for p in l.peers.iter().filter(|_| peers) {
        out.push_str(&format!("peer {p}\n"));
    }
    for a in l.allow.iter().filter(|_| allow) {
        out.push_str(&format!("allow {a}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> Lists {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        Lists {
            servers: v(&["ntp.example.com", "10.0.0.1"]),
            pools: v(&["pool.example.com"]),
            peers: v(&["peer1"]),
            allow: v(&["10.0.0.0/8"]),
        }
    }

    /// The lines that are not comments or blank: what the client reads.
    fn directives(text: &str) -> Vec<&str> {
        text.lines()
            .filter(|l| !l.is_empty())
            .filter(|l| !l.starts_with('#') || matches!(*l, "# pools" | "# servers"))
            .collect()
    }

    /// What cloud-init 26's templates render for `lists()`, directive by directive, as read
    /// off its templates (chrony.conf.*, ntp.conf.*).
    #[test]
    fn each_template_has_cloud_inits_directives_in_its_order() {
        let sources = [
            "# pools",
            "pool pool.example.com iburst",
            "# servers",
            "server ntp.example.com iburst",
            "server 10.0.0.1 iburst",
        ];
        let with = |head: &[&'static str], extra: &[&'static str], tail: &[&'static str]| {
            let mut v: Vec<&str> = head.to_vec();
            v.extend(sources);
            v.extend(extra);
            v.extend(tail);
            v
        };
        let debian_chrony = [
            "keyfile /etc/chrony/chrony.keys",
            "driftfile /var/lib/chrony/chrony.drift",
            "logdir /var/log/chrony",
            "maxupdateskew 100.0",
            "rtcsync",
            "makestep 1 3",
        ];
        let rhel_chrony = [
            "driftfile /var/lib/chrony/drift",
            "makestep 1.0 3",
            "rtcsync",
            "logdir /var/log/chrony",
        ];
        let cases: Vec<(&str, Vec<&str>)> = vec![
            (
                "chrony.conf.debian",
                with(&[], &["peer peer1", "allow 10.0.0.0/8"], &debian_chrony),
            ),
            ("chrony.conf.alpine", with(&[], &[], &debian_chrony)),
            (
                "chrony.conf.rhel",
                with(&[], &["peer peer1", "allow 10.0.0.0/8"], &rhel_chrony),
            ),
            (
                "chrony.conf.opensuse",
                with(&[], &["peer peer1", "allow 10.0.0.0/8"], &rhel_chrony),
            ),
            (
                "ntp.conf.ubuntu",
                with(
                    &[
                        "driftfile /var/lib/ntp/ntp.drift",
                        "statistics loopstats peerstats clockstats",
                        "filegen loopstats file loopstats type day enable",
                        "filegen peerstats file peerstats type day enable",
                        "filegen clockstats file clockstats type day enable",
                    ],
                    &["peer peer1"],
                    &[
                        "restrict -4 default kod notrap nomodify nopeer noquery limited",
                        "restrict -6 default kod notrap nomodify nopeer noquery limited",
                        "restrict 127.0.0.1",
                        "restrict ::1",
                        "restrict source notrap nomodify noquery",
                    ],
                ),
            ),
            (
                "ntp.conf.rhel",
                with(
                    &[
                        "driftfile /var/lib/ntp/drift",
                        "restrict default kod nomodify notrap nopeer noquery",
                        "restrict -6 default kod nomodify notrap nopeer noquery",
                        "restrict 127.0.0.1",
                        "restrict -6 ::1",
                    ],
                    &["peer peer1"],
                    &["includefile /etc/ntp/crypto/pw", "keys /etc/ntp/keys"],
                ),
            ),
            (
                "ntp.conf.fedora",
                with(
                    &[
                        "driftfile /var/lib/ntp/drift",
                        "restrict default nomodify notrap nopeer noquery",
                        "restrict 127.0.0.1",
                        "restrict ::1",
                    ],
                    &["peer peer1"],
                    &[
                        "includefile /etc/ntp/crypto/pw",
                        "keys /etc/ntp/keys",
                        "disable monitor",
                    ],
                ),
            ),
            (
                "ntp.conf.sles",
                with(
                    &[],
                    &[],
                    &[
                        "restrict -4 default notrap nomodify nopeer noquery",
                        "restrict -6 default notrap nomodify nopeer noquery",
                        "restrict 127.0.0.1",
                        "restrict ::1",
                        "driftfile /var/lib/ntp/drift/ntp.drift",
                        "logfile /var/log/ntp",
                        "keys /etc/ntp.keys",
                        "trustedkey 1",
                        "requestkey 1",
                        "controlkey 1",
                    ],
                ),
            ),
            (
                "ntp.conf.alpine",
                vec!["server ntp.example.com", "server 10.0.0.1"],
            ),
        ];
        for (name, want) in cases {
            let b = Builtin::named(name).unwrap();
            let text = b.render(&lists());
            assert!(text.starts_with(HEADER), "{name}");
            assert_eq!(directives(&text), want, "{name}:\n{text}");
        }
        // Alpine's ntpd has its own capitalised marker, kept as the template has it.
        let alpine = Builtin::NtpAlpine.render(&lists());
        assert!(
            alpine.contains("\n# Servers\nserver ntp.example.com\n"),
            "{alpine}"
        );
    }

    #[test]
    fn timesyncd_as_cloud_init_writes_it() {
        let text = Builtin::Timesyncd.render(&lists());
        assert!(
            text.ends_with("\n[Time]\nNTP=ntp.example.com 10.0.0.1 pool.example.com \n"),
            "{text:?}"
        );
    }

    #[test]
    fn pools_by_distro() {
        assert_eq!(default_pools("debian")[0], "0.debian.pool.ntp.org");
        assert_eq!(default_pools("sles")[3], "3.opensuse.pool.ntp.org");
        assert_eq!(default_pools("alpine")[1], "1.pool.ntp.org");
        assert_eq!(default_pools("rocky")[2], "2.rocky.pool.ntp.org");
    }
}
