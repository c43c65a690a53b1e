//! Azure's ovf-env.xml (the provisioning media's `Environment` document): user, password,
//! host name, ssh keys, CustomData and platform settings, read as cloud-init's `OvfEnvXml`
//! reads them (elements matched by local name in the windowsazure namespace, unknown ones
//! ignored), and the copy the agent keeps with the password redacted. Not here: finding the
//! media, the wireserver, what the datasource makes of the values.
//! <https://learn.microsoft.com/en-us/azure/virtual-machines/linux/using-cloud-init>

use crate::datasource::common::xml::{document, utf8};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use base64::Engine as _;
use roxmltree::{Document, Node};

pub(crate) const FILE: &str = "ovf-env.xml";
/// Namespace of every element cloud-init reads (its `wa:` prefix).
const WA: &str = "http://schemas.microsoft.com/windowsazure";
/// cloud-init's marker for a password already removed from the document.
pub const REDACTED: &str = "REDACTED";

#[derive(Debug, Default, PartialEq)]
pub struct Ovf {
    pub username: Option<String>,
    /// Never logged; cloud-init's `REDACTED` counts as none.
    pub password: Option<Secret<String>>,
    pub hostname: Option<String>,
    pub disable_ssh_password_auth: Option<bool>,
    pub public_keys: Vec<OvfKey>,
    /// Base64-decoded.
    pub custom_data: Option<Secret<Vec<u8>>>,
    /// `ProvisionGuestAgent`: whether the image's agent (waagent) is to run.
    pub provision_guest_agent: Option<bool>,
    /// `ProvisionGuestProxyAgent`, which cloud-init also reads.
    pub provision_guest_proxy_agent: bool,
    /// `PreprovisionedVm` true, or `PreprovisionedVMType` set.
    pub preprovisioned_vm: bool,
    /// `PreprovisionedVMType` as given (`Running`, `Savable`).
    pub preprovisioned_vm_type: Option<String>,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct OvfKey {
    pub fingerprint: Option<String>,
    pub path: Option<String>,
    pub value: Option<String>,
}

/// Reads ovf-env.xml. Errors, each naming the element and line, never a value: not UTF-8,
/// not XML (a DTD included), no `ProvisioningSection` (code `ovf-not-azure`, cloud-init's
/// "not Azure's ovf-env.xml"), a required element missing or one given twice, CustomData not
/// base64, a boolean that is not one. The caller bounds the size (`file_bytes`).
pub fn parse(xml: &[u8]) -> Result<Ovf, Diag> {
    let text = utf8(xml, FILE)?;
    let doc = document(text, FILE)?;
    let x = Xml { doc: &doc };
    let root = doc.root_element();
    let Some(prov) = x.one(root, "ProvisioningSection", "")? else {
        let msg = "no wa:ProvisioningSection under the root element: not Azure's ovf-env.xml";
        return Err(x.diag(Reason::OvfNotAzure, msg, root, "ProvisioningSection"));
    };
    let set_key = "ProvisioningSection.LinuxProvisioningConfigurationSet";
    let set = x.required(
        prov,
        "LinuxProvisioningConfigurationSet",
        "ProvisioningSection",
    )?;
    let mut ovf = Ovf {
        username: x.required_text(set, "UserName", set_key)?,
        password: x
            .text(set, "UserPassword", set_key)?
            .filter(|p| p != REDACTED)
            .map(Secret::new),
        hostname: x.required_text(set, "HostName", set_key)?,
        disable_ssh_password_auth: x.boolean(set, "DisableSshPasswordAuthentication", set_key)?,
        custom_data: x.custom_data(set, set_key)?,
        public_keys: x.public_keys(set, set_key)?,
        ..Ovf::default()
    };
    let platform = x.required(root, "PlatformSettingsSection", "")?;
    let settings = x.required(platform, "PlatformSettings", "PlatformSettingsSection")?;
    let key = "PlatformSettingsSection.PlatformSettings";
    ovf.provision_guest_agent = x.boolean(settings, "ProvisionGuestAgent", key)?;
    ovf.provision_guest_proxy_agent =
        x.boolean(settings, "ProvisionGuestProxyAgent", key)? == Some(true);
    ovf.preprovisioned_vm_type = x.text(settings, "PreprovisionedVMType", key)?;
    ovf.preprovisioned_vm = x.boolean(settings, "PreprovisionedVm", key)? == Some(true)
        || ovf.preprovisioned_vm_type.is_some();
    Ok(ovf)
}

/// The same document with the text of every `UserPassword` element (any namespace, as
/// cloud-init redacts) replaced by `REDACTED`, every other byte as it was: custom data stays,
/// since the agent reads it from this copy. For /var/lib/waagent/ovf-env.xml (0600).
pub fn sanitize(xml: &[u8]) -> Result<Vec<u8>, Diag> {
    let text = utf8(xml, FILE)?;
    let doc = document(text, FILE)?;
    let mut spans: Vec<std::ops::Range<usize>> = doc
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name().contains("UserPassword"))
        .filter(|n| n.text() != Some(REDACTED))
        .filter_map(|n| content_span(text, n.range()))
        .collect();
    // Outermost first; a span inside one already replaced is gone with it.
    ember_core::sort::sort_by_key(&mut spans, |s| (s.start, std::cmp::Reverse(s.end)));
    let (mut out, mut at) = (Vec::with_capacity(xml.len()), 0);
    for span in spans {
        if span.start < at {
            continue;
        }
        out.extend_from_slice(&xml[at..span.start]);
        out.extend_from_slice(REDACTED.as_bytes());
        at = span.end;
    }
    out.extend_from_slice(&xml[at..]);
    Ok(out)
}

/// The bytes between an element's start tag and its end tag, `None` for `<x/>`. The start tag
/// ends at the first `>` outside a quoted attribute value; the end tag is the last `<`.
fn content_span(text: &str, element: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
    let raw = text.as_bytes().get(element.clone())?;
    let mut quote = None;
    let mut open_end = None;
    for (i, &b) in raw.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None, b'>') => {
                open_end = Some(i + 1);
                break;
            }
            _ => {}
        }
    }
    let open_end = open_end?;
    if raw[..open_end].ends_with(b"/>") {
        return None;
    }
    let close = raw.iter().rposition(|&b| b == b'<')?;
    (close >= open_end).then(|| element.start + open_end..element.start + close)
}

/// Lookups in one document, as cloud-init's `_find` and `_parse_property`.
struct Xml<'a, 'i> {
    doc: &'a Document<'i>,
}

impl<'a, 'i> Xml<'a, 'i> {
    fn diag(&self, code: Reason, msg: &str, at: Node, key: &str) -> Diag {
        let line = self.doc.text_pos_at(at.range().start).row;
        Diag::error(code, msg).file(FILE).key(key).line(Some(line))
    }

    /// The `wa:NAME` child of `parent`: none, one, or an error when there are more.
    fn one(
        &self,
        parent: Node<'a, 'i>,
        name: &str,
        at: &str,
    ) -> Result<Option<Node<'a, 'i>>, Diag> {
        let mut found = parent
            .children()
            .filter(|n| n.is_element() && n.tag_name().name() == name)
            .filter(|n| n.tag_name().namespace() == Some(WA));
        let first = found.next();
        if let Some(second) = found.next() {
            let msg = format!("more than one {name} element");
            return Err(self.diag(Reason::OvfInvalid, &msg, second, &join(at, name)));
        }
        Ok(first)
    }

    fn required(&self, parent: Node<'a, 'i>, name: &str, at: &str) -> Result<Node<'a, 'i>, Diag> {
        self.one(parent, name, at)?.ok_or_else(|| {
            let msg = format!("no {name} element, which Azure's ovf-env.xml has");
            self.diag(Reason::OvfInvalid, &msg, parent, &join(at, name))
        })
    }

    /// The text of `wa:NAME` (before any child element, as ElementTree's `.text`); empty is none.
    fn text(&self, parent: Node<'a, 'i>, name: &str, at: &str) -> Result<Option<String>, Diag> {
        let node = self.one(parent, name, at)?;
        Ok(node
            .and_then(|n| n.text())
            .filter(|t| !t.is_empty())
            .map(str::to_string))
    }

    fn required_text(
        &self,
        parent: Node<'a, 'i>,
        name: &str,
        at: &str,
    ) -> Result<Option<String>, Diag> {
        self.required(parent, name, at)?;
        self.text(parent, name, at)
    }

    /// cloud-init's `translate_bool` words, case and spaces aside; an empty element is false as
    /// there; anything else is an error (cloud-init would read it as false).
    fn boolean(&self, parent: Node<'a, 'i>, name: &str, at: &str) -> Result<Option<bool>, Diag> {
        let Some(node) = self.one(parent, name, at)? else {
            return Ok(None);
        };
        let word = node.text().unwrap_or_default().trim().to_ascii_lowercase();
        match word.as_str() {
            "" | "false" | "0" | "off" | "no" => Ok(Some(false)),
            "true" | "1" | "on" | "yes" => Ok(Some(true)),
            _ => Err(self.diag(
                Reason::OvfBool,
                "not a boolean (true or false)",
                node,
                &join(at, name),
            )),
        }
    }

    fn custom_data(&self, set: Node<'a, 'i>, at: &str) -> Result<Option<Secret<Vec<u8>>>, Diag> {
        let Some(node) = self.one(set, "CustomData", at)? else {
            return Ok(None);
        };
        let Some(text) = node.text() else {
            return Ok(None);
        };
        let compact: String = text.split_ascii_whitespace().collect();
        let data = base64::engine::general_purpose::STANDARD
            .decode(compact)
            .map_err(|_| {
                self.diag(
                    Reason::OvfCustomData,
                    "not base64",
                    node,
                    &join(at, "CustomData"),
                )
            })?;
        Ok(Some(Secret::new(data)))
    }

    /// `SSH/PublicKeys/PublicKey`, each with an optional Fingerprint, Path and Value.
    fn public_keys(&self, set: Node<'a, 'i>, at: &str) -> Result<Vec<OvfKey>, Diag> {
        let ssh_at = join(at, "SSH");
        let Some(ssh) = self.one(set, "SSH", at)? else {
            return Ok(Vec::new());
        };
        let keys_at = join(&ssh_at, "PublicKeys");
        let Some(keys) = self.one(ssh, "PublicKeys", &ssh_at)? else {
            return Ok(Vec::new());
        };
        let listed = keys
            .children()
            .filter(|n| n.is_element() && n.tag_name().name() == "PublicKey")
            .filter(|n| n.tag_name().namespace() == Some(WA));
        let mut out = Vec::new();
        for (i, key) in listed.enumerate() {
            let at = format!("{keys_at}.PublicKey.{i}");
            out.push(OvfKey {
                fingerprint: self.text(key, "Fingerprint", &at)?,
                path: self.text(key, "Path", &at)?,
                value: self.text(key, "Value", &at)?,
            });
        }
        Ok(out)
    }
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        format!("{at}.{name}")
    }
}

#[cfg(test)]
mod tests;
