//! A SmartOS metadata agent speaking the Joyent metadata protocol v2 (the empty-line probe
//! answered `invalid command`, `NEGOTIATE V2`, framed `GET` and `KEYS` with CRC-32 and
//! request ids) over a unix socket (a zone's, or the one QEMU's second serial port connects
//! to) or a pty (a serial port for the cargo tests), with a fixture instance and scripted
//! faults per key: a bad CRC, a stale frame first, another request's id only, a `FAILURE`,
//! silence, the channel closed; and an agent that floods the line without end (frames for
//! other request ids, or `invalid command` to the negotiation).
//! <https://eng.tritondatacenter.com/mdata/protocol.html>

use super::Request;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use serde_json::json;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub const UUID: &str = "6e2d3e8a-4c5b-4a0e-9d3f-1b7c2a9e5f01";
pub const HOSTNAME: &str = "triton-vm";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJoyentKeyForTestsOnly joyent-key";
pub const MAC: &str = "90:b8:d0:ae:64:51";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/smartos-secret\n    content: smartos-user-data-5e1f\n    permissions: '0600'\n";
/// No `#!`: cloud-init takes it as bash. It leaves a mark (the QEMU case looks for it).
pub const USER_SCRIPT: &str = "# user-script-secret-8a2c\necho ran >/var/lib/user-script-ran\n";
pub const OPERATOR_SCRIPT: &str = "#!/bin/sh\necho operator-secret-44b1\n";
pub const LEGACY_USER_DATA: &str = "legacy-mdata-secret-91d0\n";

/// The values of a KVM instance in a Triton datacenter with one public NIC.
pub fn fixture() -> BTreeMap<String, Vec<u8>> {
    let nics = json!([{
        "interface": "net0", "mac": MAC, "primary": true, "mtu": 1500,
        "ip": "10.88.88.50", "ips": ["10.88.88.50/24"], "gateways": ["10.88.88.2"],
        "nic_tag": "external", "vlan_id": 0,
    }]);
    let values = [
        ("sdc:uuid", format!("{UUID}\n")),
        ("hostname", format!("{HOSTNAME}\n")),
        ("sdc:hostname", "triton-vm.inst.example\n".into()),
        ("root_authorized_keys", format!("{KEY}\n")),
        ("sdc:datacenter_name", "us-east-1\n".into()),
        ("sdc:dns_domain", "inst.example".into()),
        ("cloud-init:user-data", USER_DATA.into()),
        ("user-script", USER_SCRIPT.into()),
        ("sdc:operator-script", OPERATOR_SCRIPT.into()),
        ("user-data", LEGACY_USER_DATA.into()),
        ("sdc:nics", nics.to_string()),
        ("sdc:resolvers", json!(["8.8.8.8", "8.8.4.4"]).to_string()),
        (
            "sdc:routes",
            json!([{"linklocal": false, "dst": "10.99.0.0/16", "gateway": "10.88.88.3"}])
                .to_string(),
        ),
    ];
    values
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into_bytes()))
        .collect()
}

/// What the agent does with one request instead of answering it.
#[derive(Clone, Debug)]
pub enum Fault {
    BadCrc,
    /// A frame for another request id first, then the answer.
    StaleFirst,
    /// Only a frame for another request id.
    OtherId,
    Failure,
    Silence,
    Close,
}

#[derive(Clone)]
pub struct Agent {
    pub values: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    pub faults: Arc<Mutex<HashMap<String, VecDeque<Fault>>>>,
    pub log: Arc<Mutex<Vec<Request>>>,
    /// Says nothing at all, not even to the probe.
    pub mute: Arc<AtomicBool>,
    /// Once set, answers the next request it meets with an endless stream instead.
    pub flood: Arc<Mutex<Option<Flood>>>,
}

/// An agent that never stops talking (for at most [`FLOOD_FOR`]), each line well-formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flood {
    /// Valid frames for another request id, after the first `GET`.
    OtherIds,
    /// `invalid command` lines, after `NEGOTIATE V2`.
    InvalidCommand,
}

/// How long a flood lasts: far past any deadline a test gives, short enough to end by itself.
const FLOOD_FOR: std::time::Duration = std::time::Duration::from_secs(30);

impl Default for Agent {
    fn default() -> Self {
        Agent::new()
    }
}

fn crc(body: &str) -> String {
    let mut c = flate2::Crc::new();
    c.update(body.as_bytes());
    format!("{:08x}", c.sum())
}

fn frame(body: &str) -> String {
    format!("V2 {} {} {body}\n", body.len(), crc(body))
}

impl Agent {
    pub fn new() -> Agent {
        Agent {
            values: Arc::new(Mutex::new(fixture())),
            faults: Arc::default(),
            log: Arc::default(),
            mute: Arc::default(),
            flood: Arc::default(),
        }
    }

    pub fn set(&self, key: &str, value: &str) {
        let v = value.as_bytes().to_vec();
        self.values.lock().unwrap().insert(key.into(), v);
    }

    pub fn remove(&self, key: &str) {
        self.values.lock().unwrap().remove(key);
    }

    /// Faults for the next requests of `key`, in order; then it is answered.
    pub fn fault(&self, key: &str, faults: &[Fault]) {
        let q = faults.iter().cloned().collect();
        self.faults.lock().unwrap().insert(key.into(), q);
    }

    /// The requests, as `GET key`, `KEYS`.
    pub fn requests(&self) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.iter()
            .map(|r| format!("{} {}", r.method, r.path).trim().to_string())
            .collect()
    }

    /// Serves every connection to a unix socket at `path`.
    pub fn listen(&self, path: &Path) {
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path).unwrap();
        let agent = self.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let agent = agent.clone();
                let r = conn.try_clone().unwrap();
                std::thread::spawn(move || agent.serve(r, conn));
            }
        });
    }

    /// A pty whose other side this agent answers; the path of the side a guest opens.
    pub fn pty(&self) -> PathBuf {
        let (master, slave, path) = super::pty();
        let agent = self.clone();
        std::thread::spawn(move || {
            let _slave = slave;
            let w = master.try_clone().unwrap();
            agent.serve(master, w);
        });
        path
    }

    fn serve(&self, r: impl Read, mut w: impl Write) {
        let mut r = BufReader::new(r);
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if self.mute.load(Ordering::SeqCst) {
                continue;
            }
            let line = line.trim_end_matches(['\n', '\r']);
            if let Some(lines) = self.flood_for(line) {
                let start = std::time::Instant::now();
                while start.elapsed() < FLOOD_FOR && w.write_all(lines.as_bytes()).is_ok() {}
                return;
            }
            let out = match line {
                "" => "invalid command\n".to_string(),
                "NEGOTIATE V2" => "V2_OK\n".to_string(),
                l => match self.answer(l) {
                    Some(out) => out,
                    None => return,
                },
            };
            if w.write_all(out.as_bytes()).is_err() {
                return;
            }
            let _ = w.flush();
        }
    }

    /// The endless answer to `line`, when a flood is set for its kind of request.
    fn flood_for(&self, line: &str) -> Option<String> {
        let flood = (*self.flood.lock().unwrap())?;
        let one = match flood {
            Flood::InvalidCommand if line == "NEGOTIATE V2" => "invalid command\n".to_string(),
            Flood::OtherIds if line.contains(" GET ") => frame("0000dead SUCCESS aG9zdA=="),
            _ => return None,
        };
        Some(one.repeat(64))
    }

    /// The answer to a frame; None closes the channel.
    fn answer(&self, line: &str) -> Option<String> {
        let mut parts = line.splitn(4, ' ');
        let (v2, len, sum, body) = (parts.next()?, parts.next()?, parts.next()?, parts.next());
        let body = body.unwrap_or_default();
        if v2 != "V2" || len.parse::<usize>().ok() != Some(body.len()) || sum != crc(body) {
            return Some("invalid command\n".into());
        }
        let mut b = body.splitn(3, ' ');
        let (id, op) = (
            b.next()?.to_string(),
            b.next().unwrap_or_default().to_string(),
        );
        let key = b
            .next()
            .and_then(|k| B64.decode(k).ok())
            .map(|k| String::from_utf8_lossy(&k).into_owned())
            .unwrap_or_default();
        self.log.lock().unwrap().push(Request {
            method: op.clone(),
            path: key.clone(),
            headers: Vec::new(),
        });
        let fault = self
            .faults
            .lock()
            .unwrap()
            .get_mut(if op == "KEYS" { "KEYS" } else { &key })
            .and_then(VecDeque::pop_front);
        let values = self.values.lock().unwrap();
        let reply = |id: &str| match op.as_str() {
            "GET" => match values.get(&key) {
                Some(v) => frame(&format!("{id} SUCCESS {}", B64.encode(v))),
                None => frame(&format!("{id} NOTFOUND")),
            },
            "KEYS" => {
                let listed: Vec<&str> = values
                    .keys()
                    .filter(|k| !k.starts_with("sdc:"))
                    .map(String::as_str)
                    .collect();
                frame(&format!("{id} SUCCESS {}", B64.encode(listed.join("\n"))))
            }
            _ => frame(&format!("{id} FAILURE")),
        };
        Some(match fault {
            None => reply(&id),
            Some(Fault::BadCrc) => {
                let good = reply(&id);
                let sum = good.split(' ').nth(2).unwrap_or_default().to_string();
                good.replacen(&sum, "0badc0de", 1)
            }
            Some(Fault::StaleFirst) => format!("{}{}", reply("0000dead"), reply(&id)),
            Some(Fault::OtherId) => reply("0000dead"),
            Some(Fault::Failure) => frame(&format!("{id} FAILURE")),
            Some(Fault::Silence) => String::new(),
            Some(Fault::Close) => return None,
        })
    }
}
