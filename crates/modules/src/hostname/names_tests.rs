//! Unit tests of the name decision and of name validation.

use super::*;
use Source::*;

/// (hostname, fqdn, where the hostname came from, where the fqdn came from)
type Want = (&'static str, &'static str, Source, Source);

#[test]
fn names_as_cloud_init_decides() {
    let none = Inputs::default();
    let cases: &[(Inputs, Want)] = &[
        (
            Inputs {
                hostname: Some("web"),
                local_hostname: Some("md"),
                ..none
            },
            ("web", "md", Hostname, MetaData),
        ),
        (
            Inputs {
                hostname: Some("web"),
                local_hostname: Some("md.example.com"),
                ..none
            },
            ("web", "md.example.com", Hostname, MetaData),
        ),
        (
            Inputs {
                fqdn: Some("db.example.com"),
                local_hostname: Some("md"),
                ..none
            },
            ("db", "db.example.com", Fqdn, Fqdn),
        ),
        (
            Inputs {
                hostname: Some("web"),
                fqdn: Some("db.example.com"),
                ..none
            },
            ("web", "db.example.com", Hostname, Fqdn),
        ),
        (
            Inputs {
                hostname: Some("web.example.org"),
                local_hostname: Some("md"),
                ..none
            },
            ("web", "web.example.org", Hostname, Hostname),
        ),
        (
            Inputs {
                local_hostname: Some("md.example.com"),
                ..none
            },
            ("md", "md.example.com", MetaData, MetaData),
        ),
        (
            Inputs {
                local_hostname: Some("md.localdomain"),
                ..none
            },
            ("md", "md", MetaData, MetaData),
        ),
        (
            Inputs {
                local_hostname: Some("10.0.0.7"),
                ..none
            },
            ("ip-10-0-0-7", "ip-10-0-0-7", MetaData, MetaData),
        ),
        (
            Inputs {
                hostname: Some("web"),
                target_hostname: Some("image"),
                ..none
            },
            ("web", "web", Hostname, Hostname),
        ),
        (
            Inputs {
                local_hostname: Some(""),
                target_hostname: Some("image"),
                target_hosts: Some("127.0.1.1 image.lan image # old\n"),
                ..none
            },
            ("image", "image.lan", Target, Target),
        ),
        (none, ("localhost", "localhost", Target, Target)),
        (
            Inputs {
                fqdn: Some(""),
                ..none
            },
            ("", "", Fqdn, Fqdn),
        ),
    ];
    for (inp, (h, f, hs, fs)) in cases {
        let got = decide(inp);
        assert_eq!(
            (
                got.hostname.as_str(),
                got.fqdn.as_str(),
                got.hostname_from,
                got.fqdn_from
            ),
            (*h, *f, *hs, *fs),
            "{inp:?}"
        );
    }
}

#[test]
fn select_prefers_fqdn_only_when_asked() {
    let n = decide(&Inputs {
        fqdn: Some("db.example.com"),
        ..Inputs::default()
    });
    assert_eq!(n.select(false), "db");
    assert_eq!(n.select(true), "db.example.com");
}

#[test]
fn invalid_names_are_refused() {
    let long_label = "a".repeat(64);
    let long_name = ["a".repeat(63).as_str(); 5].join(".");
    let cases = [
        ("web-1.example.com", true),
        ("a", true),
        ("1host", true),
        ("", false),
        ("web_1", false),
        ("web 1", false),
        ("-web", false),
        ("web-", false),
        ("a..b", false),
        ("web.", false),
        ("wéb", false),
        (long_label.as_str(), false),
        (long_name.as_str(), false),
    ];
    for (name, ok) in cases {
        assert_eq!(invalid_reason(name).is_none(), ok, "{name:?}");
    }
    let bad = decide(&Inputs {
        hostname: Some("ok"),
        local_hostname: Some("bad_md.example.com"),
        ..Inputs::default()
    });
    assert_eq!(validate(&bad).unwrap_err().0, MetaData);
}
