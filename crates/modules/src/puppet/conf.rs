//! puppet.conf as cloud-init reads and writes it with Python's configparser (its
//! `DefaultingConfigParser`): `[section]`s of `key = value` (or `key: value`), keys lowercased
//! (ASCII letters only: a non-ASCII key keeps its case, where Python would lower it),
//! comments dropped, written back `key = value` with a blank line after each section, the
//! `[DEFAULT]` section first. Lines are taken with their indentation removed, as cloud-init
//! cleans them, so a value never continues on the next line.

use crate::conf_lang::{ini, Refused};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conf {
    /// `[DEFAULT]`'s options, written first when there are any.
    defaults: Vec<(String, String)>,
    sections: Vec<(String, Vec<(String, String)>)>,
}

impl Conf {
    /// `Err` says why configparser would refuse the text (no section header before an
    /// option, a line with no `=` or `:`, a section or option given twice).
    pub fn parse(text: &str) -> Result<Conf, String> {
        let mut conf = Conf::default();
        let mut current: Option<String> = None;
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim_start();
            let n = n + 1;
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(name) = header(line) {
                let taken = name != "DEFAULT" && conf.sections.iter().any(|(s, _)| *s == name);
                if taken {
                    return Err(format!("line {n}: section given twice"));
                }
                if name != "DEFAULT" {
                    conf.sections.push((name.clone(), Vec::new()));
                }
                current = Some(name);
                continue;
            }
            let Some(section) = &current else {
                return Err(format!("line {n}: an option before any [section]"));
            };
            let Some(at) = line.find(['=', ':']) else {
                return Err(format!("line {n}: neither = nor : in an option line"));
            };
            let key = line[..at].trim_end().to_ascii_lowercase();
            let value = line[at + 1..].trim().to_string();
            let options = conf.options(section);
            if options.iter().any(|(k, _)| *k == key) {
                return Err(format!("line {n}: an option given twice"));
            }
            options.push((key, value));
        }
        Ok(conf)
    }

    fn options(&mut self, section: &str) -> &mut Vec<(String, String)> {
        if section == "DEFAULT" {
            return &mut self.defaults;
        }
        if !self.sections.iter().any(|(s, _)| s == section) {
            self.sections.push((section.to_string(), Vec::new()));
        }
        let at = self.sections.iter().position(|(s, _)| s == section);
        &mut self.sections[at.unwrap_or_default()].1
    }

    /// configparser's `set` (the section made when missing, the key lowercased), through INI's
    /// one writer: puppet reads each line alone, so a section, option or value that would span
    /// lines or open a section is refused and nothing is set.
    pub fn set(&mut self, section: &str, key: &str, value: &str) -> Result<(), Refused> {
        ini::section(section)?;
        ini::name(key)?;
        ini::value(value)?;
        let key = key.to_ascii_lowercase();
        let options = self.options(section);
        match options.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value.to_string(),
            None => options.push((key, value.to_string())),
        }
        Ok(())
    }

    pub fn write(&self) -> String {
        let mut out = String::new();
        let defaults = (!self.defaults.is_empty()).then_some(("DEFAULT", &self.defaults));
        let sections = self.sections.iter().map(|(s, o)| (s.as_str(), o));
        for (name, options) in defaults.into_iter().chain(sections) {
            out.push_str(&format!("[{name}]\n"));
            for (k, v) in options {
                out.push_str(&format!("{k} = {}\n", v.replace('\n', "\n\t")));
            }
            out.push('\n');
        }
        out
    }
}

/// `[name]` (configparser takes up to the last `]`).
fn header(line: &str) -> Option<String> {
    let rest = line.strip_prefix('[')?;
    let end = rest.rfind(']')?;
    (end > 0).then(|| rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What cloud-init 22.4's DefaultingConfigParser writes for the same steps.
    #[test]
    fn merges_as_configparser() {
        let src = "# comment\n[main]\nlogdir=/var/log/puppet\n  vardir = /var/lib/puppet\n\
                   Ssldir: /var/lib/puppet/ssl\n[agent]\nServer = old\n";
        let mut c = Conf::parse(src).unwrap();
        c.set("agent", "Server", "puppet.example").unwrap();
        c.set("agent", "runinterval", "3600").unwrap();
        c.set("user", "x", "y").unwrap();
        assert_eq!(
            c.write(),
            "[main]\nlogdir = /var/log/puppet\nvardir = /var/lib/puppet\n\
             ssldir = /var/lib/puppet/ssl\n\n[agent]\nserver = puppet.example\n\
             runinterval = 3600\n\n[user]\nx = y\n\n"
        );
        assert_eq!(Conf::parse("").unwrap().write(), "");
    }

    /// puppet reads its conf line by line, a `[` starting a section however indented: a
    /// section, option or value that would span lines or open a section is refused (the
    /// refusal names the option, or `section`) and the file is as before.
    #[test]
    fn sections_options_and_values_spanning_lines_are_refused() {
        let mut c = Conf::parse("[main]\nlogdir = /var/log/puppet\n").unwrap();
        let before = c.write();
        let hostile = [
            ("agent", "server", "p.example\n[main]\npostrun_command = id"),
            ("agent", "server", "p.example\r[main]"),
            ("agent", "x\n[main]\ny", "1"),
            ("agent", "[main] x", "1"),
            ("agent", "a=b", "1"),
            ("agent]\n[main", "x", "1"),
            ("agent", "server", "a\0b"),
        ];
        for (section, key, value) in hostile {
            assert!(
                c.set(section, key, value).is_err(),
                "{section:?} {key:?} {value:?}"
            );
            assert_eq!(c.write(), before);
        }
        c.set("agent", "server", "p.example #1; [x]").unwrap();
        assert!(c
            .write()
            .ends_with("[agent]\nserver = p.example #1; [x]\n\n"));
    }

    #[test]
    fn refuses_what_configparser_refuses() {
        for bad in [
            "key = v\n",
            "[a]\nno delimiter\n",
            "[a]\n[a]\n",
            "[a]\nk = 1\nK = 2\n",
        ] {
            assert!(Conf::parse(bad).is_err(), "{bad:?}");
        }
    }
}
