use super::conf::{candidates, hosts, resolv_conf};
use super::wire::{answer, name, query, Answer, A, AAAA};
use super::*;
use std::io::{Read, Write};
use std::net::{TcpListener, UdpSocket};

const CNAME: u16 = 5;

/// The query for `qname`, made a response with `flags` (QR added) and `records` after the
/// question: (owner as wire bytes, type, data).
fn response(
    id: u16,
    flags: u16,
    qname: &str,
    qtype: u16,
    records: &[(&[u8], u16, &[u8])],
) -> Vec<u8> {
    let mut m = query(id, qname, qtype).unwrap();
    m[2..4].copy_from_slice(&(0x8000 | flags).to_be_bytes());
    m[6..8].copy_from_slice(&(records.len() as u16).to_be_bytes());
    for (owner, rtype, data) in records {
        m.extend_from_slice(owner);
        m.extend_from_slice(&rtype.to_be_bytes());
        m.extend_from_slice(&[0, 1, 0, 0, 0, 60]);
        m.extend_from_slice(&(data.len() as u16).to_be_bytes());
        m.extend_from_slice(data);
    }
    m
}

/// A pointer to the question's name (offset 12).
const QNAME: &[u8] = &[0xc0, 12];

#[test]
fn a_query_is_encoded_as_rfc_1035_says() {
    let q = query(0x1234, "a.bc", A).unwrap();
    let want = [
        0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, // header: RD, one question
        1, b'a', 2, b'b', b'c', 0, 0, 1, 0, 1, // a.bc A IN
    ];
    assert_eq!(q, want);
    for bad in ["", "a..b", ".a", &"x".repeat(64), &["y"; 128].join(".")] {
        assert_eq!(query(1, bad, A), None, "{bad:?}");
    }
    assert!(query(1, &"x".repeat(63), AAAA).is_some());
    assert!(query(1, &["y"; 127].join("."), AAAA).is_some(), "253 bytes");
}

#[test]
fn addresses_follow_the_cname_chain_and_ignore_records_off_it() {
    // www.example → web.example (compressed: "web" then a pointer to "example") → 10.0.0.5;
    // an address for another name, and an AAAA-sized one in an A answer, are not taken.
    let q = query(7, "www.example", A).unwrap();
    let example = [0xc0, 16]; // "example" inside the question's name
    let mut cname = vec![3, b'w', b'e', b'b'];
    cname.extend_from_slice(&example);
    let target_at = q.len() + 12; // the CNAME record's data, after its 12-byte head
    let web = [0xc0, target_at as u8];
    let evil = [4, b'e', b'v', b'i', b'l', 0];
    let m = response(
        7,
        0x0180,
        "www.example",
        A,
        &[
            (QNAME, CNAME, &cname),
            (&evil, A, &[6, 6, 6, 6]),
            (&web, A, &[0; 16]),
            (&web, A, &[10, 0, 0, 5]),
        ],
    );
    assert_eq!(
        answer(&m, 7, "www.example", A),
        Some(Answer::Addresses(vec!["10.0.0.5".parse().unwrap()]))
    );
    assert_eq!(name(&m, target_at).unwrap().0, "web.example");
}

#[test]
fn answers_to_another_query_are_not_taken() {
    let good = response(9, 0x0180, "seed.example", A, &[(QNAME, A, &[10, 0, 0, 1])]);
    assert!(answer(&good, 9, "seed.example", A).is_some());
    assert_eq!(answer(&good, 8, "seed.example", A), None, "another id");
    assert_eq!(answer(&good, 9, "seed.example", AAAA), None, "another type");
    assert_eq!(answer(&good, 9, "other.example", A), None, "another name");
    let mut query_only = good.clone();
    query_only[2] &= 0x7f;
    assert_eq!(
        answer(&query_only, 9, "seed.example", A),
        None,
        "not a response"
    );
    // The name is compared without regard to case.
    let upper = response(9, 0x0180, "SEED.example", A, &[(QNAME, A, &[10, 0, 0, 1])]);
    assert!(matches!(
        answer(&upper, 9, "seed.example", A),
        Some(Answer::Addresses(_))
    ));
}

#[test]
fn truncation_and_response_codes() {
    let cases = [
        (0x0380, Answer::Truncated),
        (0x0183, Answer::NoName),
        (0x0182, Answer::Failed(2)),
        (0x0185, Answer::Failed(5)),
        (0x0180, Answer::NoData),
    ];
    for (flags, want) in cases {
        let m = response(3, flags, "x.example", AAAA, &[]);
        assert_eq!(answer(&m, 3, "x.example", AAAA), Some(want), "{flags:#x}");
    }
}

#[test]
fn hostile_packets_are_not_answers_and_never_panic() {
    let good = response(5, 0x0180, "h.example", A, &[(QNAME, A, &[1, 2, 3, 4])]);
    for n in 0..good.len() {
        assert_eq!(answer(&good[..n], 5, "h.example", A), None, "cut at {n}");
    }
    // A pointer to itself, a pointer forward, a reserved label type, a dot inside a label.
    for owner in [
        &[0xc0, 0x0c][..],
        &[0xc0, 0xff],
        &[0x40, 1, 0],
        &[3, b'a', b'.', b'b', 0],
    ] {
        let mut m = response(5, 0x0180, "h.example", A, &[(owner, A, &[1, 2, 3, 4])]);
        let at = m.len() - 14 - owner.len();
        if owner == [0xc0, 0x0c] {
            // Point the owner at itself.
            m[at + 1] = at as u8;
        }
        assert_eq!(answer(&m, 5, "h.example", A), None, "{owner:?}");
    }
    // A CNAME loop ends as no data.
    let m = response(5, 0x0180, "h.example", A, &[(QNAME, CNAME, QNAME)]);
    assert_eq!(answer(&m, 5, "h.example", A), Some(Answer::NoData));
    // Noise: a cheap generator, every length.
    let mut x: u32 = 1;
    for len in 0..600 {
        let mut m: Vec<u8> = (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        if m.len() > 12 {
            m[..12].copy_from_slice(&good[..12]);
        }
        let _ = answer(&m, 5, "h.example", A);
    }
}

#[test]
fn resolv_conf_hosts_and_search_lists() {
    let conf = resolv_conf(
        "# generated\nnameserver 10.0.0.2\nnameserver fe80::1%eth0\nnameserver ::1\n\
         domain old.example\nsearch Lan. corp.example # comment\nnameserver 10.0.0.3\nnameserver 10.0.0.4\n",
    );
    let want: Vec<IpAddr> = ["10.0.0.2", "::1", "10.0.0.3"]
        .map(|s| s.parse().unwrap())
        .into();
    assert_eq!(conf.servers, want, "three at most, unparsable skipped");
    assert_eq!(conf.search, ["lan", "corp.example"]);

    let text = "127.0.0.1 localhost\n10.1.1.1 seed.example seed # the seed\n::2 Seed.Example.\n#10.9.9.9 seed\n10.1.1.1 seed\n";
    let want: Vec<IpAddr> = ["10.1.1.1", "::2"].map(|s| s.parse().unwrap()).into();
    assert_eq!(hosts(text, "seed.example"), want);
    assert!(hosts(text, "example").is_empty());

    let search = ["lan".to_string(), "corp".to_string()];
    assert_eq!(candidates("a.b", &search), ["a.b", "a.b.lan", "a.b.corp"]);
    assert_eq!(candidates("a", &search), ["a.lan", "a.corp", "a"]);
    assert_eq!(candidates("a.b.", &search), ["a.b"]);
}

/// A UDP server on loopback answering each query through `answer` (query in, datagrams out),
/// for `n` queries.
fn udp_server(n: usize, answer: impl Fn(&[u8]) -> Vec<Vec<u8>> + Send + 'static) -> SocketAddr {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = sock.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        for _ in 0..n {
            let Ok((len, from)) = sock.recv_from(&mut buf) else {
                return;
            };
            for d in answer(&buf[..len]) {
                let _ = sock.send_to(&d, from);
            }
        }
    });
    addr
}

/// `q` answered with `flags` and, unless truncated, one record of `data`.
fn reply(q: &[u8], flags: u16, data_a: &[u8], data_aaaa: &[u8]) -> Vec<u8> {
    let mut m = q.to_vec();
    let qtype = u16::from_be_bytes([q[q.len() - 4], q[q.len() - 3]]);
    let data = if qtype == A { data_a } else { data_aaaa };
    m[2..4].copy_from_slice(&(0x8000 | flags).to_be_bytes());
    if flags & 0x0200 == 0 && !data.is_empty() {
        m[7] = 1;
        m.extend_from_slice(&[0xc0, 12]);
        m.extend_from_slice(&qtype.to_be_bytes());
        m.extend_from_slice(&[0, 1, 0, 0, 0, 60, 0, data.len() as u8]);
        m.extend_from_slice(data);
    }
    m
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

#[test]
fn udp_answers_both_families_ipv4_first_and_ignores_forgeries() {
    let v6: [u8; 16] = "fd00::5".parse::<std::net::Ipv6Addr>().unwrap().octets();
    let server = udp_server(2, move |q| {
        let mut forged = reply(q, 0x0180, &[6, 6, 6, 6], &[6; 16]);
        forged[0] ^= 0xff;
        // AAAA answers first; a forged id comes before each real answer.
        let real = reply(q, 0x0180, &[10, 0, 0, 5], &v6);
        vec![forged, real]
    });
    let got = ask(server, "seed.example", soon()).unwrap();
    let want: Vec<IpAddr> = vec!["10.0.0.5".parse().unwrap(), "fd00::5".parse().unwrap()];
    assert_eq!(got, Answer::Addresses(want));
}

#[test]
fn a_truncated_answer_is_asked_again_over_tcp() {
    // The same port over TCP: try a few ports, since another test may hold the TCP one.
    let (server, tcp) = (0..20)
        .find_map(|_| {
            let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
            let addr = udp.local_addr().unwrap();
            let tcp = TcpListener::bind(addr).ok()?;
            drop(udp);
            Some((addr, tcp))
        })
        .unwrap();
    let udp = UdpSocket::bind(server).unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        while let Ok((len, from)) = udp.recv_from(&mut buf) {
            let q = &buf[..len];
            let flags = if q[q.len() - 3] == A as u8 {
                0x0380
            } else {
                0x0180
            };
            let _ = udp.send_to(&reply(q, flags, &[], &[]), from);
        }
    });
    std::thread::spawn(move || {
        let (mut s, _) = tcp.accept().unwrap();
        let mut len = [0u8; 2];
        s.read_exact(&mut len).unwrap();
        let mut q = vec![0u8; u16::from_be_bytes(len) as usize];
        s.read_exact(&mut q).unwrap();
        let a = reply(&q, 0x0180, &[10, 9, 8, 7], &[]);
        let mut out = (a.len() as u16).to_be_bytes().to_vec();
        out.extend_from_slice(&a);
        // In two writes, as a stream may deliver it.
        s.write_all(&out[..5]).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        s.write_all(&out[5..]).unwrap();
    });
    let got = ask(server, "big.example", soon()).unwrap();
    assert_eq!(got, Answer::Addresses(vec!["10.9.8.7".parse().unwrap()]));
}

/// A DNS server over TCP only, answering `n` connections of one query each.
fn tcp_server(n: usize, data_a: [u8; 4]) -> SocketAddr {
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = tcp.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in tcp.incoming().take(n) {
            let mut s = s.unwrap();
            let mut len = [0u8; 2];
            s.read_exact(&mut len).unwrap();
            let mut q = vec![0u8; u16::from_be_bytes(len) as usize];
            s.read_exact(&mut q).unwrap();
            let a = reply(&q, 0x0180, &data_a, &[]);
            let mut out = (a.len() as u16).to_be_bytes().to_vec();
            out.extend_from_slice(&a);
            s.write_all(&out).unwrap();
        }
    });
    addr
}

#[test]
fn a_server_that_takes_only_tcp_answers_ask_tcp() {
    let server = tcp_server(2, [10, 4, 4, 4]);
    let got = ask_tcp(server, "seed.example", soon()).unwrap();
    assert_eq!(got, Answer::Addresses(vec!["10.4.4.4".parse().unwrap()]));
}

#[test]
fn silence_ends_at_the_deadline_and_errors_say_why() {
    let silent = udp_server(2, |_| Vec::new());
    let start = Instant::now();
    let err = ask(silent, "a.example", start + Duration::from_millis(300)).unwrap_err();
    assert_eq!(err, "timed out");
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(2),
        "{took:?}"
    );

    let failing = udp_server(2, |q| vec![reply(q, 0x0182, &[], &[])]);
    assert_eq!(
        ask(failing, "a.example", soon()).unwrap_err(),
        "server failure (SERVFAIL)"
    );

    let nx = udp_server(2, |q| vec![reply(q, 0x0183, &[], &[])]);
    assert_eq!(ask(nx, "a.example", soon()), Ok(Answer::NoName));

    // Nothing listens: refused at once.
    let closed = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let start = Instant::now();
    let err = ask(closed, "a.example", soon()).unwrap_err();
    assert!(err.to_lowercase().contains("refused"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(1));
}

#[test]
fn hosts_first_and_no_server_is_said_plainly() {
    let dir = std::env::temp_dir().join(format!("ember-dns-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("etc")).unwrap();
    std::fs::write(dir.join("etc/hosts"), "10.3.3.3 seed.example\n").unwrap();
    let r = Resolver::new(&Host::new(&dir), &[]);
    let got = r.resolve("Seed.Example", soon()).unwrap();
    assert_eq!(got, vec![IpAddr::from([10, 3, 3, 3])]);
    // A resolver remembers: gone from the file, still known.
    std::fs::write(dir.join("etc/hosts"), "").unwrap();
    assert_eq!(r.resolve("seed.example", soon()).unwrap(), got);
    let fresh = Resolver::new(&Host::new(&dir), &[]);
    assert!(fresh.resolve("seed.example", soon()).is_err());
    let err = r.resolve("other.example", soon()).unwrap_err();
    assert!(!err.retry);
    assert_eq!(
        err.reason,
        "resolving other.example: no DNS server (none from ember's lease, in /etc/resolv.conf or on the kernel command line)"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn command_line_servers_come_from_nameserver_and_ip() {
    let params: Vec<String> = [
        "ro",
        "nameserver=10.0.0.9",
        "ip=10.0.0.5::10.0.0.1:255.255.255.0:h:eth0:none:10.0.0.8:[fd00::53]",
        "nameserver=[fd00::53]",
    ]
    .map(String::from)
    .into();
    let want: Vec<IpAddr> = ["10.0.0.9", "fd00::53", "10.0.0.8"]
        .map(|s| s.parse().unwrap())
        .into();
    assert_eq!(crate::network::cmdline::nameservers(&params), want);
}
