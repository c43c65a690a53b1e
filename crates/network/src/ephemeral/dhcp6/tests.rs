//! DHCPv6 messages both ways and the exchange against a scripted server.

use super::packet::{self, Kind, Malformed};
use super::*;
use rustix::io::Errno;
use std::collections::VecDeque;

const MAC: [u8; 6] = [0x52, 0x54, 0, 0x12, 0x34, 0x56];
const SERVER_A: &[u8] = &[0, 3, 0, 1, 2, 0, 0, 0, 0, 0xaa];
const SERVER_B: &[u8] = &[0, 3, 0, 1, 2, 0, 0, 0, 0, 0xbb];

fn v6(s: &str) -> Ipv6Addr {
    s.parse().unwrap()
}

fn opt(code: u16, data: &[u8]) -> Vec<u8> {
    let mut b = code.to_be_bytes().to_vec();
    b.extend_from_slice(&(data.len() as u16).to_be_bytes());
    b.extend_from_slice(data);
    b
}

fn iaaddr(addr: &str, preferred: u32, valid: u32, inner: &[u8]) -> Vec<u8> {
    let mut d = v6(addr).octets().to_vec();
    d.extend_from_slice(&preferred.to_be_bytes());
    d.extend_from_slice(&valid.to_be_bytes());
    d.extend_from_slice(inner);
    opt(5, &d)
}

fn ia_na(iaid: u32, inner: &[u8]) -> Vec<u8> {
    let mut d = iaid.to_be_bytes().to_vec();
    d.extend_from_slice(&[0, 0, 0, 60, 0, 0, 0, 90]);
    d.extend_from_slice(inner);
    opt(3, &d)
}

/// A server's message: kind, xid, then the given options after client and server id.
fn server_msg(kind: u8, xid: u32, client: &[u8], server: &[u8], rest: &[Vec<u8>]) -> Vec<u8> {
    let mut b = vec![kind];
    b.extend_from_slice(&xid.to_be_bytes()[1..]);
    b.extend(opt(1, client));
    b.extend(opt(2, server));
    for o in rest {
        b.extend_from_slice(o);
    }
    b
}

fn offer(addr: &str) -> Vec<u8> {
    ia_na(packet::iaid(MAC), &iaaddr(addr, 300, 600, &[]))
}

#[test]
fn solicit_and_request_carry_what_a_server_needs() {
    let s = packet::request(Kind::Solicit, 0xabcdef, MAC, 150, None);
    assert_eq!(&s[..4], &[1, 0xab, 0xcd, 0xef]);
    let duid = packet::duid(MAC);
    assert_eq!(duid, [0, 3, 0, 1, 0x52, 0x54, 0, 0x12, 0x34, 0x56]);
    let has = |b: &[u8], o: &[u8]| b.windows(o.len()).any(|w| w == o);
    assert!(has(&s, &opt(1, &duid)), "client id");
    assert!(has(&s, &opt(14, &[])), "rapid commit");
    assert!(has(&s, &opt(8, &150u16.to_be_bytes())), "elapsed time");
    assert!(
        has(&s, &opt(6, &[0, 23, 0, 24])),
        "DNS servers and domains asked"
    );
    assert!(has(&s, &ia_na(packet::iaid(MAC), &[])[..4]), "an IA_NA");
    let decoded = packet::decode(&s, packet::iaid(MAC)).unwrap();
    assert_eq!(decoded.server_id, None, "no server id in a Solicit");
    assert!(decoded.rapid_commit && decoded.ia_found);
    let r = packet::request(Kind::Request, 7, MAC, 0, Some((SERVER_A, v6("fd00::9"))));
    assert_eq!(r[0], 3);
    assert!(has(&r, &opt(2, SERVER_A)), "server id");
    assert!(!has(&r, &opt(14, &[])), "no rapid commit in a Request");
    let mut want = v6("fd00::9").octets().to_vec();
    want.extend_from_slice(&[0; 8]);
    assert!(has(&r, &opt(5, &want)), "the advertised address asked for");
}

#[test]
fn replies_decode_and_refusals_grant_nothing() {
    let iaid = packet::iaid(MAC);
    let dns = [v6("fd00::53").octets(), v6("fd00::54").octets()].concat();
    let b = server_msg(
        7,
        9,
        &packet::duid(MAC),
        SERVER_A,
        &[offer("fd00::9"), opt(23, &dns), opt(7, &[200])],
    );
    let m = packet::decode(&b, iaid).unwrap();
    assert_eq!((m.kind, m.xid, m.preference), (Some(Kind::Reply), 9, 200));
    assert_eq!(m.server_id.as_deref(), Some(SERVER_A));
    assert_eq!(m.addresses.len(), 1);
    assert_eq!(
        (
            m.addresses[0].addr,
            m.addresses[0].preferred,
            m.addresses[0].valid
        ),
        (v6("fd00::9"), 300, 600)
    );
    assert_eq!(m.dns, [v6("fd00::53"), v6("fd00::54")]);
    // Another IA's addresses are not ours; a zero valid lifetime, a preferred lifetime above
    // the valid one, or an address with a failing status grant nothing.
    for ia in [
        ia_na(iaid ^ 1, &iaaddr("fd00::9", 300, 600, &[])),
        ia_na(iaid, &iaaddr("fd00::9", 0, 0, &[])),
        ia_na(iaid, &iaaddr("fd00::9", 700, 600, &[])),
        ia_na(iaid, &iaaddr("fd00::9", 300, 600, &opt(13, &[0, 2]))),
    ] {
        let m = packet::decode(&server_msg(7, 9, &[1], SERVER_A, &[ia]), iaid).unwrap();
        assert!(m.addresses.is_empty(), "{m:?}");
    }
    let no_addrs = ia_na(iaid, &opt(13, &[0, 2, b'n', b'o']));
    let m = packet::decode(&server_msg(2, 9, &[1], SERVER_A, &[no_addrs]), iaid).unwrap();
    assert_eq!((m.ia_found, m.ia_status), (true, 2));
}

#[test]
fn broken_messages_are_refused_not_misread() {
    let iaid = packet::iaid(MAC);
    let good = server_msg(7, 9, &[1], SERVER_A, &[offer("fd00::9")]);
    assert_eq!(packet::decode(&good[..3], iaid), Err(Malformed::Short));
    assert_eq!(
        packet::decode(&good[..good.len() - 1], iaid),
        Err(Malformed::Truncated)
    );
    let mut b = good.clone();
    b[0] = 99;
    assert_eq!(packet::decode(&b, iaid), Err(Malformed::UnknownKind));
    let big = [good.clone(), opt(99, &[0; packet::MAX_MESSAGE])].concat();
    assert_eq!(packet::decode(&big, iaid), Err(Malformed::TooLarge));
    // An IAADDR shorter than its fixed part, an empty status, a lone option header byte.
    for bad in [
        ia_na(iaid, &opt(5, &[0; 20])),
        ia_na(iaid, &opt(13, &[0])),
        opt(13, &[]),
        vec![0, 7, 0],
    ] {
        let b = server_msg(7, 9, &[1], SERVER_A, &[bad]);
        assert_eq!(packet::decode(&b, iaid), Err(Malformed::Truncated));
    }
}

/// A scripted server: `respond` sees each message sent (its index, kind and xid) and returns
/// what arrives after it.
struct Fake<F: FnMut(usize, Kind, u32) -> Vec<Vec<u8>>> {
    sent: Vec<(Kind, Vec<u8>)>,
    queue: VecDeque<Incoming>,
    respond: F,
}

impl<F: FnMut(usize, Kind, u32) -> Vec<Vec<u8>>> Transport for Fake<F> {
    fn send(&mut self, b: &[u8]) -> Result<(), Errno> {
        let m = packet::decode(b, packet::iaid(MAC)).expect("the client sends valid messages");
        let kind = m.kind.unwrap();
        let out = (self.respond)(self.sent.len(), kind, m.xid);
        self.sent.push((kind, b.to_vec()));
        self.queue.extend(out.into_iter().map(Incoming::Dhcp));
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

const FAST: Timing = Timing {
    first: Duration::from_millis(30),
    max: Duration::from_millis(120),
    request_tries: 2,
};

fn run<F: FnMut(usize, Kind, u32) -> Vec<Vec<u8>>>(
    respond: F,
    within: Duration,
) -> (Result<Lease6, Failure>, Ignored, Vec<Kind>) {
    let mut t = Fake {
        sent: Vec::new(),
        queue: VecDeque::new(),
        respond,
    };
    let mut ignored = Ignored::default();
    let r = obtain(&mut t, MAC, Instant::now() + within, &FAST, &mut ignored);
    (r, ignored, t.sent.iter().map(|(k, _)| *k).collect())
}

#[test]
fn rapid_commit_takes_one_round_trip() {
    let me = packet::duid(MAC);
    let (r, ignored, sent) = run(
        |_, _, xid| {
            let rapid = opt(14, &[]);
            vec![server_msg(
                7,
                xid,
                &me,
                SERVER_A,
                &[offer("fd00::9"), rapid],
            )]
        },
        Duration::from_secs(2),
    );
    let lease = r.unwrap();
    assert_eq!((lease.address, lease.valid), (v6("fd00::9"), 600));
    assert_eq!(lease.server, "000300010200000000aa");
    assert_eq!(sent, [Kind::Solicit]);
    assert_eq!(ignored.total(), 0);
}

#[test]
fn the_most_preferred_advertise_wins_and_strangers_are_counted() {
    let me = packet::duid(MAC);
    let other = packet::duid([2, 0, 0, 0, 0, 1]);
    let (r, ignored, sent) = run(
        |n, kind, xid| match (n, kind) {
            (0, Kind::Solicit) => vec![
                server_msg(2, xid ^ 1, &me, SERVER_A, &[offer("fd00::1")]),
                server_msg(2, xid, &other, SERVER_A, &[offer("fd00::2")]),
                server_msg(2, xid, &me, SERVER_A, &[offer("fd00::3"), opt(7, &[10])]),
                server_msg(2, xid, &me, SERVER_B, &[offer("fd00::4"), opt(7, &[20])]),
                // A Reply without rapid commit answers no Solicit.
                server_msg(7, xid, &me, SERVER_A, &[offer("fd00::5")]),
            ],
            (1, Kind::Request) => vec![
                server_msg(7, xid, &me, SERVER_A, &[offer("fd00::3")]),
                server_msg(7, xid, &me, SERVER_B, &[offer("fd00::4")]),
            ],
            _ => vec![],
        },
        Duration::from_secs(2),
    );
    assert_eq!(r.unwrap().address, v6("fd00::4"));
    assert_eq!(sent, [Kind::Solicit, Kind::Request]);
    assert_eq!(
        (
            ignored.wrong_xid,
            ignored.wrong_chaddr,
            ignored.unexpected,
            ignored.wrong_server
        ),
        (1, 1, 1, 1)
    );
}

#[test]
fn a_refusal_starts_over_and_silence_retransmits() {
    let me = packet::duid(MAC);
    let no_addrs = ia_na(packet::iaid(MAC), &opt(13, &[0, 2]));
    let (r, ignored, sent) = run(
        |n, _, xid| match n {
            0 => vec![],
            1 | 3 => vec![server_msg(2, xid, &me, SERVER_A, &[offer("fd00::9")])],
            2 => vec![server_msg(
                7,
                xid,
                &me,
                SERVER_A,
                std::slice::from_ref(&no_addrs),
            )],
            4 => vec![],
            _ => vec![server_msg(7, xid, &me, SERVER_A, &[offer("fd00::9")])],
        },
        Duration::from_secs(3),
    );
    assert_eq!(r.unwrap().address, v6("fd00::9"));
    use Kind::*;
    assert_eq!(sent, [Solicit, Solicit, Request, Solicit, Request, Request]);
    assert_eq!(ignored.naks, 1);
}

#[test]
fn silence_ends_at_the_deadline() {
    let start = Instant::now();
    let (r, _, sent) = run(|_, _, _| vec![], Duration::from_millis(400));
    assert_eq!(r, Err(Failure::Deadline { offered: false }));
    assert!(start.elapsed() < Duration::from_millis(600));
    assert!(sent.len() >= 3, "{sent:?}");
}

#[test]
fn the_fuzz_entry_survives_the_corpus_shapes() {
    let me = packet::duid(MAC);
    for b in [
        vec![],
        vec![7],
        server_msg(7, 1, &me, SERVER_A, &[offer("fd00::9"), opt(14, &[])]),
        server_msg(2, 1, &me, &[], &[ia_na(packet::iaid(MAC), &[0xff; 3])]),
    ] {
        fuzz(&b);
    }
}

/// Expected: an IAADDR a host may not hold (unspecified, loopback, multicast, link-local, an
/// IPv4-mapped or -compatible address) is never granted, as DHCPv4's client refuses 0/8,
/// loopback and multicast: a hostile server would otherwise put `::1` or a multicast address
/// on the NIC. A DNS server that cannot be one (unspecified, multicast, loopback) is dropped.
#[test]
fn addresses_a_host_may_not_hold_are_never_granted() {
    let iaid = packet::iaid(MAC);
    for bad in [
        "::",
        "::1",
        "ff02::1",
        "ff05::1:3",
        "fe80::1",
        "::ffff:10.0.0.9",
        "::10.0.0.9",
    ] {
        let b = server_msg(2, 9, &packet::duid(MAC), SERVER_A, &[offer(bad)]);
        let m = packet::decode(&b, iaid).unwrap();
        assert!(m.addresses.is_empty(), "{bad} granted");
        let mut ig = Ignored::default();
        assert_eq!(judge(&b, 9, MAC, None, &mut ig), Verdict::Ignore, "{bad}");
    }
    let dns: Vec<u8> = ["::", "ff02::fb", "::1", "fd00::53"]
        .iter()
        .flat_map(|a| v6(a).octets())
        .collect();
    let b = server_msg(7, 9, &[1], SERVER_A, &[offer("fd00::9"), opt(23, &dns)]);
    let m = packet::decode(&b, iaid).unwrap();
    assert_eq!(m.dns, [v6("fd00::53")]);
    assert_eq!(m.addresses.len(), 1);
}
