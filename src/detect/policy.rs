//! ds-identify's policy, which an image or the command line sets to switch cloud-init off (or
//! to say how a search ends): `policy:` in `/etc/cloud/ds-identify.cfg` (the target's, else the
//! initramfs's copy), replaced whole by `ci.di.policy=` on the command line. The grammar is
//! ds-identify's: comma-separated tokens, a mode (`disabled`, `enabled`, `search`, `report`)
//! and `found=all|first`, `maybe=all|none`, `notfound=enabled|disabled`; a bad value of a known
//! key is a warning and that key keeps its default, other tokens are ignored, as ds-identify
//! does. The file's `datasource:` names a datasource as `ds=` does. Only `disabled` changes
//! what ember does: the others say how cloud-init treats what ds-identify found, and ember
//! never tries a datasource without evidence whatever they say.

use crate::cmdline;
use crate::context::Ctx;
use crate::error::Diag;
use crate::reason::Reason;

pub const CONFIG: &str = "/etc/cloud/ds-identify.cfg";
const CONFIG_MAX: u64 = 64 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Disabled,
    Enabled,
    Search,
    Report,
}

/// The policy in force and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub mode: Mode,
    /// `kernel command line: ci.di.policy=…` or `/etc/cloud/ds-identify.cfg: policy: …`; None
    /// for the default.
    pub source: Option<String>,
    /// The file's `datasource:`, with where it was said.
    pub datasource: Option<(String, String)>,
    pub diags: Vec<Diag>,
}

/// The policy of this boot: the command line's, else the file's, else ds-identify's default
/// (`search`).
pub fn read(ctx: &Ctx) -> Policy {
    let mut diags = Vec::new();
    let file = read_config(ctx, &mut diags);
    let from_cmdline = cmdline::value(&ctx.cmdline, "ci.di.policy")
        .map(|v| (v.split(';').next().unwrap_or("").to_string(), None));
    let from_file = file
        .iter()
        .find(|(k, _, _)| k == "policy")
        .map(|(_, v, line)| (v.clone(), Some(*line)));
    let (mode, source) = match from_cmdline.or(from_file) {
        Some((text, line)) => {
            let shown = match line {
                None => format!("{}: ci.di.policy={text}", ctx.cmdline_source),
                Some(_) => format!("{CONFIG}: policy: {text}"),
            };
            let mut bad = |key: &str, value: &str| {
                let d = Diag::warning(
                    Reason::BadValue,
                    format!("ds-identify policy: {key}={value} is not a value it takes; the default is used"),
                );
                diags.push(match line {
                    Some(n) => d.file(CONFIG).key("policy").line(Some(n)),
                    None => d.key("ci.di.policy"),
                });
            };
            (parse(&text, &mut bad), Some(shown))
        }
        None => (Mode::Search, None),
    };
    let datasource = file
        .iter()
        .rev()
        .find(|(k, _, _)| k == "datasource")
        .filter(|(_, v, _)| !v.is_empty())
        .map(|(_, v, _)| (v.clone(), format!("{CONFIG}: datasource: {v}")));
    Policy {
        mode,
        source,
        datasource,
        diags,
    }
}

/// A policy string's mode (the last mode token wins; `search` when there is none). `bad` hears
/// of each known key with a value ds-identify refuses.
pub fn parse(text: &str, bad: &mut dyn FnMut(&str, &str)) -> Mode {
    let mut mode = Mode::Search;
    for tok in text.split(',').map(str::trim) {
        match tok {
            "disabled" => mode = Mode::Disabled,
            "enabled" => mode = Mode::Enabled,
            "search" => mode = Mode::Search,
            "report" => mode = Mode::Report,
            "found=all" | "found=first" | "maybe=all" | "maybe=none" | "notfound=enabled"
            | "notfound=disabled" => {}
            _ => {
                if let Some((key, value)) = tok.split_once('=') {
                    if ["found", "maybe", "notfound"].contains(&key) {
                        bad(key, value);
                    }
                }
            }
        }
    }
    mode
}

/// The file's `key: value` lines as ds-identify reads them (a `#` starts a comment, the key is
/// what comes before the first `:`, the value is trimmed and unquoted), with line numbers; the
/// last of a key wins. Empty when there is no file.
fn read_config(ctx: &Ctx, diags: &mut Vec<Diag>) -> Vec<(String, String, u32)> {
    let data = match &ctx.target {
        Some(root) if root.exists(CONFIG) => root
            .read_file(CONFIG, CONFIG_MAX)
            .map(Option::unwrap_or_default)
            .map_err(|e| e.to_string()),
        _ => match crate::regular::read(&ctx.host.path(CONFIG), CONFIG_MAX) {
            Ok(data) => Ok(data),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e.to_string()),
        },
    };
    let data = data.unwrap_or_else(|e| {
        diags.push(Diag::warning(Reason::ConfigRead, e).file(CONFIG));
        Vec::new()
    });
    let text = String::from_utf8_lossy(&data);
    let mut pairs: Vec<(String, String, u32)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q)?.strip_suffix(*q))
            .unwrap_or(value);
        let key = key.trim().to_string();
        pairs.retain(|(k, _, _)| *k != key);
        pairs.push((key, unquoted.to_string(), n as u32 + 1));
    }
    pairs
}

/// Why the policy switches cloud-init off, or None.
pub fn disabled(policy: &Policy) -> Option<String> {
    let source = policy.source.as_deref()?;
    (policy.mode == Mode::Disabled).then(|| format!("ds-identify policy disabled ({source})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_bad_values_as_ds_identify_reads_them() {
        let mut none = |k: &str, v: &str| panic!("{k}={v} is good");
        assert_eq!(parse("disabled", &mut none), Mode::Disabled);
        assert_eq!(parse("enabled", &mut none), Mode::Enabled);
        let default = "search,found=all,maybe=none,notfound=disabled";
        assert_eq!(parse(default, &mut none), Mode::Search);
        assert_eq!(parse("report,notfound=enabled", &mut none), Mode::Report);
        assert_eq!(parse("found=first", &mut none), Mode::Search);
        assert_eq!(parse("search,disabled", &mut none), Mode::Disabled);
        let mut bad = Vec::new();
        let mode = parse("search,found=some,maybe=x,bogus=1,other", &mut |k, v| {
            bad.push(format!("{k}={v}"))
        });
        assert_eq!(mode, Mode::Search);
        assert_eq!(bad, ["found=some", "maybe=x"]);
    }
}
