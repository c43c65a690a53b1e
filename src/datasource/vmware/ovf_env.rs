//! The OVF environment (DMTF DSP0243's `ovf-env.xml`: an `Environment` whose first
//! `PropertySection` holds `Property oe:key=… oe:value=…`) and what cloud-init's DataSourceOVF
//! takes from it: `instance-id`, `hostname`/`local-hostname`, `public-keys`, `seedfrom` into
//! meta-data, `user-data` (base64, else as given), `password` into the platform config, and
//! on the transports (not the seed directory) `network-config` (base64 YAML, its `network`).
//! Every other property is ignored, as there. Not here: finding the document.
//! <https://docs.cloud-init.io/en/latest/reference/datasources/ovf.html>

use crate::datasource::common::xml::{document, utf8};
use crate::error::Diag;
use crate::limits::Limits;
use crate::reason::Reason;
use crate::secret::Secret;
use base64::Engine as _;
use serde_json::{Map, Value};

/// The namespace of the `key` and `value` attributes.
const OE: &str = "http://schemas.dmtf.org/ovf/environment/1";

#[derive(Debug, Default)]
pub struct OvfEnv {
    pub meta_data: Map<String, Value>,
    pub user_data: Option<Secret<Vec<u8>>>,
    /// cloud-config from the platform: `{password: …}`.
    pub password: Option<Secret<String>>,
    pub network_config: Option<Value>,
}

/// Reads the document named `file` (`/dev/sr0: ovf-env.xml`). Errors, each naming the file
/// and line, never a value: not UTF-8, not XML, no `Environment` root, no `PropertySection`.
/// A `Property` without its key or value, and a `network-config` that cannot be read, are
/// warnings in `diags` and the rest is used.
pub fn parse(
    xml: &[u8],
    file: &str,
    read_network: bool,
    limits: &Limits,
    diags: &mut Vec<Diag>,
) -> Result<OvfEnv, Diag> {
    let text = utf8(xml, file)?;
    let doc = document(text, file)?;
    let line = |n: roxmltree::Node| doc.text_pos_at(n.range().start).row;
    let root = doc.root_element();
    let invalid = |msg: &str, n: roxmltree::Node| {
        Diag::error(Reason::MetadataInvalid, msg)
            .file(file)
            .line(Some(line(n)))
    };
    if root.tag_name().name() != "Environment" {
        return Err(invalid("the root element is not an OVF Environment", root));
    }
    let Some(section) = root
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "PropertySection")
    else {
        return Err(invalid("no PropertySection in the OVF Environment", root));
    };
    let mut env = OvfEnv::default();
    let props = section
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "Property");
    for (i, prop) in props.enumerate() {
        let (Some(key), Some(value)) = (prop.attribute((OE, "key")), prop.attribute((OE, "value")))
        else {
            let msg = "a Property without oe:key or oe:value: skipped";
            let d = Diag::warning(Reason::MissingKey, msg)
                .file(file)
                .key(format!("PropertySection.Property.{i}"))
                .line(Some(line(prop)));
            diags.push(d);
            continue;
        };
        let key = if key == "hostname" {
            "local-hostname"
        } else {
            key
        };
        match key {
            "seedfrom" | "local-hostname" | "public-keys" | "instance-id" => {
                env.meta_data
                    .insert(key.into(), Value::String(value.into()));
            }
            "password" => env.password = Some(Secret::new(value.to_string())),
            "user-data" => {
                // cloud-init's rule: base64 when it decodes, else the text as given.
                let decoded = base64::engine::general_purpose::STANDARD.decode(value.trim());
                let data = decoded.unwrap_or_else(|_| value.as_bytes().to_vec());
                env.user_data = Some(Secret::new(data));
            }
            "network-config" if read_network => {
                let at = |d: Diag| d.file(file).key("network-config").line(Some(line(prop)));
                match network(value, file, limits) {
                    Ok(net) => env.network_config = net,
                    Err(d) => diags.push(at(d)),
                }
            }
            _ => {}
        }
    }
    Ok(env)
}

/// `network-config`: base64 of a YAML document whose `network` is the config.
fn network(value: &str, file: &str, limits: &Limits) -> Result<Option<Value>, Diag> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(value.trim())
        .map_err(|_| Diag::warning(Reason::BadValue, "network-config is not base64: ignored"))?;
    let name = format!("{file}: network-config");
    let doc =
        crate::datasource::common::seed::parse_mapping(&raw, &name, limits).map_err(|mut d| {
            d.severity = crate::error::Severity::Warning;
            d
        })?;
    Ok(doc.get("network").filter(|v| !v.is_null()).cloned())
}

/// Whether `xml` is an OVF environment at all (its namespace anywhere, case aside), as
/// ds-identify greps a small disc for it.
pub fn looks_like(xml: &[u8]) -> bool {
    let needle = OE.as_bytes();
    xml.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn env_xml(props: &[(&str, &str)]) -> String {
        let mut x = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Environment xmlns=\"http://schemas.dmtf.org/ovf/environment/1\" xmlns:oe=\"http://schemas.dmtf.org/ovf/environment/1\" oe:id=\"\">\n  <PropertySection>\n",
        );
        for (k, v) in props {
            x.push_str(&format!(
                "    <Property oe:key=\"{k}\" oe:value=\"{v}\"/>\n"
            ));
        }
        x.push_str("  </PropertySection>\n</Environment>\n");
        x
    }

    fn read(xml: &str, net: bool) -> (Result<OvfEnv, Diag>, Vec<Diag>) {
        let mut diags = Vec::new();
        let r = parse(
            xml.as_bytes(),
            "ovf-env.xml",
            net,
            &Limits::default(),
            &mut diags,
        );
        (r, diags)
    }

    #[test]
    fn maps_properties_as_cloud_init() {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let net = b64("network:\n  version: 2\n  ethernets: {eth0: {dhcp4: true}}\n");
        let xml = env_xml(&[
            ("instance-id", "iid-ovf-1"),
            ("hostname", "ovfhost"),
            ("public-keys", "ssh-ed25519 AAAA k"),
            ("user-data", &b64("#cloud-config\n")),
            ("password", "pw-s3cret"),
            ("network-config", &net),
            ("vm.other", "ignored"),
        ]);
        let (env, diags) = read(&xml, true);
        let env = env.unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(env.meta_data["instance-id"], "iid-ovf-1");
        assert_eq!(env.meta_data["local-hostname"], "ovfhost");
        assert_eq!(env.meta_data["public-keys"], "ssh-ed25519 AAAA k");
        assert_eq!(env.meta_data.len(), 3);
        assert_eq!(env.user_data.unwrap().expose(), b"#cloud-config\n");
        assert_eq!(env.password.unwrap().expose(), "pw-s3cret");
        assert_eq!(
            env.network_config.unwrap()["ethernets"]["eth0"]["dhcp4"],
            true
        );
        // From the seed directory cloud-init does not read the network config.
        let (env, _) = read(&xml, false);
        assert!(env.unwrap().network_config.is_none());
        // Not base64: the text as given.
        let (env, _) = read(&env_xml(&[("user-data", "#!/bin/sh")]), false);
        assert_eq!(env.unwrap().user_data.unwrap().expose(), b"#!/bin/sh");
    }

    #[test]
    fn bad_documents_are_named_with_their_line() {
        let (r, _) = read("<?xml version=\"1.0\"?>\n<Other/>\n", false);
        let d = r.unwrap_err();
        assert_eq!((d.file.as_deref(), d.line), (Some("ovf-env.xml"), Some(2)));
        let (r, _) = read("<Environment>\n</Environment>", false);
        assert!(r.unwrap_err().message.contains("PropertySection"));
        let (r, _) = read("<Environment><PropertySection>", false);
        assert_eq!(r.unwrap_err().code, "xml-syntax");
        let xml = env_xml(&[("network-config", "!!"), ("instance-id", "i")]).replace(
            "<Property oe:key=\"instance-id\"",
            "<Property key=\"instance-id\"",
        );
        let (r, diags) = read(&xml, true);
        assert!(r.unwrap().meta_data.is_empty());
        let keys: Vec<_> = diags.iter().map(|d| d.key.clone().unwrap()).collect();
        assert_eq!(keys, ["network-config", "PropertySection.Property.1"]);
        assert!(diags.iter().all(|d| !d.message.contains("!!")));
    }

    #[test]
    fn looks_like_an_environment() {
        assert!(looks_like(env_xml(&[]).as_bytes()));
        assert!(looks_like(
            b"xx HTTP://SCHEMAS.DMTF.ORG/OVF/ENVIRONMENT/1 xx"
        ));
        assert!(!looks_like(b"<Environment/>"));
    }

    /// The OVF document under attack: entity and DTD tricks (an internal entity, an external
    /// one naming a host file, the billion laughs, a parameter entity) are refused as a DTD
    /// with the line of `<!DOCTYPE`, never expanded or fetched; a huge attribute and a deep
    /// nesting are read within the node budget without a stack overflow, and past it refused.
    #[test]
    fn entity_tricks_huge_attributes_and_deep_nesting_are_bounded() {
        let head = "<?xml version=\"1.0\"?>\n";
        let tail = "<Environment xmlns:oe=\"http://schemas.dmtf.org/ovf/environment/1\"><PropertySection><Property oe:key=\"instance-id\" oe:value=\"&x;\"/></PropertySection></Environment>\n";
        let laughs: String = (1..10)
            .map(|i| format!("<!ENTITY l{i} \"&l{0};&l{0};&l{0};&l{0};&l{0};&l{0};&l{0};&l{0};&l{0};&l{0};\">", i - 1))
            .collect();
        for dtd in [
            "<!DOCTYPE e [<!ENTITY x \"iid-from-entity\">]>".to_string(),
            "<!DOCTYPE e [<!ENTITY x SYSTEM \"file:///etc/shadow\">]>".to_string(),
            format!("<!DOCTYPE e [<!ENTITY l0 \"ha\">{laughs}<!ENTITY x \"&l9;\">]>"),
            "<!DOCTYPE e [<!ENTITY % p SYSTEM \"http://169.254.169.254/\"> %p;]>".to_string(),
        ] {
            let (r, _) = read(&format!("{head}{dtd}\n{tail}"), false);
            let d = r.unwrap_err();
            assert_eq!((d.code.as_str(), d.line), ("xml-syntax", Some(2)), "{dtd}");
            assert!(d.message.contains("DTD"), "{}", d.message);
        }
        let big = "!".repeat(8 << 20);
        let (env, _) = read(
            &env_xml(&[("instance-id", "i"), ("user-data", &big)]),
            false,
        );
        assert_eq!(env.unwrap().user_data.unwrap().expose().len(), 8 << 20);
        for depth in [10_000, 200_000] {
            let xml = format!(
                "{head}<Environment><PropertySection/>{}{}</Environment>",
                "<a>".repeat(depth),
                "</a>".repeat(depth)
            );
            let (r, _) = read(&xml, false);
            assert_eq!(r.is_ok(), depth < 50_000, "depth {depth}");
        }
    }
}
