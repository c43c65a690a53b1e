//! Tests of the MIME reader: headers, parameters, boundaries, transfer decodings.

use super::*;

#[test]
fn headers_fold_and_lowercase() {
    let e =
        parse_entity(b"Content-Type: multipart/mixed;\r\n\tboundary=\"b 1\"\r\nX-A: 1\r\n\r\nbody");
    assert_eq!(e.content_type(), "multipart/mixed");
    assert_eq!(
        param(e.header("Content-Type").unwrap(), "boundary").unwrap(),
        "b 1"
    );
    assert_eq!(e.header("x-a"), Some("1"));
    assert_eq!(e.body, b"body");
}

#[test]
fn non_header_line_starts_body() {
    let e = parse_entity(b"#!/bin/sh\necho hi\n");
    assert!(e.headers.is_empty());
    assert_eq!(e.body, b"#!/bin/sh\necho hi\n");
    assert_eq!(e.content_type(), "text/plain");
}

#[test]
fn mime_detection_table() {
    let cases: &[(&[u8], bool)] = &[
        (b"MIME-Version: 1.0\nContent-Type: text/plain\n\nx", true),
        (
            b"content-type: multipart/mixed; boundary=x\n\n--x--\n",
            true,
        ),
        (b"#!/bin/sh\necho 'MIME-Version: 1.0'\n", false),
        (b"#cloud-config\na: 1\n", false),
        (b"https://example.com/x\n", false),
        (b"", false),
    ];
    for (data, want) in cases {
        assert_eq!(
            looks_like_mime(data),
            *want,
            "{}",
            String::from_utf8_lossy(data)
        );
    }
}

#[test]
fn params_table() {
    let cases = [
        (
            "attachment; filename=\"a;b.txt\"",
            "filename",
            Some("a;b.txt"),
        ),
        (
            "attachment; filename=plain.sh",
            "filename",
            Some("plain.sh"),
        ),
        (
            "text/plain; charset=us-ascii; NAME=\"x\\\"y\"",
            "name",
            Some("x\"y"),
        ),
        ("attachment", "filename", None),
    ];
    for (value, p, want) in cases {
        assert_eq!(param(value, p).as_deref(), want, "{value}");
    }
}

#[test]
fn filename_falls_back_to_content_type_name() {
    let e = parse_entity(b"Content-Type: text/x-shellscript; name=\"s.sh\"\n\n#!/bin/sh\n");
    assert_eq!(e.filename().as_deref(), Some("s.sh"));
}

#[test]
fn multipart_split_drops_preamble_and_epilogue() {
    let body = b"preamble\r\n--XX\r\nA: 1\r\n\r\none\r\n--XX  \r\n\r\ntwo\n\r\n--XX--\r\nepilogue";
    let parts = split_multipart(body, "XX");
    assert_eq!(parts, vec![&b"A: 1\r\n\r\none"[..], &b"\r\ntwo\n"[..]]);
    // No close delimiter: the last part runs to the end.
    assert_eq!(split_multipart(b"--b\n\nx\n", "b"), vec![&b"\nx\n"[..]]);
    // A line that only starts with the delimiter is content.
    assert_eq!(
        split_multipart(b"--b\n\n--bx\n--b--", "b"),
        vec![&b"\n--bx"[..]]
    );
}

#[test]
fn transfer_decodings() {
    let e = |cte: &str, body: &'static [u8]| Entity {
        headers: vec![("content-transfer-encoding".into(), cte.into())],
        body,
    };
    assert_eq!(
        e("base64", b"aGVs\r\nbG8=\r\n").decoded_body().unwrap(),
        b"hello"
    );
    assert_eq!(e("BASE64", b"aGVsbG8").decoded_body().unwrap(), b"hello");
    assert!(e("base64", b"a").decoded_body().is_err());
    assert_eq!(
        e("quoted-printable", b"a=3Db=\r\nc =\nd=ZZ")
            .decoded_body()
            .unwrap(),
        b"a=bc d=ZZ"
    );
    assert_eq!(e("8bit", b"\xff\x00").decoded_body().unwrap(), b"\xff\x00");
}

/// Every name `encode_param` writes reads back byte for byte through `filename`, whatever it
/// holds: quotes, backslashes, `;` and `=`, line breaks and a header, non-ASCII, `%` and `'`.
#[test]
fn encoded_parameters_read_back_the_same() {
    let names = [
        "plain.sh",
        "with space;semi=eq.sh",
        "quo\"te.sh",
        "back\\slash",
        "line\r\nX-Injected: yes",
        "nul\u{0}tab\t",
        "naïve ü €.sh",
        "per%cent'apos*star",
        "",
    ];
    for name in names {
        let p = encode_param("filename", name);
        assert!(!p.contains(['\r', '\n', '\0']), "{p}");
        let head = format!("Content-Disposition: attachment; {p}\nX-After: 1\n\nbody");
        let e = parse_entity(head.as_bytes());
        assert_eq!(e.filename().as_deref(), Some(name), "{p}");
        assert_eq!(e.header("x-after"), Some("1"), "{p}");
        assert_eq!(e.body, b"body");
    }
    assert_eq!(encode_param("filename", "a b"), "filename=\"a b\"");
    assert_eq!(encode_param("filename", "a\"b"), "filename*=utf-8''a%22b");
    let e = parse_entity(b"Content-Type: text/plain; name*=utf-8'en'%C3%A9\n\nx");
    assert_eq!(e.filename().as_deref(), Some("\u{e9}"));
}
