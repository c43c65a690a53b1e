//! Unit tests of `update_etc_hosts`: the templates, and `localhost` mode.

use super::*;
use crate::hostname::Source;

fn names(hostname: &str, fqdn: &str) -> Names {
    Names {
        hostname: hostname.into(),
        fqdn: fqdn.into(),
        hostname_from: Source::Hostname,
        fqdn_from: Source::Fqdn,
    }
}

#[test]
fn templates_render_like_cloud_init() {
    let n = names("web", "web.example.com");
    let limits = Limits::default();
    let jinja = "## template:jinja\n{#\ncomment\n-#}\n# managed\n\
                 {# note about '{{hostname}}' -#}\n127.0.1.1 {{fqdn}} {{hostname}}\n\
                 127.0.0.1 localhost\n";
    let cases = [
        (
            jinja,
            "# managed\n127.0.1.1 web.example.com web\n127.0.0.1 localhost\n",
        ),
        (
            "## template: basic\n127.0.0.1 ${fqdn} $hostname $ x\n",
            "127.0.0.1 web.example.com web $ x\n",
        ),
        (
            "127.0.0.1 $fqdn ${hostname}\n",
            "127.0.0.1 web.example.com web\n",
        ),
        // cloud-init's pattern: `${}` and `${ x }` name nothing and stay as written (ember
        // made `${}` a `$` and refused `${ x }` before the renderers were one).
        ("x ${} ${ fqdn }\n", "x ${} ${ fqdn }\n"),
    ];
    for (tmpl, want) in cases {
        let (out, undefined) = render(tmpl, &n, &ember_jinja::MiniJinja, &limits).unwrap();
        assert_eq!(out, want, "{tmpl}");
        assert!(undefined.is_empty());
    }
    for bad in [
        "## template: mako\nx\n",
        "## template: jinja\n{% if %}\n",
        "$domain\n",
        "## tempé: jinja\n$x\n",
    ] {
        assert!(
            render(bad, &n, &ember_jinja::MiniJinja, &limits).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn builtin_names_this_machine_on_127_0_1_1() {
    let out = builtin(Some("debian"), &names("web", "web.example.com"));
    assert!(out.contains("\n127.0.1.1 web.example.com web\n127.0.0.1 localhost\n"));
    assert!(out.contains("::1 localhost ip6-localhost ip6-loopback\n"));
    let out = builtin(Some("redhat"), &names("db", "db"));
    assert!(out.contains("\n127.0.1.1 db\n127.0.0.1 localhost localhost.localdomain"));
    assert!(out.ends_with('\n'));
}

#[test]
fn localhost_mode_edits_one_line() {
    let n = names("web", "web.example.com");
    let cases: &[(Option<&str>, Option<&str>)] = &[
        (
            None,
            Some(
                "# Added by ember (manage_etc_hosts: localhost)\n127.0.1.1\tweb.example.com\tweb\n",
            ),
        ),
        (
            Some("127.0.0.1 localhost\n127.0.1.1 old.example.com old\n10.0.0.2 db # db\n"),
            Some("127.0.0.1 localhost\n127.0.1.1\tweb.example.com\tweb\n10.0.0.2 db # db\n"),
        ),
        (
            Some("127.0.0.1 localhost\n"),
            Some("127.0.0.1 localhost\n127.0.1.1\tweb.example.com\tweb\n"),
        ),
        (
            Some("127.0.1.1 a\n::1 localhost\n127.0.1.1 b\n"),
            Some("127.0.1.1\tweb.example.com\tweb\n::1 localhost\n"),
        ),
        (
            Some("127.0.0.1 localhost\n127.0.1.1 web.example.com web\n"),
            None,
        ),
        (
            Some("# 127.0.1.1 web.example.com web\n"),
            Some("# 127.0.1.1 web.example.com web\n127.0.1.1\tweb.example.com\tweb\n"),
        ),
    ];
    for (existing, want) in cases {
        let got = with_localhost(*existing, &n);
        assert_eq!(got.as_deref(), *want, "{existing:?}");
        // Applying it again changes nothing.
        if let Some(g) = &got {
            assert_eq!(with_localhost(Some(g), &n), None);
        }
    }
    let same = names("box", "box");
    let once = with_localhost(Some(""), &same).unwrap();
    assert_eq!(once, "127.0.1.1\tbox\n");
    assert_eq!(with_localhost(Some(&once), &same), None);
}
