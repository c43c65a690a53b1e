//! The ini files systemd reads (.network, .netdev, .link), built section by section. A value
//! holding a line break or another control character would start a line of its own in the
//! file: such a key is left out and reported, never written.

use std::fmt::{Display, Write};

/// The comment that opens every file.
pub(crate) const HEADER: &str = "# Written by ember from the instance's network configuration.\n";

#[derive(Default)]
pub(super) struct Ini {
    sections: Vec<(&'static str, String)>,
    /// Keys left out for their value.
    pub rejected: Vec<&'static str>,
}

impl Ini {
    /// Starts a section (`[Address]` and `[Route]` repeat); keys go to it until the next.
    pub fn section(&mut self, name: &'static str) -> &mut Self {
        self.sections.push((name, String::new()));
        self
    }

    /// `key=value` in the current section.
    pub fn key(&mut self, key: &'static str, value: impl Display) -> &mut Self {
        self.put(key, &value)
    }

    pub fn opt(&mut self, key: &'static str, value: Option<impl Display>) -> &mut Self {
        match value {
            Some(v) => self.put(key, &v),
            None => self,
        }
    }

    // One copy for every value type: the callers are many, and the binary small.
    #[inline(never)]
    fn put(&mut self, key: &'static str, value: &dyn Display) -> &mut Self {
        let value = value.to_string();
        if value.chars().any(char::is_control) {
            self.rejected.push(key);
            return self;
        }
        let Some((_, body)) = self.sections.last_mut() else {
            return self;
        };
        let _ = writeln!(body, "{key}={value}");
        self
    }

    /// `key=yes`/`no`.
    pub fn flag(&mut self, key: &'static str, value: Option<bool>) -> &mut Self {
        self.opt(key, value.map(yes_no))
    }

    /// The file: the header, then each section that has keys, in the order started.
    pub fn finish(&self) -> String {
        let mut out = String::from(HEADER);
        for (name, body) in &self.sections {
            if !body.is_empty() {
                let _ = write!(out, "\n[{name}]\n{body}");
            }
        }
        out
    }
}

pub(super) fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A duration in milliseconds as systemd reads one: whole seconds bare, else with `ms`.
pub(super) fn span(ms: u32) -> String {
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_and_rejected_values() {
        let mut ini = Ini::default();
        ini.section("Match").key("Name", "eth0");
        ini.section("Network")
            .key("DHCP", "ipv4")
            .flag("IPv6AcceptRA", Some(false));
        ini.section("Address").key("Address", "10.0.0.5/24");
        ini.section("Address").key("Address", "10.0.0.6/24");
        ini.key("Domains", "a.example\n[Network]");
        ini.section("Route").opt("Gateway", None::<&str>);
        assert_eq!(
            ini.finish(),
            format!(
                "{HEADER}\n[Match]\nName=eth0\n\n[Network]\nDHCP=ipv4\nIPv6AcceptRA=no\n\n\
                 [Address]\nAddress=10.0.0.5/24\n\n[Address]\nAddress=10.0.0.6/24\n"
            )
        );
        assert_eq!(ini.rejected, ["Domains"]);
        assert_eq!(
            (span(100), span(15_000), span(1500)),
            ("100ms".into(), "15".into(), "1500ms".into())
        );
    }
}
