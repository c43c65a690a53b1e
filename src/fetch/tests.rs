use super::http::{self, Error, Host, Url};
use super::*;
use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, TcpListener};
use std::sync::mpsc;

#[test]
fn capped_read_fails_rather_than_truncates() {
    assert_eq!(read_capped(&b"abc"[..], "u", 3).unwrap(), b"abc");
    assert_eq!(
        read_capped(&b"abcd"[..], "u", 3),
        Err(FetchError::TooLarge {
            url: "u".into(),
            max_bytes: 3,
            budget: "file_bytes",
        })
    );
}

fn url(text: &str) -> Url {
    Url::parse(text).unwrap()
}

fn failed(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::Failed(reason)) => reason,
        other => panic!("not Failed: {other:?}"),
    }
}

#[test]
fn urls_parse_into_host_port_and_target() {
    let u = url("http://169.254.169.254/latest/meta-data/?a=b#frag");
    assert_eq!(u.host, Host::Ip("169.254.169.254".parse().unwrap()));
    assert_eq!((u.tls, u.port), (false, 80));
    assert_eq!(u.target, "/latest/meta-data/?a=b");
    assert_eq!(u.host_header(), "169.254.169.254");

    let u = url("HTTPS://User:p%40s%2bs%+1%@Example.COM:8443?x=1");
    assert_eq!(u.host, Host::Name("example.com".into()));
    assert_eq!((u.tls, u.port), (true, 8443));
    assert_eq!(u.userinfo.as_deref(), Some("User:p@s+s%+1%"));
    assert_eq!(u.target, "/?x=1");
    assert_eq!(u.host_header(), "example.com:8443");

    let u = url("http://[fd00:ec2::254]:8080/a b");
    assert_eq!(u.host, Host::Ip("fd00:ec2::254".parse::<IpAddr>().unwrap()));
    assert_eq!(u.port, 8080);
    assert_eq!(u.target, "/a%20b");
    assert_eq!(u.host_header(), "[fd00:ec2::254]:8080");
    assert_eq!(url("https://[::1]/").host_header(), "[::1]");
    assert_eq!(url("https://h:/").port, 443);
    assert_eq!(url("http://h").target, "/");

    for bad in [
        "ftp://h/",
        "h/x",
        "http:///x",
        "http://h:0/",
        "http://h:99999/",
        "http://h:8x/",
        "http://[::1/",
        "http://[nothex]/",
        "http://h\r\nX: y/",
        "http://h o/",
    ] {
        assert!(
            failed(Url::parse(bad)).starts_with("invalid URL"),
            "{bad:?}"
        );
    }
}

#[test]
fn redirect_locations_resolve_against_the_base() {
    let base = url("https://u:p@h:8443/a/b?q=1");
    let j = |l: &str| base.redirect(l).unwrap();
    assert_eq!(j("c").target, "/a/c");
    assert_eq!(j("/c?d").target, "/c?d");
    assert_eq!(j("?z").target, "/a/b?z");
    assert_eq!(j("c").userinfo.as_deref(), Some("u:p"), "same origin");
    let other = j("//other/x");
    assert_eq!((other.tls, other.port, other.userinfo), (true, 443, None));
    let other = j("HTTPS://other:81/y#f");
    assert_eq!((other.tls, other.port), (true, 81));
    assert_eq!(other.target, "/y");
    assert!(base.redirect("ftp://x/").is_err());
    for downgrade in ["http://h:8443/a/b", "http://other/"] {
        assert!(failed(base.redirect(downgrade)).contains("https to http"));
    }
    let plain = url("http://h/a");
    assert_eq!(plain.redirect("https://h/b").unwrap().target, "/b");
    assert!(!plain.redirect("//g/c").unwrap().tls);
}

#[test]
fn requests_carry_the_defaults_and_refuse_injection() {
    let u = url("http://me:secret@10.0.0.1:8080/p?q");
    let h = |n: &str, v: &str| vec![(n.to_string(), v.to_string())];
    let req = String::from_utf8(http::request("GET", &u, &h("X-Token", "t"), 0).unwrap()).unwrap();
    assert_eq!(
        req,
        "GET /p?q HTTP/1.1\r\nHost: 10.0.0.1:8080\r\nUser-Agent: ember\r\nAccept: */*\r\n\
         Authorization: Basic bWU6c2VjcmV0\r\nConnection: close\r\nX-Token: t\r\n\r\n"
    );
    let req = http::request("GET", &url("http://h/"), &h("accept", "text/plain"), 0).unwrap();
    let req = String::from_utf8(req).unwrap();
    assert!(!req.contains("Accept: */*") && req.contains("accept: text/plain"));
    for (n, v) in [
        ("X-A", "v\r\nEvil: 1"),
        ("X-A", "v\n"),
        ("X A", "v"),
        ("X:A", "v"),
        ("", "v"),
        ("Host", "other"),
        ("Content-Length", "1"),
    ] {
        let reason = failed(http::request("GET", &u, &h(n, v), 0));
        assert!(
            !reason.contains('\n') && !reason.contains("Evil"),
            "{reason}"
        );
    }
}

fn head(text: &str) -> Result<http::Head, Error> {
    http::read_head(&mut text.as_bytes())
}

#[test]
fn response_heads_parse_and_are_bounded() {
    let h =
        head("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Odd:  v w \r\n\r\nbody").unwrap();
    assert_eq!(h.status, 200);
    assert_eq!(h.get("content-type"), Some("text/plain"));
    assert_eq!(h.get("x-odd"), Some("v w"));
    assert_eq!(head("HTTP/1.0 404\n\n").unwrap().status, 404);
    let h = head("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n").unwrap();
    assert_eq!(h.status, 204);

    for bad in [
        "",
        "HTTP/1.1 200 OK\r\n",
        "HTTP/2 200 OK\r\n\r\n",
        "ICY 200 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/1.1 20x OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
    ] {
        assert!(head(bad).is_err(), "{bad:?}");
    }
    let many = format!("HTTP/1.1 200 OK\r\n{}\r\n", "A: b\r\n".repeat(101));
    assert!(failed(head(&many)).contains("100"));
    assert!(head(&format!(
        "HTTP/1.1 200 OK\r\n{}\r\n",
        "A: b\r\n".repeat(100)
    ))
    .is_ok());
    let huge = format!("HTTP/1.1 200 OK\r\nA: {}\r\n\r\n", "x".repeat(70_000));
    assert!(failed(head(&huge)).contains("too large"));
}

fn body(headers: &str, body: &[u8], max: u64) -> Result<Vec<u8>, Error> {
    let text = format!("HTTP/1.1 200 OK\r\n{headers}\r\n");
    let input = [text.as_bytes(), body].concat();
    let mut r = &input[..];
    let h = http::read_head(&mut r)?;
    http::read_body(&mut r, &h, max)
}

#[test]
fn bodies_by_length_close_and_chunks() {
    assert_eq!(
        body("Content-Length: 3\r\n", b"abcdef", 10).unwrap(),
        b"abc"
    );
    assert_eq!(body("", b"to the end", 10).unwrap(), b"to the end");
    let c = "Transfer-Encoding: chunked\r\n";
    let chunked = b"3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nrest";
    assert_eq!(body(c, chunked, 13).unwrap(), b"abc0123456789");
    assert_eq!(
        body(
            "Transfer-Encoding: Chunked\r\nContent-Length: 1\r\n",
            b"0\r\n\r\n",
            1
        )
        .unwrap(),
        b""
    );

    for (headers, input) in [
        (c, &b"3\r\nabcX\r\n0\r\n\r\n"[..]),
        (c, b"zz\r\nab\r\n0\r\n\r\n"),
        (c, b"\r\n"),
        (c, b"-1\r\n"),
        (c, b"3\r\nab"),
        (c, b"3\r\nabc\r\n"),
        (c, b"0\r\nTrailer: x\r\n"),
        (c, b"10000000000000000\r\n"),
        ("Transfer-Encoding: gzip\r\n", b""),
        ("Content-Length: 5\r\n", b"abc"),
        ("Content-Length: +3\r\n", b"abc"),
        ("Content-Length: 3\r\nContent-Length: 4\r\n", b"abcd"),
    ] {
        assert!(
            matches!(body(headers, input, 100), Err(Error::Failed(_))),
            "{headers:?} {input:?}"
        );
    }
}

#[test]
fn bodies_over_the_cap_are_refused_before_they_are_read() {
    assert_eq!(body("Content-Length: 3\r\n", b"abc", 3).unwrap(), b"abc");
    assert_eq!(body("Content-Length: 4\r\n", b"", 3), Err(Error::TooLarge));
    assert_eq!(
        body("Content-Length: 99999999999999999999\r\n", b"", 3).map(|_| ()),
        Err(Error::Failed("malformed content-length".into()))
    );
    assert_eq!(body("", b"abc", 3).unwrap(), b"abc");
    assert_eq!(body("", b"abcd", 3), Err(Error::TooLarge));
    let c = "Transfer-Encoding: chunked\r\n";
    assert_eq!(body(c, b"2\r\nab\r\n2\r\ncd\r\n", 3), Err(Error::TooLarge));
    assert_eq!(body(c, b"ffffffffffffffff\r\n", 3), Err(Error::TooLarge));
    assert_eq!(
        body(c, b"7fffffffffffffff\r\n", u64::MAX),
        Err(Error::Failed("connection closed in a chunk".into()))
    );

    // A read-to-close body stops at the cap plus one and never grows past it.
    struct Endless(u64);
    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            buf.fill(b'x');
            Ok(buf.len())
        }
    }
    let mut r = BufReader::new(Endless(0));
    let h = http::Head {
        status: 200,
        headers: vec![],
    };
    assert_eq!(http::read_body(&mut r, &h, 10_000), Err(Error::TooLarge));
    assert!(r.get_ref().0 <= 10_001 + 8192, "read {}", r.get_ref().0);
}

type Answer = Box<dyn FnOnce(&mut std::net::TcpStream) + Send>;

/// A one-shot loopback server: answers each connection with the next of `answers` (a
/// function of the request it read) and reports the requests.
fn serve(answers: Vec<Answer>) -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for answer in answers {
            let Ok((mut s, _)) = listener.accept() else {
                return;
            };
            let mut req = String::new();
            let mut r = BufReader::new(s.try_clone().unwrap());
            while r.read_line(&mut req).is_ok_and(|n| n > 2) {}
            let _ = tx.send(req);
            answer(&mut s);
        }
    });
    (port, rx)
}

fn reply(text: &'static str) -> Answer {
    Box::new(move |s| {
        let _ = s.write_all(text.as_bytes());
    })
}

/// A resolver with no files and no command line: these tests name hosts by address.
fn no_dns() -> http::Dial {
    http::Dial::Tcp(super::dns::Resolver::new(
        &crate::host::Host::new("/nonexistent"),
        &[],
    ))
}

fn no_tls() -> Result<Arc<rustls::ClientConfig>, String> {
    Err("no tls here".into())
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

#[test]
fn loopback_redirects_only_without_headers() {
    let (port, rx) = serve(vec![
        reply("HTTP/1.1 302 Found\r\nLocation: /b/../next?x\r\nContent-Length: 0\r\n\r\n"),
        reply("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
        reply("HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1:1/\r\n\r\n"),
    ]);
    let base = format!("http://127.0.0.1:{port}/a");
    assert_eq!(
        http::get(&base, &[], 10, soon(), &no_tls, &no_dns()).unwrap(),
        b"ok"
    );
    assert!(rx.recv().unwrap().starts_with("GET /a HTTP/1.1\r\n"));
    assert!(rx
        .recv()
        .unwrap()
        .starts_with("GET /b/../next?x HTTP/1.1\r\n"));
    let token = [("X-Token".to_string(), "secret".to_string())];
    let reason = failed(http::get(&base, &token, 10, soon(), &no_tls, &no_dns()));
    assert!(reason.starts_with("HTTP status 301"), "{reason}");
    assert!(rx.recv().unwrap().contains("X-Token: secret\r\n"));
}

#[test]
fn loopback_statuses() {
    let (port, _rx) = serve(vec![
        reply("HTTP/1.1 404 Not Found\r\n\r\n"),
        reply("HTTP/1.1 410 Gone\r\n\r\n"),
        reply("HTTP/1.1 503 Busy\r\n\r\n"),
        reply("HTTP/1.1 403 No\r\n\r\n"),
    ]);
    let u = format!("http://127.0.0.1:{port}/");
    let get = || http::get(&u, &[], 10, soon(), &no_tls, &no_dns());
    assert_eq!(get(), Err(Error::NotFound));
    assert_eq!(get(), Err(Error::NotFound));
    assert_eq!(get(), Err(Error::Transient("HTTP status 503".into())));
    assert_eq!(get(), Err(Error::Failed("HTTP status 403".into())));
}

#[test]
fn a_slow_drip_server_cannot_hold_a_request_past_its_deadline() {
    let drip = |head: bool| -> Answer {
        Box::new(move |s| {
            let start = "HTTP/1.1 200 OK\r\n";
            let text = if head {
                start.to_string()
            } else {
                format!("{start}Content-Length: 1000\r\n\r\n")
            };
            let _ = s.write_all(text.as_bytes());
            // Bounded: a byte every 20 ms for at most 2 s, or until the client hangs up.
            for _ in 0..100 {
                if s.write_all(if head { b"X" } else { b"." }).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let (port, _rx) = serve(vec![drip(false), drip(true)]);
    let u = format!("http://127.0.0.1:{port}/");
    for _ in 0..2 {
        let start = Instant::now();
        let got = http::get(
            &u,
            &[],
            10_000,
            start + Duration::from_millis(300),
            &no_tls,
            &no_dns(),
        );
        let took = start.elapsed();
        assert_eq!(got, Err(Error::Transient("timed out".into())));
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_millis(900), "{took:?}");
    }
}

#[test]
fn a_body_goes_with_its_length_and_is_not_redirected() {
    let u = url("http://h/machine?comp=health");
    let head = String::from_utf8(http::request("POST", &u, &[], 5).unwrap()).unwrap();
    assert!(head.contains("\r\nContent-Length: 5\r\n"), "{head}");
    let head = String::from_utf8(http::request("PUT", &u, &[], 0).unwrap()).unwrap();
    assert!(head.contains("\r\nContent-Length: 0\r\n"), "{head}");
    let head = String::from_utf8(http::request("GET", &u, &[], 0).unwrap()).unwrap();
    assert!(!head.contains("Content-Length"), "{head}");

    // A loopback server that reads the whole request, body by its length, and answers 307.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let (mut head, mut line) = (String::new(), String::new());
        while r.read_line(&mut line).is_ok_and(|n| n > 2) {
            head.push_str(&line);
            line.clear();
        }
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        std::io::Read::read_exact(&mut r, &mut body).unwrap();
        let _ = s.write_all(b"HTTP/1.1 307 Again\r\nLocation: /elsewhere\r\n\r\n");
        let _ = tx.send((head, body));
    });
    let out = http::Outgoing {
        method: "POST",
        url: &format!("http://127.0.0.1:{port}/machine?comp=health"),
        headers: &[("Content-Type".into(), "text/xml; charset=utf-8".into())],
        body: b"<Health/>",
        source_port: None,
    };
    let (status, _, _) = http::exchange(&out, 10, soon(), &no_tls, &no_dns()).unwrap();
    assert_eq!(status, 307, "answered, not followed");
    let (head, body) = rx.recv().unwrap();
    assert!(
        head.starts_with("POST /machine?comp=health HTTP/1.1\r\n"),
        "{head}"
    );
    assert!(head.contains("Content-Length: 9\r\n") && head.contains("Content-Type: text/xml"));
    assert_eq!(body, b"<Health/>");
}

#[test]
fn a_request_leaves_from_the_source_port_asked_and_a_held_port_fails() {
    // A free port to send from (a privileged one needs root, which the tests may not have).
    let held = TcpListener::bind("0.0.0.0:0").unwrap();
    let source = held.local_addr().unwrap().port();
    drop(held);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut s, peer) = listener.accept().unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut line = String::new();
        while r.read_line(&mut line).is_ok_and(|n| n > 2) {
            line.clear();
        }
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        let _ = tx.send(peer.port());
    });
    let url = format!("http://127.0.0.1:{port}/user_data/cloud-init");
    let out = |source_port| http::Outgoing {
        method: "GET",
        url: &url,
        headers: &[],
        body: b"",
        source_port,
    };
    let got = http::exchange(&out(Some(source)), 10, soon(), &no_tls, &no_dns()).unwrap();
    assert_eq!((got.0, got.2), (200, b"ok".to_vec()), "{url}");
    assert_eq!(rx.recv().unwrap(), source);
    // A port a listening socket holds cannot be sent from: an error, not another port.
    let busy = TcpListener::bind("0.0.0.0:0").unwrap();
    let busy_port = busy.local_addr().unwrap().port();
    let err = http::exchange(&out(Some(busy_port)), 10, soon(), &no_tls, &no_dns()).unwrap_err();
    assert!(
        matches!(&err, Error::Transient(r) if r.contains("in use")),
        "{err:?}"
    );
}

/// The unix-socket dial: the request goes to the socket whatever the URL's host (which is
/// only the Host header), a missing socket is an error naming no body, and https is refused.
#[test]
fn unix_socket_dial_sends_every_url_to_the_socket() {
    let dir = std::env::temp_dir().join(format!("ember-fetch-unix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && s.read(&mut byte).unwrap() == 1 {
            head.push(byte[0]);
        }
        let _ = s.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        String::from_utf8(head).unwrap()
    });
    let dial = http::Dial::Unix(path.clone());
    let body = http::get("http://lxd/1.0/meta-data", &[], 100, soon(), &no_tls, &dial).unwrap();
    assert_eq!(body, b"hello");
    let head = server.join().unwrap();
    assert!(
        head.starts_with("GET /1.0/meta-data HTTP/1.1\r\nHost: lxd\r\n"),
        "{head}"
    );

    let https = http::get("https://lxd/1.0", &[], 100, soon(), &no_tls, &dial);
    assert!(matches!(https, Err(http::Error::Failed(ref r)) if r.contains("unix socket")));
    std::fs::remove_file(&path).unwrap();
    let gone = http::get("http://lxd/1.0", &[], 100, soon(), &no_tls, &dial);
    assert!(matches!(gone, Err(http::Error::Transient(_))), "{gone:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
