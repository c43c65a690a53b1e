use super::*;
use crate::datasource::common::xml::MAX_NODES;

const FULL: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fuzz/seeds/ovf_env/full.xml"
));
const PREFIXED: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fuzz/seeds/ovf_env/prefixed.xml"
));
const PASSWORD: &str = "Pa55&w0rd-7f3c";

/// A minimal document with `set` inside LinuxProvisioningConfigurationSet and `platform`
/// inside PlatformSettings.
fn doc(set: &str, platform: &str) -> Vec<u8> {
    format!(
        r#"<Environment xmlns="http://schemas.dmtf.org/ovf/environment/1" xmlns:wa="http://schemas.microsoft.com/windowsazure">
<wa:ProvisioningSection><wa:LinuxProvisioningConfigurationSet>
<wa:UserName>u</wa:UserName><wa:HostName>h</wa:HostName>{set}
</wa:LinuxProvisioningConfigurationSet></wa:ProvisioningSection>
<wa:PlatformSettingsSection><wa:PlatformSettings>{platform}</wa:PlatformSettings></wa:PlatformSettingsSection>
</Environment>"#
    )
    .into_bytes()
}

fn err(xml: &[u8]) -> Diag {
    let e = parse(xml).unwrap_err();
    assert_eq!(e.file.as_deref(), Some(FILE));
    assert!(e.line.is_some(), "{e}");
    e
}

#[test]
fn reads_the_documented_layout() {
    let ovf = parse(FULL).unwrap();
    assert_eq!(ovf.username.as_deref(), Some("azureuser"));
    assert_eq!(ovf.hostname.as_deref(), Some("web-01"));
    assert_eq!(
        ovf.password.as_ref().map(|p| p.expose().as_str()),
        Some(PASSWORD)
    );
    assert_eq!(ovf.disable_ssh_password_auth, Some(false));
    assert_eq!(
        ovf.custom_data.as_ref().map(|d| d.expose().as_slice()),
        Some(&b"#cloud-config\nruncmd:\n  - echo hello\n"[..])
    );
    assert_eq!(ovf.public_keys.len(), 2);
    let k = &ovf.public_keys[0];
    assert_eq!(
        k.fingerprint.as_deref(),
        Some("07E19D14D1C799224C6A0FD8DDAB6A8BF27D4730")
    );
    assert_eq!(
        k.path.as_deref(),
        Some("/home/azureuser/.ssh/authorized_keys")
    );
    assert!(k.value.as_deref().unwrap().starts_with("ssh-ed25519 "));
    // A key given by fingerprint only: the certificate comes from the wireserver.
    assert_eq!(ovf.public_keys[1].value, None);
    assert!(ovf.public_keys[1].fingerprint.is_some());
    assert_eq!(ovf.provision_guest_agent, Some(true));
    assert!(!ovf.preprovisioned_vm && ovf.preprovisioned_vm_type.is_none());
    assert!(
        !format!("{ovf:?}").contains("Pa55"),
        "Debug shows the password"
    );
}

#[test]
fn prefixes_do_not_matter_the_namespace_does() {
    let ovf = parse(PREFIXED).unwrap();
    assert_eq!(ovf.username.as_deref(), Some("ops"));
    assert_eq!(ovf.hostname.as_deref(), Some("pps-vm"));
    assert_eq!(ovf.password, None, "REDACTED counts as no password");
    assert_eq!(ovf.disable_ssh_password_auth, Some(true));
    assert_eq!(ovf.provision_guest_agent, Some(false));
    assert!(ovf.preprovisioned_vm);
    assert_eq!(ovf.preprovisioned_vm_type.as_deref(), Some("Savable"));
    // The same names in another namespace are not Azure's.
    let other = String::from_utf8(PREFIXED.to_vec())
        .unwrap()
        .replace("schemas.microsoft.com/windowsazure", "example.com/other");
    assert_eq!(err(other.as_bytes()).code, "ovf-not-azure");
}

#[test]
fn without_password_keys_or_custom_data() {
    let ovf = parse(&doc(
        "<wa:UserPassword/><wa:CustomData></wa:CustomData>",
        "",
    ))
    .unwrap();
    assert_eq!(ovf.password, None);
    assert_eq!(ovf.custom_data, None);
    assert!(ovf.public_keys.is_empty());
    assert_eq!(ovf.disable_ssh_password_auth, None);
    assert_eq!(ovf.provision_guest_agent, None);
    let ovf = parse(&doc("", "<wa:PreprovisionedVm>true</wa:PreprovisionedVm>")).unwrap();
    assert!(ovf.preprovisioned_vm);
    // Unknown elements, and known names outside the windowsazure namespace, are ignored.
    let ovf = parse(&doc(
        "<wa:Future>x</wa:Future><UserPassword xmlns=\"urn:x\">p</UserPassword>",
        "<ProvisionGuestAgent>maybe</ProvisionGuestAgent>",
    ))
    .unwrap();
    assert_eq!((ovf.password, ovf.provision_guest_agent), (None, None));
}

#[test]
fn custom_data_may_be_wrapped_but_must_be_base64() {
    let ovf = parse(&doc(
        "<wa:CustomData>\n  aGVs\n  bG8=\n</wa:CustomData>",
        "",
    ))
    .unwrap();
    assert_eq!(ovf.custom_data.unwrap().expose(), b"hello");
    let e = err(&doc("<wa:CustomData>not base64!</wa:CustomData>", ""));
    assert_eq!(e.code, "ovf-custom-data");
    assert_eq!(
        e.key.as_deref(),
        Some("ProvisioningSection.LinuxProvisioningConfigurationSet.CustomData")
    );
    assert!(!e.to_string().contains("not base64!"), "{e}");
}

#[test]
fn booleans_are_words_cloud_init_knows() {
    for (word, want) in [
        ("true", true),
        (" Yes ", true),
        ("1", true),
        ("FALSE", false),
        ("", false),
    ] {
        let set = format!(
            "<wa:DisableSshPasswordAuthentication>{word}</wa:DisableSshPasswordAuthentication>"
        );
        assert_eq!(
            parse(&doc(&set, "")).unwrap().disable_ssh_password_auth,
            Some(want),
            "{word}"
        );
    }
    let e = err(&doc(
        "",
        "\n\n<wa:ProvisionGuestAgent>sure</wa:ProvisionGuestAgent>",
    ));
    assert_eq!((e.code.as_str(), e.line), ("ovf-bool", Some(7)));
    assert!(!e.to_string().contains("sure"), "{e}");
}

#[test]
fn structural_errors_name_the_element_and_line() {
    let two = doc("\n<wa:UserName>v</wa:UserName>", "");
    let e = err(&two);
    assert_eq!((e.code.as_str(), e.line), ("ovf-invalid", Some(4)));
    assert!(e.to_string().contains("more than one UserName"), "{e}");

    let mut sections = String::from_utf8(doc("", "")).unwrap();
    sections = sections.replace(
        "<wa:PlatformSettingsSection>",
        "<wa:ProvisioningSection/>\n<wa:PlatformSettingsSection>",
    );
    let e = err(sections.as_bytes());
    assert_eq!(e.key.as_deref(), Some("ProvisioningSection"));
    assert_eq!(e.line, Some(5));

    let no_host = String::from_utf8(doc("", ""))
        .unwrap()
        .replace("<wa:HostName>h</wa:HostName>", "");
    let e = err(no_host.as_bytes());
    assert!(e.to_string().contains("no HostName element"), "{e}");

    let no_platform = "<E xmlns:wa=\"http://schemas.microsoft.com/windowsazure\"><wa:ProvisioningSection>\
        <wa:LinuxProvisioningConfigurationSet><wa:UserName>u</wa:UserName><wa:HostName>h</wa:HostName>\
        </wa:LinuxProvisioningConfigurationSet></wa:ProvisioningSection></E>";
    assert_eq!(
        err(no_platform.as_bytes()).key.as_deref(),
        Some("PlatformSettingsSection")
    );
    assert_eq!(err(b"<Environment/>").code, "ovf-not-azure");
}

#[test]
fn not_xml_and_not_utf8_say_where() {
    let e = err(b"<Environment>\n<a></b>\n</Environment>");
    assert_eq!((e.code.as_str(), e.line), ("xml-syntax", Some(2)));
    let e = err(b"<Environment>\n\n<wa:X>\xff\xfe</wa:X></Environment>");
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("UTF-8"), "{e}");
    assert_eq!(err(b"").code, "xml-syntax");
    // An unknown entity's name could be part of a password: it is not quoted.
    let e = err(b"<E><wa:UserPassword>a&hunter2;</wa:UserPassword></E>");
    assert!(!e.to_string().contains("hunter2"), "{e}");
}

#[test]
fn a_dtd_is_refused_so_entities_cannot_explode() {
    let bomb = br#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<Environment>&lol3;</Environment>"#;
    let e = err(bomb);
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("DTD"), "{e}");
    assert!(sanitize(bomb).is_err());
    let external = b"<!DOCTYPE E SYSTEM \"file:///etc/shadow\"><E/>";
    assert!(err(external).message.contains("DTD"));
}

#[test]
fn too_many_nodes_are_refused() {
    let many = format!("<E>{}</E>", "<a/>".repeat(MAX_NODES as usize));
    assert!(err(many.as_bytes()).message.contains("more XML nodes"));
}

#[test]
fn sanitize_replaces_only_the_password_text() {
    let clean = sanitize(FULL).unwrap();
    let text = String::from_utf8(clean.clone()).unwrap();
    assert!(
        text.contains("<UserPassword>REDACTED</UserPassword>"),
        "{text}"
    );
    assert!(!text.contains("Pa55"));
    let expected = String::from_utf8(FULL.to_vec())
        .unwrap()
        .replace("Pa55&amp;w0rd-7f3c", REDACTED);
    assert_eq!(text, expected, "every other byte as it was");
    assert_eq!(parse(&clean).unwrap().password, None);
    // Custom data stays for the agent.
    assert!(parse(&clean).unwrap().custom_data.is_some());
    // Already redacted (as CDATA here) or absent: unchanged.
    assert_eq!(sanitize(PREFIXED).unwrap(), PREFIXED);
    assert_eq!(sanitize(&clean).unwrap(), clean);
    let none = doc("<wa:UserPassword/>", "");
    assert_eq!(sanitize(&none).unwrap(), none);
    assert!(sanitize(b"<a>").is_err());
}

#[test]
fn sanitize_handles_attributes_cdata_and_odd_spacing() {
    let xml = b"<E xmlns:wa='urn:w'>\r\n<wa:UserPassword a='x>y' b=\"'\" >\n<![CDATA[p<w>]]>&lt;</wa:UserPassword >\
        <UserPassword>second</UserPassword><UserPasswordHint>h</UserPasswordHint></E>";
    let text = String::from_utf8(sanitize(xml).unwrap()).unwrap();
    assert_eq!(
        text,
        "<E xmlns:wa='urn:w'>\r\n<wa:UserPassword a='x>y' b=\"'\" >REDACTED</wa:UserPassword >\
         <UserPassword>REDACTED</UserPassword><UserPasswordHint>REDACTED</UserPasswordHint></E>"
    );
    // A BOM and the declaration stay.
    let bom = b"\xef\xbb\xbf<?xml version=\"1.0\"?><E><UserPassword>x</UserPassword></E>";
    assert!(sanitize(bom).unwrap().starts_with(b"\xef\xbb\xbf<?xml"));
}
