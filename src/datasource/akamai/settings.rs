//! Akamai's datasource settings as cloud-init merges them: the flags in the DMI baseboard
//! serial (`als=1;ais=0;dhcp=1;v4=1;v6=0;pmp=f2:3,f2:4`) win over the image's
//! `datasource: {Akamai: {…}}`, which wins over the defaults (everything allowed, MAC prefix
//! `f2:3`). A flag ember cannot read is a warning naming it, and the next source decides.
//! Pure: DMI text and config in, settings out.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/akamai.html>

use crate::error::Diag;
use crate::reason::Reason;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub allow_local_stage: bool,
    pub allow_init_stage: bool,
    pub allow_dhcp: bool,
    pub allow_ipv4: bool,
    pub allow_ipv6: bool,
    pub preferred_mac_prefixes: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            allow_local_stage: true,
            allow_init_stage: true,
            allow_dhcp: true,
            allow_ipv4: true,
            allow_ipv6: true,
            preferred_mac_prefixes: vec!["f2:3".into()],
        }
    }
}

/// The DMI flags' short names and the settings they stand for.
const SHORT: [(&str, &str); 6] = [
    ("als", "allow_local_stage"),
    ("ais", "allow_init_stage"),
    ("dhcp", "allow_dhcp"),
    ("v4", "allow_ipv4"),
    ("v6", "allow_ipv6"),
    ("pmp", "preferred_mac_prefixes"),
];

impl Settings {
    fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "allow_local_stage" => &mut self.allow_local_stage,
            "allow_init_stage" => &mut self.allow_init_stage,
            "allow_dhcp" => &mut self.allow_dhcp,
            "allow_ipv4" => &mut self.allow_ipv4,
            "allow_ipv6" => &mut self.allow_ipv6,
            _ => return None,
        })
    }
}

/// The merged settings and a warning per value that could not be read.
pub fn merge(board_serial: Option<&str>, image: Option<&Value>) -> (Settings, Vec<Diag>) {
    let mut s = Settings::default();
    let mut diags = Vec::new();
    // The image's first, then DMI's over it: the same outcome as cloud-init's merge order.
    if let Some(Value::Object(cfg)) = image {
        for (key, v) in cfg {
            let at = format!("datasource.Akamai.{key}");
            let bad = |what: &str| {
                Diag::warning(Reason::WrongType, format!("must be {what}")).key(at.clone())
            };
            if key == "preferred_mac_prefixes" {
                match v
                    .as_array()
                    .map(|l| l.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
                {
                    Some(Some(list)) => {
                        s.preferred_mac_prefixes =
                            list.iter().map(|p| p.to_ascii_lowercase()).collect()
                    }
                    _ => diags.push(bad("a list of strings")),
                }
            } else if let Some(slot) = s.flag(key) {
                match v.as_bool() {
                    Some(b) => *slot = b,
                    None => diags.push(bad("true or false")),
                }
            }
        }
    }
    for pair in board_serial.unwrap_or_default().split(';') {
        let Some((short, value)) = pair.trim().split_once('=') else {
            continue;
        };
        let Some((_, name)) = SHORT.iter().find(|(k, _)| *k == short) else {
            continue;
        };
        let at = format!("board_serial: {short}");
        if *name == "preferred_mac_prefixes" {
            s.preferred_mac_prefixes = value
                .split(',')
                .map(|p| p.trim().to_ascii_lowercase())
                .collect();
        } else if let Some(slot) = s.flag(name) {
            match value {
                "0" => *slot = false,
                "1" => *slot = true,
                _ => diags.push(
                    Diag::warning(Reason::WrongType, "a DMI flag must be 0 or 1: ignored")
                        .file("dmi")
                        .key(at),
                ),
            }
        }
    }
    (s, diags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_then_image_then_dmi() {
        assert_eq!(merge(None, None), (Settings::default(), vec![]));
        let image = json!({"allow_dhcp": false, "allow_ipv6": false,
                           "preferred_mac_prefixes": ["F2:3", "f2:4"]});
        let (s, diags) = merge(Some("als=1;dhcp=1;pmp=aa:bb,cc;x=9"), Some(&image));
        assert!(diags.is_empty(), "{diags:?}");
        assert!(s.allow_dhcp, "DMI wins over the image");
        assert!(!s.allow_ipv6, "the image wins over the default");
        assert_eq!(s.preferred_mac_prefixes, ["aa:bb", "cc"]);
        let (s, _) = merge(None, Some(&image));
        assert_eq!(s.preferred_mac_prefixes, ["f2:3", "f2:4"]);
    }

    #[test]
    fn unreadable_values_are_named_and_ignored() {
        let image = json!({"allow_ipv4": "no", "preferred_mac_prefixes": "f2:3"});
        let (s, diags) = merge(Some("v6=yes;ais=0"), Some(&image));
        assert!(s.allow_ipv4 && s.allow_ipv6 && !s.allow_init_stage);
        let keys: Vec<_> = diags.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(
            keys,
            [
                "datasource.Akamai.allow_ipv4",
                "datasource.Akamai.preferred_mac_prefixes",
                "board_serial: v6"
            ]
        );
    }
}
