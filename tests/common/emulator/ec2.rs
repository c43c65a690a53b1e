//! An EC2 instance metadata service: IMDSv2 tokens (`PUT /latest/api/token` with a TTL, the
//! token required on every GET), fixture data modelled on AWS's documented examples (two NICs
//! on different device numbers, two public keys, user-data), and scripted faults: answers per
//! path in order, a status for the token PUT, a token that expires once, IMDSv1 allowed.
//! Dated API versions are served as `latest`, and directories list their entries, as IMDS
//! does, so that cloud-init's crawler runs against it too (scripts/bench-clouds).
//! <https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html>

use super::scripted::{self, Spec};
use super::{ok, Answer, Request};
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

pub const INSTANCE_ID: &str = "i-1234567890abcdef0";
pub const MAC0: &str = "0e:49:61:0f:c3:11";
pub const MAC1: &str = "0e:03:ce:48:33:e3";
pub const KEY0: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEc2KeyZeroForTestsOnly my-public-key";
pub const KEY1: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEc2KeyOneForTestsOnlyX other-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/ec2-secret\n    content: user-data-secret-7f3a\n    permissions: '0600'\n";
pub const PUBLIC_IPV4: &str = "54.214.1.5";
pub const PUBLIC_HOSTNAME: &str = "ec2-54-214-1-5.us-west-2.compute.amazonaws.com";
/// A role's credentials, as IMDS serves them: never to reach a world-readable file.
pub const CREDENTIALS: &str = r#"{"Code": "Success", "AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "iam-secret-51c2", "Token": "iam-token-51c2"}"#;
pub const IDENTITY: &str = r#"{
  "accountId" : "123456789012",
  "architecture" : "x86_64",
  "availabilityZone" : "us-west-2b",
  "imageId" : "ami-0abcdef1234567890",
  "instanceId" : "i-1234567890abcdef0",
  "instanceType" : "t3.micro",
  "privateIp" : "10.0.1.5",
  "region" : "us-west-2",
  "version" : "2017-09-30"
}"#;

/// The emulator's behaviour; change it through `Imds::script` before or between requests.
/// Faults per path are the scripted server's (`Imds::set`).
pub struct Script {
    /// The status the token PUT answers with, while not 200.
    pub token_status: u16,
    /// GETs without a valid token are answered (IMDSv1); AWS's default is to allow them,
    /// the secure setting (and this emulator's default) is to refuse them with 401.
    pub allow_v1: bool,
    /// The next GET with a token finds it expired (401), once.
    pub expire_once: bool,
    /// Tokens handed out so far.
    pub issued: Vec<String>,
}

pub struct Imds {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    pub script: Arc<Mutex<Script>>,
    /// Answers per path, in order; the last one repeats. They replace the fixture's.
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
}

impl Imds {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        self.answers
            .lock()
            .unwrap()
            .insert(path.to_string(), answers);
    }

    /// The tokens handed out.
    pub fn tokens(&self) -> Vec<String> {
        self.script.lock().unwrap().issued.clone()
    }
}

fn token(port: u16, n: usize) -> String {
    format!("AQAEAKmRtOkEnFor{port}x{n}Tests==")
}

/// The fixture: what a t3.micro with two network interfaces answers.
fn fixture() -> HashMap<String, String> {
    let md = "/latest/meta-data";
    let mut f: HashMap<String, String> = HashMap::new();
    let mut put = |p: &str, v: &str| f.insert(p.to_string(), v.to_string());
    put("/latest/dynamic/instance-identity/document", IDENTITY);
    put(&format!("{md}/instance-id"), INSTANCE_ID);
    put(
        &format!("{md}/local-hostname"),
        "ip-10-0-1-5.us-west-2.compute.internal",
    );
    put(
        &format!("{md}/hostname"),
        "ip-10-0-1-5.us-west-2.compute.internal",
    );
    put(
        &format!("{md}/public-keys/"),
        "0=my-public-key\n1=other-key",
    );
    put(&format!("{md}/public-keys/0/openssh-key"), KEY0);
    // The leaves the identity document repeats, and those it does not.
    put(&format!("{md}/local-ipv4"), "10.0.1.5");
    put(&format!("{md}/mac"), MAC0);
    put(&format!("{md}/instance-type"), "t3.micro");
    put(&format!("{md}/ami-id"), "ami-0abcdef1234567890");
    put(&format!("{md}/ami-launch-index"), "0");
    put(&format!("{md}/placement/availability-zone"), "us-west-2b");
    put(&format!("{md}/placement/region"), "us-west-2");
    put(&format!("{md}/public-ipv4"), PUBLIC_IPV4);
    put(&format!("{md}/public-hostname"), PUBLIC_HOSTNAME);
    put(
        &format!("{md}/iam/security-credentials/web-role"),
        CREDENTIALS,
    );
    put(&format!("{md}/public-keys/1/openssh-key"), KEY1);
    // An EBS-only instance: the root and the image's device, nothing for mounts.
    put(&format!("{md}/block-device-mapping/"), "ami\nroot");
    put(&format!("{md}/block-device-mapping/ami"), "/dev/xvda");
    put(&format!("{md}/block-device-mapping/root"), "/dev/xvda");
    put("/latest/user-data", USER_DATA);
    let macs = format!("{md}/network/interfaces/macs");
    put(&format!("{macs}/"), &format!("{MAC0}/\n{MAC1}/"));
    // The primary NIC: device 0, a secondary private address, IPv6.
    put(&format!("{macs}/{MAC0}/device-number"), "0");
    put(&format!("{macs}/{MAC0}/network-card"), "0");
    put(&format!("{macs}/{MAC0}/local-ipv4s"), "10.0.1.5\n10.0.1.6");
    put(
        &format!("{macs}/{MAC0}/subnet-ipv4-cidr-block"),
        "10.0.0.0/20",
    );
    put(&format!("{macs}/{MAC0}/ipv6s"), "2600:1f14:abc:1000::5");
    put(
        &format!("{macs}/{MAC0}/subnet-ipv6-cidr-blocks"),
        "2600:1f14:abc:1000::/64",
    );
    // The second NIC: device 1, no network-card entry (404), IPv4 only.
    put(&format!("{macs}/{MAC1}/device-number"), "1");
    put(&format!("{macs}/{MAC1}/local-ipv4s"), "10.0.16.7");
    put(
        &format!("{macs}/{MAC1}/subnet-ipv4-cidr-block"),
        "10.0.16.0/24",
    );
    f
}

/// IMDS serves every dated API version (`/2021-03-23/meta-data/...`) as `latest`; cloud-init
/// asks for dated ones.
fn unversioned(path: &str) -> String {
    let mut parts = path.splitn(3, '/');
    let (_, version, rest) = (parts.next(), parts.next().unwrap_or(""), parts.next());
    let dated = version.len() == 10
        && version.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    match rest {
        Some(rest) if dated => format!("/latest/{rest}"),
        _ => path.to_string(),
    }
}

/// A directory's listing, as IMDS answers `.../meta-data/` (one entry a line, subdirectories
/// with a trailing `/`), made from the fixture's paths; cloud-init's crawler walks these.
fn listing(fixture: &HashMap<String, String>, path: &str) -> Option<String> {
    let dir = format!("{}/", path.trim_end_matches('/'));
    let mut entries: Vec<&str> = fixture
        .keys()
        .filter_map(|k| k.strip_prefix(&dir))
        .filter(|rest| !rest.is_empty())
        .map(|rest| match rest.find('/') {
            Some(i) => &rest[..=i],
            None => rest,
        })
        .collect();
    entries.sort();
    entries.dedup();
    (!entries.is_empty()).then(|| entries.join("\n"))
}

/// Starts the emulator; it serves until the test process ends.
pub fn start() -> Imds {
    start_at("127.0.0.1:0")
}

/// The emulator at `addr` (in the calling thread's network namespace: the IPv6 tests bind
/// EC2's own `[fd00:ec2::254]:80` in a namespace of theirs).
pub fn start_at(addr: &str) -> Imds {
    let listener = TcpListener::bind(addr).unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = Arc::new(Mutex::new(Script {
        token_status: 200,
        allow_v1: false,
        expire_once: false,
        issued: Vec::new(),
    }));
    let valid = Mutex::new(Vec::<String>::new());
    let state = script.clone();
    let guard = move |req: &Request, _: &[u8]| {
        let mut sc = state.lock().unwrap();
        let mut valid = valid.lock().unwrap();
        guard(port, &mut sc, &mut valid, req)
    };
    let fixture = fixture();
    let route = move |req: &Request| {
        let path = unversioned(&req.path);
        if let Some(body) = fixture.get(&path) {
            ok(body)
        } else if let Some(listing) = listing(&fixture, &path) {
            ok(&listing)
        } else {
            Answer::Body(404, Vec::new())
        }
    };
    let spec = Spec::new(route).guard(guard).key(scripted::with_query);
    let server = scripted::serve(listener, spec);
    let (log, answers) = (server.log, server.answers);
    Imds {
        port,
        log,
        script,
        answers,
    }
}

/// The token PUT, the method, and the token every GET needs: answered before any fault.
fn guard(port: u16, sc: &mut Script, valid: &mut Vec<String>, req: &Request) -> Option<Answer> {
    if req.method == "PUT" && req.path == "/latest/api/token" {
        return Some(
            if req.header("x-aws-ec2-metadata-token-ttl-seconds").is_none() {
                Answer::Body(400, Vec::new())
            } else if sc.token_status != 200 {
                Answer::Body(sc.token_status, Vec::new())
            } else {
                let t = token(port, sc.issued.len());
                sc.issued.push(t.clone());
                valid.push(t.clone());
                ok(&t)
            },
        );
    }
    if req.method != "GET" {
        return Some(Answer::Body(405, Vec::new()));
    }
    let tok = req.header("x-aws-ec2-metadata-token");
    let has_valid = tok.is_some_and(|t| valid.iter().any(|v| v == t));
    if has_valid && sc.expire_once {
        sc.expire_once = false;
        valid.clear();
        return Some(Answer::Body(401, Vec::new()));
    }
    (!has_valid && (tok.is_some() || !sc.allow_v1)).then(|| Answer::Body(401, Vec::new()))
}
