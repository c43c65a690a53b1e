//! Fault suite, user-data: `#include` loops over HTTP, and a shell script that is not
//! UTF-8. (The gzip bomb, the YAML alias bomb, non-UTF-8 cloud-config and oversized
//! user-data are in the bad_input module of this binary.)

use crate::common;
use common::faults::Web;
use common::{stderr, Machine};
use std::time::{Duration, Instant};

const SEED_DIR: &str = "var/lib/cloud/seed/nocloud";
const META: &str = "instance-id: i-faults\nlocal-hostname: faults\n";

fn machine(name: &str, user_data: &[u8]) -> Machine {
    let m = Machine::new(name);
    m.write(&m.target, &format!("{SEED_DIR}/meta-data"), META.as_bytes());
    m.write(&m.target, &format!("{SEED_DIR}/user-data"), user_data);
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 5000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m
}

/// Expected: a URL that includes itself, and two URLs that include each other, each end
/// with one `include-loop` error naming the user-data and the URL; every URL is fetched
/// once, the run ends at once, and the part outside the loops is still applied.
#[test]
fn include_loops_end_with_a_clear_error() {
    let web = Web::start(|port| {
        let inc = |path: &str| format!("#include\nhttp://127.0.0.1:{port}{path}\n");
        vec![
            ("/self", inc("/self")),
            ("/ping", inc("/pong")),
            ("/pong", inc("/ping")),
            ("/fine", "#cloud-config\ntimezone: Etc/UTC\n".to_string()),
        ]
    });
    let ud = format!(
        "#include\n{}\n{}\n{}\n",
        web.url("/self"),
        web.url("/ping"),
        web.url("/fine")
    );
    let m = machine("include-loop", ud.as_bytes());
    let started = Instant::now();
    let out = m.initrd("all");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let loops: Vec<_> = m
        .diags()
        .into_iter()
        .filter(|d| d["code"] == "include-loop")
        .collect();
    assert_eq!(loops.len(), 2, "{loops:#?}");
    for (d, url) in loops.iter().zip([web.url("/self"), web.url("/ping")]) {
        assert_eq!(d["severity"], "error");
        assert!(d["file"].as_str().unwrap().contains("user-data"), "{d}");
        assert!(d["message"].as_str().unwrap().contains(&url), "{d}");
    }
    for path in ["/self", "/ping", "/pong", "/fine"] {
        assert_eq!(web.count(path), 1, "{path} fetched once");
    }
    let merged = m.json("cloud-init/combined-cloud-config.json");
    assert_eq!(merged["timezone"], "Etc/UTC", "the rest is applied");
}

/// Expected: a shell script part holding bytes that are not UTF-8 (Latin-1 text, a raw
/// 0xff) is stored for the runner byte for byte, alone and inside a MIME multipart, and
/// is not an error.
#[test]
fn a_shell_script_that_is_not_utf8_is_kept_byte_for_byte() {
    let script: &[u8] = b"#!/bin/sh\necho 'caf\xe9 \xff\xfe'\nexit 0\n";
    let m = machine("script-latin1", script);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stored_scripts(&m), vec![script.to_vec()]);

    let mut mime = b"Content-Type: multipart/mixed; boundary=\"XX\"\nMIME-Version: 1.0\n\n\
--XX\nContent-Type: text/cloud-config\n\n#cloud-config\ntimezone: Etc/UTC\n\
--XX\nContent-Type: text/x-shellscript\nContent-Transfer-Encoding: 8bit\n\
Content-Disposition: attachment; filename=\"latin1.sh\"\n\n"
        .to_vec();
    mime.extend_from_slice(script);
    // The line break before a delimiter belongs to the delimiter (RFC 2046, 5.1.1).
    mime.extend_from_slice(b"\n--XX--\n");
    let m = machine("script-mime", &mime);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stored_scripts(&m), vec![script.to_vec()]);
    assert!(m.diags().is_empty(), "{:#?}", m.diags());
}

/// The user scripts stored for the runner (cloud-init's `instances/<id>/scripts/`).
fn stored_scripts(m: &Machine) -> Vec<Vec<u8>> {
    let dir = m.target.join("var/lib/cloud/instances/i-faults/scripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.path())
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// Expected: content read under `#include-once` is fetched on the instance's first boot only
/// and kept 0600 under the instance's `data/urlcache` (cloud-init's place and name: the MD5
/// of the URL); a later boot of the same instance reads the cache, with no request and no
/// error although the URL now fails; a new instance fetches it again.
#[test]
fn include_once_is_fetched_once_per_instance() {
    let path = "/once?token=SECRET_once_8c1d";
    let body = "#cloud-config\ntimezone: Etc/UTC\nbootcmd: [echo tok_once_8c1d]\n";
    let web = Web::start(|_| vec![(path, body.to_string())]);
    let ud = format!("#include-once\n{}\n", web.url(path));
    let m = machine("include-once", ud.as_bytes());
    let boot = |m: &Machine| {
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(m.diags().is_empty(), "{:#?}", m.diags());
        let merged = m.json("cloud-init/combined-cloud-config.json");
        assert_eq!(
            merged["timezone"], "Etc/UTC",
            "the included config is applied"
        );
    };
    boot(&m);
    assert_eq!(web.count(path), 1);
    let cache = m
        .target
        .join("var/lib/cloud/instances/i-faults/data/urlcache");
    let url_md5 = {
        let out = std::process::Command::new("md5sum")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin
                    .take()
                    .unwrap()
                    .write_all(web.url(path).as_bytes())?;
                c.wait_with_output()
            })
            .unwrap();
        String::from_utf8(out.stdout).unwrap()[..32].to_string()
    };
    let cached = cache.join(&url_md5);
    assert_eq!(std::fs::read_to_string(&cached).unwrap(), body);
    assert_eq!(Machine::mode(&cached), 0o600);
    m.assert_secret_not_world_readable("tok_once_8c1d");
    m.assert_secret_not_world_readable("SECRET_once_8c1d");

    // The same instance boots again (a fresh /run): the cache answers, the server is not asked.
    std::fs::remove_dir_all(&m.run).unwrap();
    boot(&m);
    assert_eq!(web.count(path), 1, "a later boot reads the cache");

    // A new instance on the same disk fetches again.
    std::fs::remove_dir_all(&m.run).unwrap();
    let meta = "instance-id: i-faults-2\nlocal-hostname: faults\n";
    m.write(&m.target, &format!("{SEED_DIR}/meta-data"), meta.as_bytes());
    boot(&m);
    assert_eq!(web.count(path), 2, "a new instance fetches again");
    let again = m
        .target
        .join("var/lib/cloud/instances/i-faults-2/data/urlcache");
    assert!(again.join(&url_md5).is_file());
}
