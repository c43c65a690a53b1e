//! The kernel command line, split as the kernel splits it, and what ember reads from it:
//! disable toggles, `ds=` datasource hints, `cc: … end_cc` cloud-config, `network-config=`
//! and the metadata service overrides (`ember.metadata-url=`, `ember.metadata-timeout=`).
//! Also where the line comes from (`read`), for both binaries.

use crate::host::Host;
use crate::limits::Limits;

/// Parameters in order, as the kernel's `next_arg` splits them: whitespace separates, double
/// quotes group (and are removed), and `--` ends the kernel's options (the rest goes to init).
pub fn split(line: &str) -> Vec<String> {
    let mut params = Vec::new();
    let mut cur = String::new();
    let mut in_quote = false;
    let mut has_token = false;
    for c in line.chars() {
        match c {
            '"' => {
                in_quote = !in_quote;
                has_token = true;
            }
            c if c.is_whitespace() && !in_quote => {
                if has_token {
                    if cur == "--" {
                        return params;
                    }
                    params.push(std::mem::take(&mut cur));
                    has_token = false;
                }
            }
            c => {
                cur.push(c);
                has_token = true;
            }
        }
    }
    if has_token && cur != "--" {
        params.push(cur);
    }
    params
}

/// The value of the last `key=value` parameter for `key` (the kernel's last one wins).
pub fn value<'a>(params: &'a [String], key: &str) -> Option<&'a str> {
    params
        .iter()
        .rev()
        .find_map(|p| p.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')))
}

/// What the command line says about ember and cloud-init being enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toggle {
    Disabled(&'static str),
    /// `cloud-init=enabled`: overrides the disable marker files, as in cloud-init.
    ForcedOn,
    Unset,
}

pub fn toggle(params: &[String]) -> Toggle {
    if value(params, "ember") == Some("disabled") {
        return Toggle::Disabled("ember=disabled");
    }
    match value(params, "cloud-init") {
        Some("disabled") => Toggle::Disabled("cloud-init=disabled"),
        Some("enabled") => Toggle::ForcedOn,
        _ => Toggle::Unset,
    }
}

/// A `ds=` hint: the datasource name and its `;`-separated settings.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DsHint {
    /// Lowercased name: `nocloud`, `nocloud-net`, `ec2`, ...
    pub name: String,
    /// Settings with cloud-init's short keys expanded: `s`→`seedfrom`, `h`→`local-hostname`,
    /// `i`→`instance-id`.
    pub settings: Vec<(String, String)>,
}

impl DsHint {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.settings
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses a `ds=` value such as `nocloud;s=http://10.0.0.2/;h=node1` (also the SMBIOS serial
/// form). A value may itself contain `=` (URLs with queries): only the first one splits.
pub fn parse_ds(value: &str) -> DsHint {
    let mut parts = value.split(';');
    let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let settings = parts
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let k = match k {
                "s" => "seedfrom",
                "h" => "local-hostname",
                "i" => "instance-id",
                other => other,
            };
            (k.to_string(), v.to_string())
        })
        .collect();
    DsHint { name, settings }
}

impl DsHint {
    /// The hint as it may be shown (status, console): a seed URL loses its credentials and
    /// query string, which may carry a token.
    pub fn shown(&self) -> String {
        let mut out = self.name.clone();
        for (k, v) in &self.settings {
            let v = if k == "seedfrom" {
                crate::redact::redact_url(v)
            } else {
                v.clone()
            };
            out.push_str(&format!(";{k}={v}"));
        }
        out
    }
}

/// The datasource named on the command line (`ds=`, else `ci.ds=`, else `ember.datasource=`),
/// with the parameter as it may be shown.
pub fn ds_hint(params: &[String]) -> Option<(String, DsHint)> {
    ["ds", "ci.ds", "ci.datasource", "ember.datasource"]
        .iter()
        .find_map(|key| {
            let hint = parse_ds(value(params, key)?);
            Some((format!("{key}={}", hint.shown()), hint))
        })
}

/// `ember.metadata-url=URL`: the selected platform's metadata base URL, instead of its own.
pub fn metadata_url(params: &[String]) -> Option<&str> {
    value(params, "ember.metadata-url").filter(|u| !u.is_empty())
}

/// `ember.metadata-timeout=SECONDS`: the metadata service's total deadline, retries included.
pub fn metadata_timeout_ms(params: &[String]) -> Option<u64> {
    let secs: f64 = value(params, "ember.metadata-timeout")?.parse().ok()?;
    (secs.is_finite() && secs > 0.0).then_some((secs * 1000.0) as u64)
}

/// Cloud-config given inline as `cc: <yaml> end_cc` (several blocks are joined), with the
/// `%0a`-style escapes cloud-init decodes, since a command line cannot hold newlines.
pub fn inline_cloud_config(params: &[String]) -> Option<String> {
    let mut blocks = Vec::new();
    let mut cur: Option<Vec<&str>> = None;
    for p in params {
        match (&mut cur, p.as_str()) {
            (None, "cc:") => cur = Some(Vec::new()),
            (None, p) if p.starts_with("cc:") => cur = Some(vec![&p[3..]]),
            (Some(words), "end_cc") => {
                blocks.push(words.join(" "));
                cur = None;
            }
            (Some(words), p) => words.push(p),
            (None, _) => {}
        }
    }
    if let Some(words) = cur {
        blocks.push(words.join(" "));
    }
    if blocks.is_empty() {
        return None;
    }
    Some(crate::percent::decode(&blocks.join("\n")))
}

/// `network-config=`: `disabled`, or the config itself, base64-encoded.
#[derive(Clone, Debug, PartialEq)]
pub enum NetworkConfigArg {
    Disabled,
    Data(Vec<u8>),
    Invalid(String),
}

pub fn network_config(params: &[String]) -> Option<NetworkConfigArg> {
    use base64::Engine;
    let v = value(params, "network-config")?;
    if v == "disabled" {
        return Some(NetworkConfigArg::Disabled);
    }
    let engine = base64::engine::general_purpose::STANDARD;
    Some(match engine.decode(v.trim()) {
        Ok(data) => NetworkConfigArg::Data(data),
        Err(e) => NetworkConfigArg::Invalid(format!("network-config= is not base64: {e}")),
    })
}

/// The kernel command line, or in a container what cloud-init reads instead: `KERNEL_CMDLINE`
/// (ours, else PID 1's: a service started by the container's init does not inherit the
/// environment the container manager gave init, as `systemd-nspawn --setenv` and LXD's
/// `environment.KERNEL_CMDLINE` do), else PID 1's command line.
pub fn read(host: &Host, kernel_cmdline_env: Option<String>) -> (String, String) {
    let limit = Limits::default().cmdline_bytes as usize;
    if let Some(environ) = container_environ(host) {
        if let Some(line) = kernel_cmdline_env {
            return ("KERNEL_CMDLINE".into(), truncate(line, limit));
        }
        if let Some(line) = env_value(&environ, b"KERNEL_CMDLINE") {
            let line = String::from_utf8_lossy(line).into_owned();
            return (
                "/proc/1/environ KERNEL_CMDLINE".into(),
                truncate(line, limit),
            );
        }
        if let Ok(raw) = std::fs::read(host.proc1_cmdline()) {
            let line = String::from_utf8_lossy(&raw).replace('\0', " ");
            return ("/proc/1/cmdline".into(), truncate(line, limit));
        }
    }
    let line = std::fs::read(host.proc_cmdline())
        .map(|raw| String::from_utf8_lossy(&raw).into_owned())
        .unwrap_or_default();
    ("/proc/cmdline".into(), truncate(line, limit))
}

fn truncate(mut s: String, limit: usize) -> String {
    if s.len() > limit {
        let mut end = limit;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// In a container: PID 1's environment (empty when unreadable), `None` on a machine. A
/// container is systemd's marker or `container=` in PID 1's environment (set by every
/// container manager).
fn container_environ(host: &Host) -> Option<Vec<u8>> {
    let environ = std::fs::read(host.proc1_environ()).unwrap_or_default();
    let marked = host.path("/run/systemd/container").exists();
    (marked || env_value(&environ, b"container").is_some()).then_some(environ)
}

/// The value of `key` in a NUL-separated environment block.
fn env_value<'e>(environ: &'e [u8], key: &[u8]) -> Option<&'e [u8]> {
    environ.split(|b| *b == 0).find_map(|kv| {
        kv.strip_prefix(key)
            .and_then(|rest| rest.strip_prefix(b"="))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<String> {
        split(s)
    }

    #[test]
    fn splits_like_the_kernel() {
        let cases: &[(&str, &[&str])] = &[
            ("a b  c", &["a", "b", "c"]),
            ("  root=/dev/vda1 ro\n", &["root=/dev/vda1", "ro"]),
            (r#"foo="bar baz" x"#, &["foo=bar baz", "x"]),
            (r#""quoted param" y"#, &["quoted param", "y"]),
            ("a -- ember=disabled", &["a"]),
            ("a --", &["a"]),
            ("a --x b", &["a", "--x", "b"]),
            ("", &[]),
        ];
        for (line, want) in cases {
            assert_eq!(split(line), want.to_vec(), "{line:?}");
        }
    }

    #[test]
    fn toggles() {
        assert_eq!(
            toggle(&p("quiet ember=disabled")),
            Toggle::Disabled("ember=disabled")
        );
        assert_eq!(
            toggle(&p("cloud-init=disabled")),
            Toggle::Disabled("cloud-init=disabled")
        );
        assert_eq!(toggle(&p("cloud-init=enabled")), Toggle::ForcedOn);
        assert_eq!(toggle(&p("ember=enabled")), Toggle::Unset);
        // After `--` the words belong to init, not to the kernel.
        assert_eq!(toggle(&p("ro -- ember=disabled")), Toggle::Unset);
    }

    #[test]
    fn ds_hints() {
        let (src, h) = ds_hint(&p(
            "ds=nocloud;s=http://10.0.0.2:8000/seed/;h=node1;i=iid-1",
        ))
        .unwrap();
        assert_eq!(
            src,
            "ds=nocloud;seedfrom=http://10.0.0.2:8000/seed/;local-hostname=node1;instance-id=iid-1"
        );
        assert_eq!(h.name, "nocloud");
        assert_eq!(h.get("seedfrom"), Some("http://10.0.0.2:8000/seed/"));
        assert_eq!(h.get("local-hostname"), Some("node1"));
        assert_eq!(h.get("instance-id"), Some("iid-1"));
        // A token in the seed URL is never shown.
        let (src, h) = ds_hint(&p("ds=nocloud;s=http://u:pw@h/s/?token=T0K")).unwrap();
        assert_eq!(src, "ds=nocloud;seedfrom=http://h/s/");
        assert_eq!(h.get("seedfrom"), Some("http://u:pw@h/s/?token=T0K"));
        let h = parse_ds("NoCloud-Net;seedfrom=http://h/p?a=b");
        assert_eq!(h.name, "nocloud-net");
        assert_eq!(h.get("seedfrom"), Some("http://h/p?a=b"));
        assert_eq!(
            ds_hint(&p("ember.datasource=nocloud")).unwrap().1.name,
            "nocloud"
        );
        assert!(ds_hint(&p("ro quiet")).is_none());
    }

    #[test]
    fn metadata_overrides() {
        let params = p("ro ember.metadata-url=http://127.0.0.1:8080 ember.metadata-timeout=2.5");
        assert_eq!(metadata_url(&params), Some("http://127.0.0.1:8080"));
        assert_eq!(metadata_timeout_ms(&params), Some(2500));
        for bad in [
            "ember.metadata-timeout=x",
            "ember.metadata-timeout=-1",
            "ro",
        ] {
            assert_eq!(metadata_timeout_ms(&p(bad)), None, "{bad}");
        }
        assert_eq!(metadata_url(&p("ember.metadata-url=")), None);
    }

    #[test]
    fn inline_cloud_config_blocks() {
        let params =
            p("ro cc: ssh_pwauth: true%0ahostname: h1 end_cc quiet cc:runcmd: [ls] end_cc");
        assert_eq!(
            inline_cloud_config(&params).unwrap(),
            "ssh_pwauth: true\nhostname: h1\nruncmd: [ls]"
        );
        assert_eq!(inline_cloud_config(&p("ro")), None);
        assert_eq!(crate::percent::decode("100%"), "100%");
        assert_eq!(crate::percent::decode("%zz%41"), "%zzA");
    }

    #[test]
    fn network_config_arg() {
        assert_eq!(
            network_config(&p("network-config=disabled")),
            Some(NetworkConfigArg::Disabled)
        );
        // "version: 2" in base64
        assert_eq!(
            network_config(&p("network-config=dmVyc2lvbjogMg==")),
            Some(NetworkConfigArg::Data(b"version: 2".to_vec()))
        );
        assert!(matches!(
            network_config(&p("network-config=!!")),
            Some(NetworkConfigArg::Invalid(_))
        ));
    }
}
