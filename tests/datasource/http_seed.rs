//! `ds=nocloud;s=http://…` against a real loopback server that scripts its answers
//! (500 then 200, 404, oversized bodies), plus `#include` over HTTP.

use crate::common;
use common::{stderr, Machine};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// Path → answers still to give, in order; the last one repeats. Unknown paths get 404.
type Script = HashMap<String, Vec<(u16, Vec<u8>)>>;

struct Server {
    port: u16,
    log: Arc<Mutex<Vec<String>>>,
}

/// Starts a server whose script may name its own port (for includes back to it).
fn serve_with(make: impl FnOnce(u16) -> Script) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = make(port);
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    let script = Arc::new(Mutex::new(script));
    std::thread::spawn(move || {
        // Bounded: a test never needs more than this many requests.
        for stream in listener.incoming().take(64) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).into_owned();
            let path = req.split_whitespace().nth(1).unwrap_or("").to_string();
            seen.lock().unwrap().push(path.clone());
            let mut script = script.lock().unwrap();
            let (code, body) = match script.get_mut(&path) {
                Some(answers) if answers.len() > 1 => answers.remove(0),
                Some(answers) => answers[0].clone(),
                None => (404, b"not found".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {code} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(&body);
        }
    });
    Server { port, log }
}

fn serve(script: Script) -> Server {
    serve_with(|_| script)
}

fn ok(body: &str) -> Vec<(u16, Vec<u8>)> {
    vec![(200, body.as_bytes().to_vec())]
}

fn fast_deadlines(m: &Machine) {
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 5000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

#[test]
fn http_seed_with_a_retry_and_an_include() {
    let server = serve_with(|port| {
        let ud = format!("#include\nhttp://127.0.0.1:{port}/part.yaml\n");
        Script::from([
            (
                "/seed/meta-data".to_string(),
                vec![(500, vec![]), (200, b"instance-id: i-http\n".to_vec())],
            ),
            ("/seed/user-data".to_string(), ok(&ud)),
            (
                "/part.yaml".to_string(),
                ok("#cloud-config\ntimezone: Etc/UTC\n"),
            ),
        ])
    });
    let m = Machine::new("http");
    fast_deadlines(&m);
    m.cmdline(&format!(
        "ro ds=nocloud-net;s=http://127.0.0.1:{}/seed/",
        server.port
    ));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-http");
    assert_eq!(
        m.json("cloud-init/combined-cloud-config.json")["timezone"],
        "Etc/UTC"
    );
    let log = server.log.lock().unwrap().clone();
    assert_eq!(
        log.iter().filter(|p| *p == "/seed/meta-data").count(),
        2,
        "one retry: {log:?}"
    );
    assert!(
        log.contains(&"/seed/vendor-data".to_string()),
        "optional files asked for: {log:?}"
    );
    assert!(
        log.contains(&"/part.yaml".to_string()),
        "include fetched: {log:?}"
    );
}

#[test]
fn missing_trailing_slash_and_dmi_substitution() {
    let server = serve(Script::from([
        ("/n/SN-9/meta-data".to_string(), ok("instance-id: i-dmi\n")),
        ("/n/SN-9/user-data".to_string(), ok("")),
    ]));
    let m = Machine::new("dmi-url");
    fast_deadlines(&m);
    m.dmi("product_serial", "SN-9");
    m.cmdline(&format!(
        "ro ds=nocloud;s=http://127.0.0.1:{}/n/__dmi.system-serial-number__",
        server.port
    ));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-dmi");
}

#[test]
fn oversized_body_and_refused_connection() {
    let big = "x".repeat(4096);
    let server = serve(Script::from([
        ("/s/meta-data".to_string(), ok("instance-id: i-big\n")),
        ("/s/user-data".to_string(), ok(&big)),
    ]));
    let m = Machine::new("http-big");
    let cfg = "ember:\n  limits:\n    file_bytes: 1024\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 5000\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    m.cmdline(&format!(
        "ro ds=nocloud;s=http://127.0.0.1:{}/s/",
        server.port
    ));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(1));
    let d = m.diag_with_code("budget-exceeded").expect("budget named");
    assert_eq!(d["budget"], "file_bytes");
    assert_eq!(
        m.status()["instance_id"],
        "i-big",
        "the rest of the seed is used"
    );

    // Nothing listens on the port any more once the listener is dropped: refused, bounded.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let m = Machine::new("http-refused");
    fast_deadlines(&m);
    m.cmdline(&format!("ro ds=nocloud;s=http://127.0.0.1:{port}/s/"));
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("seed-unreachable").expect("said");
    assert!(
        d["file"].as_str().unwrap().starts_with("http://127.0.0.1"),
        "{d}"
    );
}

#[test]
fn tokens_in_the_seed_url_stay_out_of_status_console_and_public_files() {
    const SECRET: &str = "T0KEN-never-shown";
    let q = format!("?token={SECRET}");
    let server = serve(Script::from([
        (format!("/seed/meta-data{q}"), ok("instance-id: i-tok\n")),
        (format!("/seed/user-data{q}"), ok("")),
    ]));
    let m = Machine::new("url-token");
    fast_deadlines(&m);
    let url = format!("http://user:{SECRET}@127.0.0.1:{}/seed/%s{q}", server.port);
    m.cmdline(&format!("ro ds=nocloud;s={url}"));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-tok");
    let detect = m.initrd_args(&["detect"]);
    for text in [stderr(&out), common::stdout(&out), common::stdout(&detect)] {
        assert!(!text.contains(SECRET), "{text}");
    }
    m.assert_secret_not_world_readable(SECRET);
}
