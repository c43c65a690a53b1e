//! Unit tests of the hostname modules' readers.

use super::*;
use serde_json::json;

fn keys(diags: &[Diag]) -> Vec<(&str, &str)> {
    diags
        .iter()
        .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn defaults_when_absent() {
    let mut d = Vec::new();
    let want = Settings {
        names: Some(Configured::default()),
        preserve_hostname: false,
        prefer_fqdn_over_hostname: None,
        create_hostname_file: true,
        manage_etc_hosts: Manage::Off,
    };
    assert_eq!(read(&json!({}), &mut d), want);
    let hostname = read_hostname(&json!({}), &mut d).unwrap();
    assert_eq!(hostname.names, Configured::default());
    assert_eq!(hostname.prefer_fqdn_over_hostname, None);
    assert!(hostname.create_hostname_file);
    assert_eq!(read_etc_hosts(&json!({}), &mut d), None);
    assert!(d.is_empty());
}

#[test]
fn each_key_is_read() {
    let mut d = Vec::new();
    let cfg = json!({"hostname": "web", "fqdn": "web.example.com", "preserve_hostname": "no",
                     "prefer_fqdn_over_hostname": true, "create_hostname_file": false,
                     "manage_etc_hosts": "localhost"});
    let names = Configured {
        hostname: Some("web".into()),
        fqdn: Some("web.example.com".into()),
    };
    let want = Settings {
        names: Some(names.clone()),
        preserve_hostname: false,
        prefer_fqdn_over_hostname: Some(true),
        create_hostname_file: false,
        manage_etc_hosts: Manage::Localhost,
    };
    assert_eq!(read(&cfg, &mut d), want);
    let hostname = HostnameSettings {
        names: names.clone(),
        prefer_fqdn_over_hostname: Some(true),
        create_hostname_file: false,
    };
    assert_eq!(read_hostname(&cfg, &mut d), Some(hostname));
    let hosts = EtcHostsSettings {
        manage: Manage::Localhost,
        names,
    };
    assert_eq!(read_etc_hosts(&cfg, &mut d), Some(hosts));
    assert!(d.is_empty());
    let preserved = json!({"preserve_hostname": true});
    assert!(read(&preserved, &mut d).preserve_hostname);
    assert_eq!(read_hostname(&preserved, &mut d), None);
}

#[test]
fn a_module_switched_off_reads_no_further() {
    let mut d = Vec::new();
    let cfg = json!({"preserve_hostname": true, "hostname": 5, "create_hostname_file": "x",
                     "manage_etc_hosts": false});
    assert_eq!(read_hostname(&cfg, &mut d), None);
    assert_eq!(read_etc_hosts(&cfg, &mut d), None);
    assert!(d.is_empty());
    // `read` (ember schema) reports every key's mistakes.
    read(&cfg, &mut d);
    assert_eq!(
        keys(&d),
        [
            ("wrong-type", "hostname"),
            ("wrong-type", "create_hostname_file")
        ]
    );
}

#[test]
fn each_module_reads_its_own_keys() {
    let cfg = json!({"manage_etc_hosts": "bogus", "create_hostname_file": "perhaps"});
    let mut d = Vec::new();
    let read = read_hostname(&cfg, &mut d).expect("read");
    assert!(!read.create_hostname_file, "cloud-init reads it as false");
    assert_eq!(keys(&d), [("wrong-type", "create_hostname_file")]);
    let mut d = Vec::new();
    assert_eq!(read_etc_hosts(&cfg, &mut d), None);
    assert_eq!(keys(&d), [("wrong-type", "manage_etc_hosts")]);
}

#[test]
fn a_wrong_type_names_its_key() {
    for key in [
        "hostname",
        "fqdn",
        "preserve_hostname",
        "prefer_fqdn_over_hostname",
        "create_hostname_file",
        "manage_etc_hosts",
    ] {
        let mut d = Vec::new();
        let got = read(&json!({ key: [1] }), &mut d);
        assert_eq!(keys(&d), [("wrong-type", key)], "{key}");
        let names_usable = !matches!(key, "hostname" | "fqdn");
        assert_eq!(got.names.is_some(), names_usable, "{key}");
    }
    // Both names are checked before the module gives up.
    let mut d = Vec::new();
    let cfg = json!({"hostname": 1, "fqdn": 2, "manage_etc_hosts": true});
    assert_eq!(read_etc_hosts(&cfg, &mut d), None);
    assert_eq!(
        keys(&d),
        [("wrong-type", "hostname"), ("wrong-type", "fqdn")]
    );
}

#[test]
fn manage_values() {
    let cases = [
        (json!({}), Manage::Off, None),
        (json!({"manage_etc_hosts": null}), Manage::Off, None),
        (json!({"manage_etc_hosts": false}), Manage::Off, None),
        (json!({"manage_etc_hosts": true}), Manage::Render, None),
        (json!({"manage_etc_hosts": "True"}), Manage::Render, None),
        (
            json!({"manage_etc_hosts": "localhost"}),
            Manage::Localhost,
            None,
        ),
        (
            json!({"manage_etc_hosts": "template"}),
            Manage::Render,
            Some("deprecated"),
        ),
        (
            json!({"manage_etc_hosts": "yes please"}),
            Manage::Off,
            Some("wrong-type"),
        ),
        (
            json!({"manage_etc_hosts": [true]}),
            Manage::Off,
            Some("wrong-type"),
        ),
    ];
    for (cfg, want, code) in cases {
        let mut diags = Vec::new();
        assert_eq!(manage_etc_hosts(&cfg, &mut diags), want, "{cfg}");
        assert_eq!(diags.first().map(|d| d.code.as_str()), code, "{cfg}");
        assert!(diags
            .iter()
            .all(|d| d.key.as_deref() == Some("manage_etc_hosts")));
    }
}

#[test]
fn bools_as_cloud_init_reads_them() {
    let cfg = json!({"a": true, "b": "Yes", "c": "off", "d": [1], "e": "maybe", "f": null});
    let mut diags = Vec::new();
    let got: Vec<_> = ["a", "b", "c", "d", "e", "f", "missing"]
        .iter()
        .map(|k| opt_bool(&cfg, k, &mut diags))
        .collect();
    // Anything else is false, with a warning: cloud-init's module goes on (issue 21 item 8).
    assert_eq!(
        got,
        [
            Some(true),
            Some(true),
            Some(false),
            Some(false),
            Some(false),
            None,
            None
        ]
    );
    assert_eq!(keys(&diags), [("wrong-type", "d"), ("wrong-type", "e")]);
    assert!(diags.iter().all(|d| !d.is_error()));
}
