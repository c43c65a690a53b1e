//! Scalar resolution tables: every plain form PyYAML resolves, and the explicit `!!` tags.

use crate::resolve::{plain_scalar, scalar, tag_kind, TagKind};
use saphyr_parser::{ScalarStyle, Tag};
use serde_json::json;

const CORE: &str = "tag:yaml.org,2002:";

#[test]
fn plain_scalars_resolve_like_pyyaml() {
    let cases = [
        ("~", json!(null)),
        ("null", json!(null)),
        ("NULL", json!(null)),
        ("", json!(null)),
        ("nUll", json!("nUll")),
        ("yes", json!(true)),
        ("On", json!(true)),
        ("OFF", json!(false)),
        ("FALSE", json!(false)),
        ("y", json!("y")),
        ("n", json!("n")),
        ("yEs", json!("yEs")),
        ("0644", json!(420)),
        ("0_", json!(0)),
        ("09", json!("09")),
        ("0o17", json!("0o17")),
        ("0x1F", json!(31)),
        ("-0x1F", json!(-31)),
        ("0b101", json!(5)),
        ("+12_345", json!(12345)),
        ("-0", json!(0)),
        ("18446744073709551615", json!(u64::MAX)),
        ("-9223372036854775808", json!(i64::MIN)),
        ("18446744073709551616", json!("18446744073709551616")),
        ("0x_", json!("0x_")),
        ("12:34:56", json!("12:34:56")),
        ("52:54:00:12:34:56", json!("52:54:00:12:34:56")),
        ("190:20:30.15", json!("190:20:30.15")),
        ("2001-12-14", json!("2001-12-14")),
        ("1.5", json!(1.5)),
        ("1.", json!(1.0)),
        ("0.", json!(0.0)),
        (".5", json!(0.5)),
        ("-.5", json!("-.5")),
        ("1_0.5", json!(10.5)),
        ("1e3", json!("1e3")),
        ("1.0e3", json!("1.0e3")),
        ("-1.5e3", json!("-1.5e3")),
        ("1.0e+3", json!(1000.0)),
        ("-1.5E-1", json!(-0.15)),
        ("1.2.3", json!("1.2.3")),
        (".", json!(".")),
        (".inf", json!(".inf")),
        ("-.Inf", json!("-.inf")),
        ("+.INF", json!(".inf")),
        (".NaN", json!(".nan")),
        ("-.nan", json!("-.nan")),
        ("1.0e+999", json!(".inf")),
        ("<<", json!("<<")),
        ("=", json!("=")),
        ("hello world", json!("hello world")),
    ];
    for (text, want) in cases {
        assert_eq!(plain_scalar(text), want, "{text:?}");
    }
}

fn core_tag(suffix: &str) -> Tag {
    Tag {
        handle: CORE.to_string(),
        suffix: suffix.to_string(),
    }
}

#[test]
fn explicit_tags_construct_or_refuse() {
    let ok = [
        ("str", "0644", json!("0644")),
        ("str", "yes", json!("yes")),
        ("int", "0x10", json!(16)),
        ("float", "1", json!(1.0)),
        ("float", "1e3", json!(1000.0)),
        ("float", "-.INF", json!("-.inf")),
        ("bool", "yEs", json!(true)),
        ("null", "anything", json!(null)),
        ("binary", "aGVs\nbG8=", json!("hello")),
        ("binary", "/w==", json!("ci-b64:/w==")),
        ("timestamp", "2001-12-14", json!("2001-12-14")),
    ];
    for (suffix, text, want) in ok {
        let got = scalar(text, ScalarStyle::Plain, Some(&core_tag(suffix)));
        assert_eq!(got, Ok(want), "!!{suffix} {text:?}");
    }
    for (suffix, text) in [
        ("int", "12abc"),
        ("bool", "y"),
        ("binary", "aGVsb"),
        ("map", "x"),
    ] {
        let got = scalar(text, ScalarStyle::Plain, Some(&core_tag(suffix)));
        let msg = got.expect_err(suffix);
        assert!(!msg.contains(text), "message quotes the value: {msg}");
    }
}

#[test]
fn tag_kinds() {
    let tag = |handle: &str, suffix: &str| Tag {
        handle: handle.to_string(),
        suffix: suffix.to_string(),
    };
    let non_specific = tag("", "!");
    let verbatim = tag("", "tag:yaml.org,2002:int");
    let local = tag("!", "python/object");
    assert_eq!(tag_kind(None), TagKind::Implicit);
    assert_eq!(tag_kind(Some(&non_specific)), TagKind::Implicit);
    assert_eq!(tag_kind(Some(&verbatim)), TagKind::Core("int"));
    assert_eq!(tag_kind(Some(&local)), TagKind::Unsupported);
    // `! 12` is 12 but `! "12"` stays text, as in PyYAML.
    let plain = scalar("12", ScalarStyle::Plain, Some(&non_specific));
    let quoted = scalar("12", ScalarStyle::DoubleQuoted, Some(&non_specific));
    assert_eq!((plain, quoted), (Ok(json!(12)), Ok(json!("12"))));
    let refused = scalar("x", ScalarStyle::Plain, Some(&local)).unwrap_err();
    assert_eq!(refused, "unsupported tag !python/object");
}
