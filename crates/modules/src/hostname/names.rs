//! Which hostname and fqdn the machine gets, decided as cloud-init's `util.get_hostname_fqdn`
//! and `DataSource.get_hostname` decide them, and whether each is a valid name. Pure: the
//! caller reads the config, the meta-data and the target's own files.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#set-hostname>

use std::net::Ipv4Addr;

/// Where a name came from: the key an invalid name is reported under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// cloud-config `hostname`.
    Hostname,
    /// cloud-config `fqdn`.
    Fqdn,
    /// The meta-data's `local-hostname`.
    MetaData,
    /// The target's own /etc/hostname (or "localhost" when it has none).
    Target,
}

impl Source {
    pub fn key(self) -> &'static str {
        match self {
            Source::Hostname => "hostname",
            Source::Fqdn => "fqdn",
            Source::MetaData => "meta-data local-hostname",
            Source::Target => "target /etc/hostname",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    pub hostname: String,
    pub fqdn: String,
    pub hostname_from: Source,
    pub fqdn_from: Source,
}

impl Names {
    /// cloud-init's `is_default`: neither the config nor the meta-data named the machine, so
    /// the name is the one the target already has.
    pub fn is_default(&self) -> bool {
        self.hostname_from == Source::Target
    }

    /// The name for /etc/hostname (cloud-init's `_select_hostname`).
    pub fn select(&self, prefer_fqdn: bool) -> &str {
        if prefer_fqdn && !self.fqdn.is_empty() {
            &self.fqdn
        } else {
            &self.hostname
        }
    }
}

/// What the decision looks at. Empty strings count as given (and then fail validation), as
/// in cloud-init, except the meta-data's, which cloud-init skips when empty.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inputs<'a> {
    pub hostname: Option<&'a str>,
    pub fqdn: Option<&'a str>,
    pub local_hostname: Option<&'a str>,
    /// The target's /etc/hostname name, and its /etc/hosts text (for the fqdn listing it).
    pub target_hostname: Option<&'a str>,
    pub target_hosts: Option<&'a str>,
}

/// cloud-init's default domain: a name in it has no domain worth naming.
const DEFAULT_DOMAIN: &str = "localdomain";

/// Index of the first dot when it is not the first character (cloud-init's `find('.') > 0`).
fn inner_dot(s: &str) -> Option<usize> {
    s.find('.').filter(|&i| i > 0)
}

/// The canonical name of the /etc/hosts line that lists `name` among its aliases.
fn canonical_in_hosts<'a>(hosts: &'a str, name: &str) -> Option<&'a str> {
    hosts.lines().find_map(|line| {
        let line = line.split('#').next().unwrap_or("");
        let mut fields = line.split_whitespace().skip(1);
        let canonical = fields.next()?;
        fields.any(|alias| alias == name).then_some(canonical)
    })
}

/// The datasource's answer: (hostname, fqdn, source) from the meta-data's local-hostname,
/// else from the target's own name.
fn cloud_names(inp: &Inputs) -> (String, String, Source) {
    let (toks, source): (Vec<String>, Source) = match inp.local_hostname.filter(|s| !s.is_empty()) {
        // An address as local-hostname becomes `ip-10-0-0-1` (cloud-init LP: #475354); ember
        // does no reverse lookup from the initramfs.
        Some(l) if l.parse::<Ipv4Addr>().is_ok() => (
            vec![format!("ip-{}", l.replace('.', "-"))],
            Source::MetaData,
        ),
        Some(l) => (l.split('.').map(str::to_string).collect(), Source::MetaData),
        None => {
            let sys = inp.target_hostname.filter(|s| !s.is_empty());
            let from_hosts = sys
                .and_then(|h| canonical_in_hosts(inp.target_hosts?, h))
                .filter(|f| inner_dot(f).is_some());
            let toks: Vec<String> = match (from_hosts, sys) {
                (Some(f), _) => f.split('.').map(str::to_string).collect(),
                (None, Some(h)) if inner_dot(h).is_some() => {
                    h.split('.').map(str::to_string).collect()
                }
                (None, Some(h)) => vec![h.to_string()],
                (None, None) => vec!["localhost".to_string()],
            };
            (toks, Source::Target)
        }
    };
    let hostname = toks[0].clone();
    let domain = toks[1..].join(".");
    let fqdn = if toks.len() > 1 && domain != DEFAULT_DOMAIN {
        format!("{hostname}.{domain}")
    } else {
        hostname.clone()
    };
    (hostname, fqdn, source)
}

/// The datasource's host name alone (cloud-init's `get_hostname().hostname`, the first
/// label): instance data's `v1.local_hostname`, by the rule `decide` uses.
pub fn cloud_hostname(inp: &Inputs) -> String {
    cloud_names(inp).0
}

/// The names, in cloud-init's order: `fqdn` (its first label as the hostname unless
/// `hostname` is given); else a `hostname` with a dot (it is the fqdn, its first label the
/// hostname); else `hostname` or the meta-data's local-hostname, with the meta-data's fqdn.
pub fn decide(inp: &Inputs) -> Names {
    if let Some(fqdn) = inp.fqdn {
        let (hostname, from) = match inp.hostname {
            Some(h) => (h.to_string(), Source::Hostname),
            None => (
                fqdn.split('.').next().unwrap_or("").to_string(),
                Source::Fqdn,
            ),
        };
        return Names {
            hostname,
            fqdn: fqdn.to_string(),
            hostname_from: from,
            fqdn_from: Source::Fqdn,
        };
    }
    if let Some((h, i)) = inp.hostname.and_then(|h| Some((h, inner_dot(h)?))) {
        return Names {
            hostname: h[..i].to_string(),
            fqdn: h.to_string(),
            hostname_from: Source::Hostname,
            fqdn_from: Source::Hostname,
        };
    }
    let (hostname, fqdn, source) = cloud_names(inp);
    match inp.hostname {
        // cloud-init would pair a configured hostname with the target's old name as the fqdn
        // when the meta-data has none (the image's name in /etc/hosts): ember uses the
        // configured hostname for both, which is what the user asked for.
        Some(h) if source == Source::Target => Names {
            hostname: h.to_string(),
            fqdn: h.to_string(),
            hostname_from: Source::Hostname,
            fqdn_from: Source::Hostname,
        },
        Some(h) => Names {
            hostname: h.to_string(),
            fqdn,
            hostname_from: Source::Hostname,
            fqdn_from: source,
        },
        None => Names {
            hostname,
            fqdn,
            hostname_from: source,
            fqdn_from: source,
        },
    }
}

/// Why a name is not a valid host name (RFC 1123 labels); free of the name itself.
pub fn invalid_reason(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("is empty");
    }
    if name.len() > 253 {
        return Some("is longer than 253 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    {
        return Some("has a character other than a letter, a digit, '-' or '.'");
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Some("has an empty label (a leading, trailing or double dot)");
        }
        if label.len() > 63 {
            return Some("has a label longer than 63 characters");
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Some("has a label that starts or ends with '-'");
        }
    }
    None
}

/// The first invalid name, with the source to blame.
pub fn validate(names: &Names) -> Result<(), (Source, &'static str)> {
    if let Some(why) = invalid_reason(&names.hostname) {
        return Err((names.hostname_from, why));
    }
    if let Some(why) = invalid_reason(&names.fqdn) {
        return Err((names.fqdn_from, why));
    }
    Ok(())
}

#[cfg(test)]
#[path = "names_tests.rs"]
mod tests;
