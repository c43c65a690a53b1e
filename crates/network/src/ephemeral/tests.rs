//! Packets, the exchange against a scripted server, route planning, and the fuzz corpus.

use super::client::{self, Failure, Ignored, Incoming, Lease, Timing, Transport};
use super::packet::{self, Frame, Kind, Malformed, Message, Route};
use super::plan_routes;
use rustix::io::Errno;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

const MAC: [u8; 6] = [0x52, 0x54, 0, 0x12, 0x34, 0x56];
const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);

fn ip(a: u8, b: u8, c: u8, d: u8) -> Ipv4Addr {
    Ipv4Addr::new(a, b, c, d)
}

/// A server's reply: BOOTREPLY, Ethernet, the given options after the message type.
fn reply(kind: u8, xid: u32, mac: [u8; 6], yiaddr: Ipv4Addr, opts: &[(u8, &[u8])]) -> Vec<u8> {
    let mut b = vec![0u8; 236];
    b[0] = 2;
    b[1] = 1;
    b[2] = 6;
    b[4..8].copy_from_slice(&xid.to_be_bytes());
    b[16..20].copy_from_slice(&yiaddr.octets());
    b[28..34].copy_from_slice(&mac);
    b.extend_from_slice(&[99, 130, 83, 99, 53, 1, kind]);
    for (code, data) in opts {
        b.push(*code);
        b.push(data.len() as u8);
        b.extend_from_slice(data);
    }
    b.push(255);
    b
}

const LEASE_OPTS: &[(u8, &[u8])] = &[
    (54, &[10, 0, 0, 1]),
    (1, &[255, 255, 255, 0]),
    (3, &[10, 0, 0, 1]),
    (6, &[10, 0, 0, 2, 10, 0, 0, 3]),
    (51, &[0, 0, 0x0e, 0x10]),
    (15, b"example.internal"),
];

#[test]
fn requests_are_broadcast_bootrequests_with_what_a_lease_needs() {
    let d = packet::request(Kind::Discover, 0xdead_beef, MAC, 3, None, &[]);
    assert!(d.len() >= 300);
    assert_eq!(&d[..4], &[1, 1, 6, 0]);
    assert_eq!(&d[4..8], &0xdead_beefu32.to_be_bytes());
    assert_eq!(&d[8..10], &[0, 3]);
    assert_eq!(d[10], 0x80, "broadcast flag");
    let m = packet::decode(&d).unwrap();
    assert_eq!(
        (m.op, m.chaddr, m.options.kind),
        (1, MAC, Some(Kind::Discover))
    );
    let r = packet::request(
        Kind::Request,
        1,
        MAC,
        0,
        Some((ip(10, 0, 0, 9), SERVER)),
        &[245, 7],
    );
    let m = packet::decode(&r).unwrap();
    assert_eq!(
        (m.options.kind, m.options.server_id),
        (Some(Kind::Request), Some(SERVER))
    );
    let at = r.windows(2).position(|w| w == [50, 4]).unwrap();
    assert_eq!(&r[at + 2..at + 6], &[10, 0, 0, 9]);
    // The site-specific option a datasource asked for joins the list; 7 is no such option.
    let at = r.windows(2).position(|w| w == [55, 9]).unwrap();
    assert_eq!(&r[at + 2..at + 11], &[1, 3, 6, 15, 26, 51, 54, 121, 245]);
}

#[test]
fn classless_routes_decode_the_rfc_3442_examples() {
    // RFC 3442 §3's table of subnet, mask and destination descriptor, each via 10.0.0.1.
    let cases: &[(&[u8], Ipv4Addr, u8)] = &[
        (&[0], ip(0, 0, 0, 0), 0),
        (&[8, 10], ip(10, 0, 0, 0), 8),
        (&[24, 10, 0, 0], ip(10, 0, 0, 0), 24),
        (&[16, 10, 17], ip(10, 17, 0, 0), 16),
        (&[24, 10, 27, 129], ip(10, 27, 129, 0), 24),
        (&[25, 10, 229, 0, 128], ip(10, 229, 0, 128), 25),
        (&[32, 10, 198, 122, 47], ip(10, 198, 122, 47), 32),
    ];
    let mut all = Vec::new();
    let mut expected = Vec::new();
    for (descriptor, dest, prefix) in cases {
        let mut v = descriptor.to_vec();
        v.extend_from_slice(&[10, 0, 0, 1]);
        let route = Route {
            dest: *dest,
            prefix: *prefix,
            gateway: SERVER,
        };
        assert_eq!(
            packet::classless_routes(&v),
            Some(vec![route]),
            "{descriptor:?}"
        );
        assert_eq!(packet::encode_classless_routes(&[route]), v);
        all.extend_from_slice(&v);
        expected.push(route);
    }
    assert_eq!(packet::classless_routes(&all), Some(expected));
    // An on-link route (router 0.0.0.0), and bits past the width masked away.
    assert_eq!(
        packet::classless_routes(&[16, 192, 168, 0, 0, 0, 0]),
        Some(vec![Route {
            dest: ip(192, 168, 0, 0),
            prefix: 16,
            gateway: ip(0, 0, 0, 0)
        }])
    );
    assert_eq!(
        packet::classless_routes(&[4, 0xff, 1, 1, 1, 1]).unwrap()[0].dest,
        ip(0xf0, 0, 0, 0)
    );
    for bad in [
        &[][..],
        &[33, 1, 2, 3, 4, 5, 6, 7, 8],
        &[24, 10, 0],
        &[24, 10, 0, 0, 10, 0, 0],
        &[0, 1, 1, 1, 1, 8],
    ] {
        assert_eq!(packet::classless_routes(bad), None, "{bad:?}");
    }
}

#[test]
fn replies_decode_with_overload_and_concatenation() {
    let m = packet::decode(&reply(5, 7, MAC, ip(10, 0, 0, 9), LEASE_OPTS)).unwrap();
    assert_eq!(
        (m.op, m.xid, m.chaddr, m.yiaddr),
        (2, 7, MAC, ip(10, 0, 0, 9))
    );
    let o = &m.options;
    assert_eq!(o.kind, Some(Kind::Ack));
    assert_eq!(o.server_id, Some(SERVER));
    assert_eq!(o.subnet_mask, Some(ip(255, 255, 255, 0)));
    assert_eq!(o.dns, [ip(10, 0, 0, 2), ip(10, 0, 0, 3)]);
    assert_eq!(o.lease_seconds, Some(3600));
    assert_eq!(o.domain.as_deref(), Some("example.internal"));

    // Option 52 = 3: `file` then `sname` carry options too; option 121 is split in two
    // (RFC 3396) across the options field and `file`; 245 sits in `sname`.
    let mut b = reply(
        2,
        7,
        MAC,
        ip(10, 0, 0, 9),
        &[(52, &[3]), (121, &[24, 192, 168])],
    );
    b[108..117].copy_from_slice(&[121, 5, 5, 10, 0, 0, 1, 54, 4]);
    b[117..122].copy_from_slice(&[10, 0, 0, 1, 255]);
    b[44..51].copy_from_slice(&[245, 4, 168, 63, 129, 16, 255]);
    let o = packet::decode(&b).unwrap().options;
    assert_eq!(o.server_id, Some(SERVER));
    assert_eq!(o.site, [(245, vec![168, 63, 129, 16])]);
    assert_eq!(
        o.classless_routes,
        Some(vec![Route {
            dest: ip(192, 168, 5, 0),
            prefix: 24,
            gateway: SERVER
        }])
    );
    // Without option 52 the same `file` bytes are not options.
    let mut plain = reply(2, 7, MAC, ip(10, 0, 0, 9), &[]);
    plain[108..117].copy_from_slice(&[121, 5, 5, 10, 0, 0, 1, 54, 4]);
    assert_eq!(packet::decode(&plain).unwrap().options.server_id, None);
    // Pad bytes, and no End option at all, are accepted.
    let mut padded = reply(2, 7, MAC, ip(10, 0, 0, 9), &[]);
    padded.pop();
    padded.extend_from_slice(&[0, 0, 54, 4, 10, 0, 0, 1]);
    assert_eq!(
        packet::decode(&padded).unwrap().options.server_id,
        Some(SERVER)
    );
}

#[test]
fn broken_messages_are_refused_not_misread() {
    let good = reply(5, 7, MAC, ip(10, 0, 0, 9), LEASE_OPTS);
    assert_eq!(packet::decode(&good[..200]), Err(Malformed::Short));
    let mut b = good.clone();
    b[236] = 0;
    assert_eq!(packet::decode(&b), Err(Malformed::NoCookie));
    let mut b = good.clone();
    b[2] = 16;
    assert_eq!(packet::decode(&b), Err(Malformed::NotEthernet));
    // An option whose length runs past the end.
    let mut b = good[..good.len() - 1].to_vec();
    b.extend_from_slice(&[6, 8, 10, 0]);
    assert_eq!(packet::decode(&b), Err(Malformed::Truncated));
    let mut b = good.clone();
    b.resize(packet::MAX_MESSAGE + 1, 0);
    assert_eq!(packet::decode(&b), Err(Malformed::TooLarge));
    for (code, data) in [
        (1u8, &[255u8, 255, 0][..]),
        (3, &[10, 0, 0]),
        (6, &[]),
        (51, &[0, 0, 1]),
        (53, &[5, 5]),
        (53, &[9]),
        (54, &[10, 0, 0, 1, 2]),
        (26, &[5]),
        (52, &[4]),
        (121, &[33, 0, 0, 0, 0]),
    ] {
        let b = reply(5, 7, MAC, ip(10, 0, 0, 9), &[(code, data)]);
        assert_eq!(
            packet::decode(&b),
            Err(Malformed::BadOption(code)),
            "option {code}"
        );
    }
    // Control characters make the domain unusable, not the message.
    let b = reply(5, 7, MAC, ip(10, 0, 0, 9), &[(15, b"a\nb")]);
    assert_eq!(packet::decode(&b).unwrap().options.domain, None);
}

#[test]
fn frames_are_checked_before_the_payload_is_read() {
    let payload = reply(2, 7, MAC, ip(10, 0, 0, 9), LEASE_OPTS);
    let f = packet::ipv4_udp(SERVER, Ipv4Addr::BROADCAST, 68, &payload);
    assert_eq!(
        packet::frame(&f, f.len()),
        Frame::Dhcp {
            from: SERVER,
            payload: &payload
        }
    );
    let other = packet::ipv4_udp(SERVER, Ipv4Addr::BROADCAST, 53, &payload);
    assert_eq!(packet::frame(&other, other.len()), Frame::NotOurs);
    assert_eq!(packet::frame(&f[..10], 10), Frame::NotOurs);
    let mut bad = f.clone();
    bad[10] ^= 1; // header checksum
    assert_eq!(packet::frame(&bad, bad.len()), Frame::Malformed);
    let mut frag = f.clone();
    frag[6] = 0x20; // more fragments
    assert_eq!(packet::frame(&frag, frag.len()), Frame::Malformed);
    assert_eq!(
        packet::frame(&f[..f.len() - 1], f.len() - 1),
        Frame::Malformed
    );
    let mut long_udp = f.clone();
    long_udp[24..26].copy_from_slice(&(payload.len() as u16 + 9).to_be_bytes());
    assert_eq!(packet::frame(&long_udp, long_udp.len()), Frame::Malformed);
    let huge = packet::ipv4_udp(
        SERVER,
        Ipv4Addr::BROADCAST,
        68,
        &vec![0; packet::MAX_MESSAGE + 1],
    );
    assert_eq!(packet::frame(&huge, huge.len()), Frame::TooLarge);
    // Truncated by the receive buffer: the real length says too large.
    assert_eq!(packet::frame(&f, 70_000), Frame::TooLarge);
}

#[test]
fn leases_follow_rfc_3442_and_refuse_nonsense() {
    let ack =
        |opts: &[(u8, &[u8])], yiaddr| packet::decode(&reply(5, 7, MAC, yiaddr, opts)).unwrap();
    let l = Lease::from_ack(&ack(LEASE_OPTS, ip(10, 0, 0, 9))).unwrap();
    assert_eq!(
        (l.address, l.prefix, l.server),
        (ip(10, 0, 0, 9), 24, Some(SERVER))
    );
    assert_eq!(
        l.routes,
        [Route {
            dest: ip(0, 0, 0, 0),
            prefix: 0,
            gateway: SERVER
        }]
    );
    // Option 121 overrides option 3.
    let mut opts = LEASE_OPTS.to_vec();
    opts.push((121, &[8, 172, 10, 0, 0, 254]));
    let l = Lease::from_ack(&ack(&opts, ip(10, 0, 0, 9))).unwrap();
    assert_eq!(
        l.routes,
        [Route {
            dest: ip(172, 0, 0, 0),
            prefix: 8,
            gateway: ip(10, 0, 0, 254)
        }]
    );
    assert_eq!(l.routers, [SERVER]);
    // No mask: the class's.
    let l = Lease::from_ack(&ack(&[(54, &[10, 0, 0, 1])], ip(192, 168, 1, 9))).unwrap();
    assert_eq!(l.prefix, 24);
    for bad in [
        ip(0, 0, 0, 0),
        ip(127, 0, 0, 1),
        ip(224, 0, 0, 1),
        ip(255, 255, 255, 255),
    ] {
        assert_eq!(Lease::from_ack(&ack(LEASE_OPTS, bad)), None, "{bad}");
    }
    let holes = ack(&[(1, &[255, 0, 255, 0])], ip(10, 0, 0, 9));
    assert_eq!(Lease::from_ack(&holes), None);
}

/// A scripted server: `respond` sees each request (its index and the decoded message) and
/// returns what arrives after it. Silence waits out `until`, as a socket would.
struct Fake<F: FnMut(usize, &Message) -> Vec<Incoming>> {
    sent: Vec<Message>,
    queue: VecDeque<Incoming>,
    respond: F,
}

impl<F: FnMut(usize, &Message) -> Vec<Incoming>> Transport for Fake<F> {
    fn send(&mut self, b: &[u8]) -> Result<(), Errno> {
        let m = packet::decode(b).expect("the client sends valid messages");
        let out = (self.respond)(self.sent.len(), &m);
        self.sent.push(m);
        self.queue.extend(out);
        Ok(())
    }
    fn recv(&mut self, until: Instant) -> Result<Option<Incoming>, Errno> {
        if let Some(i) = self.queue.pop_front() {
            return Ok(Some(i));
        }
        std::thread::sleep(until.saturating_duration_since(Instant::now()));
        Ok(None)
    }
}

fn fake<F: FnMut(usize, &Message) -> Vec<Incoming>>(respond: F) -> Fake<F> {
    Fake {
        sent: Vec::new(),
        queue: VecDeque::new(),
        respond,
    }
}

const FAST: Timing = Timing {
    first: Duration::from_millis(20),
    max: Duration::from_millis(80),
    request_tries: 2,
};

fn run<F: FnMut(usize, &Message) -> Vec<Incoming>>(
    t: &mut Fake<F>,
    within: Duration,
) -> (Result<Lease, Failure>, Ignored) {
    let mut ignored = Ignored::default();
    let r = client::obtain(t, MAC, Instant::now() + within, &FAST, &[], &mut ignored);
    (r, ignored)
}

fn answer(kind: u8, m: &Message, opts: &[(u8, &[u8])]) -> Incoming {
    Incoming::Dhcp(reply(kind, m.xid, m.chaddr, ip(10, 0, 0, 9), opts))
}

#[test]
fn exchange_ignores_and_counts_what_is_not_its_answer() {
    let other_server: &[(u8, &[u8])] = &[(54, &[10, 0, 0, 99]), (1, &[255, 255, 255, 0])];
    let mut t = fake(|_, m| match m.options.kind {
        Some(Kind::Discover) => vec![
            Incoming::Dhcp(reply(2, m.xid ^ 1, MAC, ip(10, 0, 0, 9), LEASE_OPTS)),
            Incoming::Dhcp(reply(2, m.xid, [9; 6], ip(10, 0, 0, 9), LEASE_OPTS)),
            Incoming::Dhcp(b"garbage".to_vec()),
            Incoming::Dhcp(vec![0; packet::MAX_MESSAGE + 1]),
            Incoming::Malformed,
            Incoming::TooLarge,
            answer(5, m, LEASE_OPTS), // an ACK while selecting
            answer(2, m, &[(1, &[255, 255, 255, 0])]), // an OFFER without a server id
            answer(2, m, LEASE_OPTS),
        ],
        _ => vec![
            answer(2, m, other_server), // a late OFFER
            answer(5, m, other_server), // an ACK from a server not asked
            answer(5, m, LEASE_OPTS),
        ],
    });
    let (lease, ignored) = run(&mut t, Duration::from_secs(5));
    let lease = lease.unwrap();
    assert_eq!(
        (lease.address, lease.server),
        (ip(10, 0, 0, 9), Some(SERVER))
    );
    let expected = Ignored {
        malformed: 3,
        too_large: 2,
        wrong_xid: 1,
        wrong_chaddr: 1,
        wrong_server: 1,
        unexpected: 2,
        naks: 0,
    };
    assert_eq!(ignored, expected);
    assert_eq!(ignored.total(), 10);
    let kinds: Vec<_> = t.sent.iter().map(|m| m.options.kind).collect();
    assert_eq!(kinds, [Some(Kind::Discover), Some(Kind::Request)]);
    assert_eq!(t.sent[0].xid, t.sent[1].xid);
    assert_eq!(t.sent[1].options.server_id, Some(SERVER));
}

#[test]
fn exchange_retransmits_with_backoff_and_restarts_after_a_nak() {
    let mut t = fake(|n, m| match (n, m.options.kind) {
        (0 | 1, _) => vec![],                                  // two DISCOVERs lost
        (2, _) => vec![answer(2, m, LEASE_OPTS)],              // OFFER
        (3, _) => vec![answer(6, m, &[(54, &[10, 0, 0, 1])])], // NAK
        (_, Some(Kind::Discover)) => vec![answer(2, m, LEASE_OPTS)],
        _ => vec![answer(5, m, LEASE_OPTS)],
    });
    let start = Instant::now();
    let (lease, ignored) = run(&mut t, Duration::from_secs(5));
    assert!(lease.is_ok());
    assert_eq!(ignored.naks, 1);
    let kinds: Vec<_> = t.sent.iter().map(|m| m.options.kind.unwrap()).collect();
    use Kind::*;
    assert_eq!(
        kinds,
        [Discover, Discover, Discover, Request, Discover, Request]
    );
    assert_ne!(t.sent[0].xid, t.sent[4].xid, "a new exchange after the NAK");
    // Waits of ~20 then ~40 ms (±25 %) before the third DISCOVER.
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(45), "{waited:?}");
}

#[test]
fn exchange_stops_at_the_deadline() {
    let mut t = fake(|_, _| vec![]);
    let start = Instant::now();
    let (r, _) = run(&mut t, Duration::from_millis(300));
    assert_eq!(r, Err(Failure::Deadline { offered: false }));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_millis(600),
        "{took:?}"
    );
    // 20, 40, 80, 80 ms...: a handful of DISCOVERs, not a flood.
    assert!((3..=8).contains(&t.sent.len()), "{}", t.sent.len());

    // Offered but never acknowledged.
    let mut t = fake(|_, m| match m.options.kind {
        Some(Kind::Discover) => vec![answer(2, m, LEASE_OPTS)],
        _ => vec![],
    });
    let (r, _) = run(&mut t, Duration::from_millis(300));
    assert_eq!(r, Err(Failure::Deadline { offered: true }));
    // REQUEST twice (request_tries), then a new DISCOVER.
    let kinds: Vec<_> = t
        .sent
        .iter()
        .take(4)
        .map(|m| m.options.kind.unwrap())
        .collect();
    assert_eq!(
        kinds,
        [Kind::Discover, Kind::Request, Kind::Request, Kind::Discover]
    );
}

#[test]
fn a_flood_of_garbage_does_not_outlast_the_deadline() {
    struct Flood(u32);
    impl Transport for Flood {
        fn send(&mut self, _: &[u8]) -> Result<(), Errno> {
            Ok(())
        }
        fn recv(&mut self, _: Instant) -> Result<Option<Incoming>, Errno> {
            self.0 = self.0.saturating_add(1);
            Ok(Some(Incoming::Dhcp(vec![0xff; 300])))
        }
    }
    let mut ignored = Ignored::default();
    let start = Instant::now();
    let r = client::obtain(
        &mut Flood(0),
        MAC,
        start + Duration::from_millis(100),
        &FAST,
        &[],
        &mut ignored,
    );
    assert_eq!(r, Err(Failure::Deadline { offered: false }));
    assert!(start.elapsed() < Duration::from_millis(400));
    assert!(ignored.malformed > 0);
}

fn lease(address: Ipv4Addr, prefix: u8, routes: Vec<Route>) -> Lease {
    let mut l = super::linklocal::lease(address);
    l.prefix = prefix;
    l.routes = routes;
    l.server = Some(SERVER);
    l
}

#[test]
fn routes_are_planned_on_link_first_with_a_metadata_route_when_needed() {
    let md = Some(ip(169, 254, 169, 254));
    let r = |d, p, g| Route {
        dest: d,
        prefix: p,
        gateway: g,
    };
    // A default route reaches the metadata address: nothing more.
    let l = lease(ip(10, 0, 0, 9), 24, vec![r(ip(0, 0, 0, 0), 0, SERVER)]);
    let plan = plan_routes(&l, 3, md);
    assert_eq!(plan.len(), 1);
    assert_eq!(
        (plan[0].gateway, plan[0].onlink, plan[0].source),
        (Some(SERVER), false, Some(l.address))
    );
    // GCE-style /32 with a gateway outside it: on-link flag; 121 routes with an on-link one
    // first; the metadata address reached by none: a host route on the link.
    let l = lease(
        ip(10, 128, 0, 5),
        32,
        vec![
            r(ip(172, 16, 0, 0), 12, ip(10, 128, 0, 1)),
            r(ip(10, 128, 0, 0), 20, ip(0, 0, 0, 0)),
        ],
    );
    let plan = plan_routes(&l, 3, md);
    let got: Vec<_> = plan
        .iter()
        .map(|s| (s.dest, s.prefix, s.gateway, s.onlink))
        .collect();
    assert_eq!(
        got,
        [
            (ip(10, 128, 0, 0), 20, None, false),
            (ip(172, 16, 0, 0), 12, Some(ip(10, 128, 0, 1)), true),
            (ip(169, 254, 169, 254), 32, None, false),
        ]
    );
    // A link-local address's subnet covers the metadata address.
    assert!(plan_routes(&super::linklocal::lease(ip(169, 254, 3, 4)), 3, md).is_empty());
}

/// The committed seeds, and the corpus a local `cargo fuzz run` grew (not committed), when
/// there is one.
#[test]
fn the_fuzz_corpus_replays() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut n = 0;
    for dir in ["seeds/dhcp_packet", "corpus/dhcp_packet"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(dir)) else {
            continue;
        };
        for entry in entries {
            packet::fuzz(&std::fs::read(entry.unwrap().path()).unwrap());
            n += 1;
        }
    }
    assert!(n >= 8, "only {n} seeds in fuzz/seeds/dhcp_packet");
}

#[test]
fn attempts_become_status_steps() {
    let mut a = super::Attempt {
        nic: "eth0".into(),
        outcome: "dhcp".into(),
        address: Some("10.0.0.9/24".into()),
        server: Some(SERVER),
        lease_seconds: Some(3600),
        ignored: Ignored {
            wrong_xid: 2,
            naks: 1,
            ..Ignored::default()
        },
        elapsed_ms: 12,
        used: true,
        warnings: Vec::new(),
        start: 1.5,
    };
    let step = a.step();
    assert_eq!(step.name, "ephemeral network eth0");
    assert_eq!(
        step.result,
        "ok (dhcp 10.0.0.9/24 from 10.0.0.1, lease 3600 s, 2 replies ignored, 1 NAKs)"
    );
    assert_eq!((step.start, step.duration_us), (Some(1.5), 12_000));
    a.address = None;
    a.server = None;
    a.lease_seconds = None;
    a.outcome = "dhcp-no-lease".into();
    a.warnings
        .push("eth0: no DHCP lease before the deadline".into());
    assert_eq!(
        a.step().result,
        "error (dhcp-no-lease, 2 replies ignored, 1 NAKs, 1 warnings)"
    );
}
