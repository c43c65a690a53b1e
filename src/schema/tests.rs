//! The checker on small inline cases: (document, expected `key line` of each problem).

use super::{check, Kind};
use crate::limits::Limits;

fn problems(text: &str) -> Vec<String> {
    check(text, Kind::UserData, &Limits::default())
        .problems
        .iter()
        .map(|p| {
            format!(
                "{} {}",
                p.key.as_deref().unwrap_or_default(),
                p.line.unwrap_or(0)
            )
        })
        .collect()
}

#[test]
fn shapes_and_lines() {
    let cases: &[(&str, &[&str])] = &[
        ("#cloud-config\nruncmd: [ls]\n", &[]),
        // The module's reader decides: an empty list runs nothing, a number is no command.
        ("#cloud-config\nruncmd: []\n", &[]),
        ("#cloud-config\nruncmd: [ls, 5]\n", &["runcmd.1 2"]),
        ("#cloud-config\nresize_rootfs: true\n", &[]),
        (
            "#cloud-config\nresize_rootfs: 'yes'\n",
            &["resize_rootfs 2"],
        ),
        (
            "#cloud-config\nusers: [{name: a, bogus: 1}]\n",
            &["users.0.bogus 2"],
        ),
        ("#cloud-config\nusers: [{name: a, uid: 5}]\n", &[]),
        ("#cloud-config\nswap: {size: 1.5G}\n", &[]),
        ("#cloud-config\nswap: {size: lots}\n", &["swap.size 2"]),
        (
            "#cloud-config\nmanage_etc_hosts: template\n",
            &["manage_etc_hosts 2"],
        ),
        ("#cloud-config\nfoo: 1\n", &["foo 2"]),
        ("#cloud-config\n", &["format-l1.c1 1"]),
        ("#cloud-config\n7\n", &["format-l1.c1 1"]),
    ];
    for (text, want) in cases {
        assert_eq!(problems(text), *want, "{text:?}");
    }
}

#[test]
fn a_deprecated_form_is_valid_with_a_deprecation() {
    let report = check(
        "#cloud-config\ngrowpart: {mode: false}\n",
        Kind::UserData,
        &Limits::default(),
    );
    assert!(report.is_valid());
    assert_eq!(
        report.problems[0].severity,
        crate::error::Severity::Deprecated
    );
}

/// Issue 21 item 7: keys cloud-init acts on and ember only takes are said, never silent.
#[test]
fn keys_ember_does_not_act_on_are_warnings() {
    let cases: &[(&str, &[&str])] = &[
        (
            "#cloud-config\nreporting: {logging: {type: log}}\n",
            &["reporting 2"],
        ),
        (
            "#cloud-config\nssh_quiet_keygen: false\n",
            &["ssh_quiet_keygen 2"],
        ),
        ("#cloud-config\nssh_quiet_keygen: true\n", &[]),
    ];
    for (text, want) in cases {
        assert_eq!(problems(text), *want, "{text}");
        let report = check(text, Kind::UserData, &Limits::default());
        assert!(report.is_valid(), "{text}: warnings only");
    }
}

/// ember's own image settings are checked by the reader the boot uses, with its severities.
#[test]
fn ember_settings_as_the_boot_reads_them() {
    let text = "ember:\n  rsa_hostkey: before-sshd\n  removable_seeds: first-boot\n  limits:\n    file_byte: 5\n";
    let report = check(text, Kind::ImageConfig, &Limits::default());
    let got: Vec<String> = report
        .problems
        .iter()
        .map(|p| {
            format!(
                "{} {} {:?}",
                p.key.as_deref().unwrap_or_default(),
                p.line.unwrap_or(0),
                p.severity
            )
        })
        .collect();
    assert_eq!(got, ["ember.rsa_hostkey 2 Warning", "ember.limits 4 Error"]);
    let good =
        "ember: {rsa_host_key: before-sshd, removable_seeds: always, limits: {file_bytes: 5}}\n";
    assert_eq!(
        check(good, Kind::ImageConfig, &Limits::default()).problems,
        vec![]
    );
}
