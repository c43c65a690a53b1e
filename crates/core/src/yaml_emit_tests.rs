//! Expected texts are PyYAML 6.0's own output for the same data (`yaml.dump(...,
//! default_flow_style=False)` and cloud-init's `safeyaml.dumps`), recorded once.

use super::*;

const CASES: &[(Style, &str, &str)] = &[
    (SAFE_DUMPS, "{\"file_client\": \"local\", \"fileserver_backend\": [\"gitfs\"], \"gitfs_remotes\": [\"https://github.com/_user_/_repo_.git\"], \"master\": \"salt.example.com\"}", "---\nfile_client: local\nfileserver_backend:\n- gitfs\ngitfs_remotes:\n- https://github.com/_user_/_repo_.git\nmaster: salt.example.com\n...\n"),
    (SAFE_DUMPS, "{\"role\": [\"web\"], \"n\": {\"a\": 1, \"b\": [{\"x\": 1, \"y\": [1, 2]}, \"z\"], \"c\": null, \"d\": true, \"e\": 1.5, \"f\": \"\"}}", "---\nn:\n    a: 1\n    b:\n    -   x: 1\n        y:\n        - 1\n        - 2\n    - z\n    c: null\n    d: true\n    e: 1.5\n    f: ''\nrole:\n- web\n...\n"),
    (SAFE_DUMPS, "{\"a\": \"yes\", \"b\": \"123\", \"c\": \"x: y\", \"d\": \"a #b\", \"e\": \"-x\", \"f\": \"x\\ny\", \"g\": \"it's\", \"h\": \" lead\", \"i\": \"null\", \"j\": \"1.2.840.1\", \"k\": \"~\", \"l\": \"@x\", \"m\": \"a\\\"b\", \"n\": \"2001-01-01\", \"o\": \"0x1f\", \"p\": \"1e5\", \"q\": \".inf\", \"r\": \"\\u00e9\", \"s\": \"tab\\there\", \"t\": \"[x]\", \"u\": \"x,y\", \"v\": \"*a\", \"w\": \"&a\", \"x\": \"!t\", \"y\": \"%x\", \"z\": \"`x\"}", "---\na: 'yes'\nb: '123'\nc: 'x: y'\nd: 'a #b'\ne: -x\nf: 'x\n\n    y'\ng: it's\nh: ' lead'\ni: 'null'\nj: 1.2.840.1\nk: '~'\nl: '@x'\nm: a\"b\nn: '2001-01-01'\no: '0x1f'\np: 1e5\nq: '.inf'\nr: \"\\xE9\"\ns: \"tab\\there\"\nt: '[x]'\nu: x,y\nv: '*a'\nw: '&a'\nx: '!t'\ny: '%x'\nz: '`x'\n...\n"),
    (SAFE_DUMPS, "{\"t1\": \"2001-1-2 3:04:05\", \"t2\": \"2001-12-14t21:59:43.10-05:00\", \"i1\": \"0b101\", \"i2\": \"017\", \"i3\": \"1:30\", \"i4\": \"+12_000\", \"f1\": \"1:30.5\", \"f2\": \"-.5e+3\", \"f3\": \".5\", \"s1\": \"1:60\", \"s2\": \"- x\", \"s3\": \"? x\", \"s4\": \"?x\", \"s5\": \"a:b\", \"s6\": \"---x\", \"s7\": \"<<\", \"s8\": \"=\", \"s9\": \"On\", \"s10\": \"a \\n b\", \"s11\": \"x\\u2028y\", \"s12\": \"trail \"}", "---\nf1: '1:30.5'\nf2: -.5e+3\nf3: '.5'\ni1: '0b101'\ni2: '017'\ni3: '1:30'\ni4: '+12_000'\ns1: 1:60\ns10: \"a \\n b\"\ns11: \"x\\Ly\"\ns12: 'trail '\ns2: '- x'\ns3: '? x'\ns4: ?x\ns5: a:b\ns6: '---x'\ns7: '<<'\ns8: '='\ns9: 'On'\nt1: '2001-1-2 3:04:05'\nt2: '2001-12-14t21:59:43.10-05:00'\n...\n"),
    (SAFE_DUMPS, "[]", "--- []\n...\n"),
    (SAFE_DUMPS, "{}", "--- {}\n...\n"),
    (SAFE_DUMPS, "{\"a\": [], \"b\": {}}", "---\na: []\nb: {}\n...\n"),
    (SAFE_DUMPS, "\"plain\"", "--- plain\n...\n"),
    (SAFE_DUMPS, "\"yes\"", "--- 'yes'\n...\n"),
    (SAFE_DUMPS, "{\"k\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbb\"}", "---\nk: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n    bbbbbbbbbb\n...\n"),
    (SAFE_DUMPS, "{\"k\": \"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word\"}", "---\nk: word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word\n...\n"),
    (SAFE_DUMPS, "[[1, [2, 3]], {\"a\": [{\"b\": 1}]}, \"x\"]", "---\n-   - 1\n    -   - 2\n        - 3\n-   a:\n    -   b: 1\n- x\n...\n"),
    (SAFE_DUMPS, "{\"k\": \"abc\\n\", \"j\": \"a\\n\\nb\", \"cert\": \"-----BEGIN CERTIFICATE-----\\nMIIC\\n-----END CERTIFICATE-----\\n\", \"sp\": \"a  b\", \"brsp\": \"a\\n b\"}", "---\nbrsp: \"a\\n b\"\ncert: '-----BEGIN CERTIFICATE-----\n\n    MIIC\n\n    -----END CERTIFICATE-----\n\n    '\nj: 'a\n\n\n    b'\nk: 'abc\n\n    '\nsp: a  b\n...\n"),
    (SAFE_DUMPS, "{\"k\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z \"}", "---\nk: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx a b c d\n    e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q\n    r s t u v w x y z '\n...\n"),
    (SAFE_DUMPS, "{\"q\": \"it's a ' multi\\nline\"}", "---\nq: 'it''s a '' multi\n\n    line'\n...\n"),
    (SAFE_DUMPS, "{\"d\": \"caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9 \"}", "---\nd: \"caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9\\\n    \\ caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9\\\n    \\ caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9 caf\\xE9\\\n    \\ \"\n...\n"),
    (SAFE_DUMPS, "{\"k\": [{\"a\": 1, \"b\": {\"c\": [1, 2]}}, [], {}]}", "---\nk:\n-   a: 1\n    b:\n        c:\n        - 1\n        - 2\n- []\n- {}\n...\n"),
    (DUMP, "[\"a\\nb\"]", "- 'a\n\n  b'\n"),
    (DUMP, "{\"long\": \"word word word word word word word word word word word word word word word word word word word word end\", \"key with space\": 1, \"k:x\": 2, \"\": 3, \"-\": 4, \"a#b\": 5, \"a #b\": 6, \"yes\": 7}", "? ''\n: 3\n'-': 4\n'a #b': 6\na#b: 5\nk:x: 2\nkey with space: 1\nlong: word word word word word word word word word word word word word word word word\n  word word word word end\n'yes': 7\n"),
    (DUMP, "{\"custom_attributes\": {\"1.2.840.113549.1.9.7\": \"342thbjkt82094y0uthhor289jnqthpc2290\"}, \"extension_requests\": {\"pp_uuid\": \"ED803750-E3C7-44F5-BB08-41A04433FE2E\", \"pp_image_name\": \"my_ami_image\", \"pp_preshared_key\": \"342thbjkt82094y0uthhor289jnqthpc2290\"}, \"l\": [{\"a\": 1, \"b\": 2}, [1, [2, 3]]]}", "custom_attributes:\n  1.2.840.113549.1.9.7: 342thbjkt82094y0uthhor289jnqthpc2290\nextension_requests:\n  pp_image_name: my_ami_image\n  pp_preshared_key: 342thbjkt82094y0uthhor289jnqthpc2290\n  pp_uuid: ED803750-E3C7-44F5-BB08-41A04433FE2E\nl:\n- a: 1\n  b: 2\n- - 1\n  - - 2\n    - 3\n"),
    (DUMP, "{\"f\": [1.0, -0.5, 1e+17, 1e-07, 10]}", "f:\n- 1.0\n- -0.5\n- 1.0e+17\n- 1.0e-07\n- 10\n"),
];

#[test]
fn writes_what_pyyaml_writes() {
    for (style, json, want) in CASES {
        let v: Value = serde_json::from_str(json).unwrap();
        assert_eq!(dump(&v, *style), *want, "{json}");
    }
}

#[test]
fn resolver_patterns() {
    for s in ["0", "-12", "0o7", "0x_1F", "1_000", "3:25:45", "0b1_0"] {
        assert_eq!(is_int(s), s != "0o7", "{s}");
    }
    for s in [
        "1.5",
        "-1.",
        "1.5e+3",
        ".5",
        ".NaN",
        "-.inf",
        "190:20:30.15",
    ] {
        assert!(is_float(s), "{s}");
    }
    for s in ["1.5e3", "1.2.3", "e5", ".", "+.nan"] {
        assert!(!is_float(s), "{s}");
    }
    for s in [
        "2002-12-14",
        "2001-12-14 21:59:43.10 -5",
        "2001-12-14T21:59:43Z",
    ] {
        assert!(is_timestamp(s), "{s}");
    }
    for s in ["2002-12-1", "2002-1-14", "2001-12-14 21:59", "2001-12-14X"] {
        assert!(!is_timestamp(s), "{s}");
    }
}

/// Strings as PyYAML 6.0 writes them under a key (`safeyaml.dumps` without markers), recorded
/// once: what status, netplan and the configuration-management files hold.
#[test]
fn strings_are_written_as_pyyaml_writes_them() {
    let cases: &[(&str, &str)] = &[
        ("done", "k: done\n"),
        ("degraded done", "k: degraded done\n"),
        ("", "k: ''\n"),
        ("yes", "k: 'yes'\n"),
        ("Null", "k: 'Null'\n"),
        ("OFF", "k: 'OFF'\n"),
        ("y", "k: y\n"),
        ("1.5", "k: '1.5'\n"),
        ("-1", "k: '-1'\n"),
        ("1_000", "k: '1_000'\n"),
        (".5", "k: '.5'\n"),
        ("1.", "k: '1.'\n"),
        ("1e5", "k: 1e5\n"),
        ("+1.5E-3", "k: '+1.5E-3'\n"),
        ("-.inf", "k: '-.inf'\n"),
        (".NaN", "k: '.NaN'\n"),
        ("0o17", "k: 0o17\n"),
        ("0b101", "k: '0b101'\n"),
        ("2024-02-21", "k: '2024-02-21'\n"),
        (
            "2001-12-14t21:59:43.10-05:00",
            "k: '2001-12-14t21:59:43.10-05:00'\n",
        ),
        ("0x1F", "k: '0x1F'\n"),
        ("<<", "k: '<<'\n"),
        ("=", "k: '='\n"),
        ("52:54:00:12:34:56", "k: '52:54:00:12:34:56'\n"),
        ("1:30.5", "k: '1:30.5'\n"),
        ("52:54:00:aa:bb:01", "k: 52:54:00:aa:bb:01\n"),
        ("10.0.0.1", "k: 10.0.0.1\n"),
        ("10.0.0.0/24", "k: 10.0.0.0/24\n"),
        ("2001:db8::5/64", "k: 2001:db8::5/64\n"),
        ("fe80::1", "k: fe80::1\n"),
        ("802.3ad", "k: 802.3ad\n"),
        ("layer3+4", "k: layer3+4\n"),
        ("1.2.3", "k: 1.2.3\n"),
        ("::1", "k: ::1\n"),
        ("- item", "k: '- item'\n"),
        ("key: value", "k: 'key: value'\n"),
        ("it's", "k: it's\n"),
        ("'quoted'", "k: '''quoted'''\n"),
        ("a #comment", "k: 'a #comment'\n"),
        (" lead", "k: ' lead'\n"),
        ("line\nnext", "k: 'line\n\n    next'\n"),
        ("tab\there", "k: \"tab\\there\"\n"),
        ("nel\u{0085}", "k: \"nel\\N\"\n"),
        ("ls\u{2028}", "k: \"ls\\L\"\n"),
        ("bom\u{feff}", "k: \"bom\\uFEFF\"\n"),
        ("\u{00e9} \u{00fc}", "k: \"\\xE9 \\xFC\"\n"),
        (
            "Wed, 21 Feb 2024 21:27:24 +0000",
            "k: Wed, 21 Feb 2024 21:27:24 +0000\n",
        ),
        (
            "DataSourceNoCloud [seed=/dev/sr0]",
            "k: DataSourceNoCloud [seed=/dev/sr0]\n",
        ),
    ];
    for (input, want) in cases {
        let got = block(&serde_json::json!({ "k": input }), 0);
        assert_eq!(&got, want, "input {input:?}");
    }
}

/// The status document's layout, and a section nested as netplan's renderer nests one.
#[test]
fn documents_and_nested_blocks() {
    let v: Value = serde_json::from_str("{\"errors\": [], \"recoverable_errors\": {\"WARNING\": [\"a\", \"b\"]}, \"stage\": null, \"start\": 1.5, \"init\": {\"errors\": [], \"finished\": null, \"recoverable_errors\": {}}, \"list\": [{\"a\": 1, \"b\": [true]}, [\"x\"], \"s\"]}").unwrap();
    assert_eq!(document(&v), "---\nerrors: []\ninit:\n    errors: []\n    finished: null\n    recoverable_errors: {}\nlist:\n-   a: 1\n    b:\n    - true\n-   - x\n- s\nrecoverable_errors:\n    WARNING:\n    - a\n    - b\nstage: null\nstart: 1.5\n...\n");
    let inner: Value =
        serde_json::from_str("{\"a\": {\"b\": 1}, \"c\": \"\", \"d\": [\"x\"]}").unwrap();
    assert_eq!(
        block(&inner, 4),
        "    a:\n        b: 1\n    c: ''\n    d:\n    - x\n"
    );
    assert_eq!(document(&serde_json::json!("x")), "--- x\n...\n");
    assert_eq!(document(&serde_json::json!({})), "--- {}\n...\n");
}
