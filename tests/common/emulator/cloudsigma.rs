//! A CloudSigma host's server context on the guest's second serial port, as cepko asks it: a
//! request `<\n{path}\n>` (the empty path: the whole context; `/meta/` and deeper paths: that
//! part), answered with one line of JSON and EOT. Over a pty (the cargo tests) or a unix
//! socket (QEMU's second serial port), with a fixture server modelled on CloudSigma's
//! documented example and scripted faults: silence, garbage, an answer cut short.
//! <https://cloudsigma-docs.readthedocs.io/en/latest/server_context.html>

use super::Request;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const UUID: &str = "65b2fb23-8c03-4187-a3ba-8b7c919e8890";
pub const NAME: &str = "sigma-server";
pub const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICloudSigmaKeyForTestsOnly sigma-key";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/sigma-secret\n    content: sigma-user-data-2f6a\n    permissions: '0600'\n";
pub const VENDOR_DATA: &str = "#cloud-config\nbootcmd: [echo sigma-vendor-77c3]\n";

/// A server in Zurich with one public NIC; the user-data base64 as `base64_fields` says.
pub fn context() -> Value {
    json!({
        "context": true,
        "cpu": 1000,
        "mem": 1073741824,
        "name": NAME,
        "uuid": UUID,
        "smp": 1,
        "meta": {
            "ssh_public_key": KEY,
            "base64_fields": "cloudinit-user-data",
            "cloudinit-user-data": B64.encode(USER_DATA),
            "description": "a test server",
        },
        "nics": [{"mac": "22:3d:09:6b:90:f3", "model": "virtio",
                  "ip_v4_conf": {"conf": "dhcp", "ip": null}, "vlan": null}],
        "tags": [],
        "vendor_data": {"cloudinit": VENDOR_DATA, "location": "zrh"},
        "global_context": {"some_global_key": "some_global_val"},
    })
}

#[derive(Clone, Debug)]
pub enum Fault {
    Silence,
    /// Bytes that are not JSON, then EOT.
    Garbage,
    /// Half the answer, no EOT.
    CutShort,
    /// 16 MiB without an EOT: a host that never ends its answer.
    Endless,
}

#[derive(Clone)]
pub struct Host {
    pub context: Arc<Mutex<Value>>,
    pub faults: Arc<Mutex<VecDeque<Fault>>>,
    /// One request per path asked, as `GET <path>`.
    pub log: Arc<Mutex<Vec<Request>>>,
}

impl Default for Host {
    fn default() -> Self {
        Host::new()
    }
}

impl Host {
    pub fn new() -> Host {
        Host {
            context: Arc::new(Mutex::new(context())),
            faults: Arc::default(),
            log: Arc::default(),
        }
    }

    pub fn fault(&self, faults: &[Fault]) {
        *self.faults.lock().unwrap() = faults.iter().cloned().collect();
    }

    pub fn requests(&self) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect()
    }

    pub fn pty(&self) -> PathBuf {
        let (master, slave, path) = super::pty();
        let host = self.clone();
        std::thread::spawn(move || {
            let _slave = slave;
            let w = master.try_clone().unwrap();
            host.serve(master, w);
        });
        path
    }

    pub fn listen(&self, path: &Path) {
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path).unwrap();
        let host = self.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let host = host.clone();
                let r = conn.try_clone().unwrap();
                std::thread::spawn(move || host.serve(r, conn));
            }
        });
    }

    fn serve(&self, mut r: impl Read, mut w: impl Write) {
        let mut pending = Vec::new();
        let mut chunk = [0u8; 1024];
        loop {
            let n = match r.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            pending.extend_from_slice(&chunk[..n]);
            // A request is `<\n`, the path, `\n>`; anything before a `<` is noise.
            while let Some(start) = pending.iter().position(|b| *b == b'<') {
                let rest = &pending[start..];
                let Some(end) = rest.windows(2).position(|p| p == b"\n>") else {
                    break;
                };
                let path = String::from_utf8_lossy(&rest[1..end]).trim().to_string();
                pending.drain(..start + end + 2);
                let out = self.answer(&path);
                if w.write_all(&out).is_err() {
                    return;
                }
                let _ = w.flush();
            }
        }
    }

    fn answer(&self, path: &str) -> Vec<u8> {
        self.log.lock().unwrap().push(Request {
            method: "GET".into(),
            path: path.to_string(),
            headers: Vec::new(),
        });
        let ctx = self.context.lock().unwrap();
        let pointer = format!("/{}", path.trim_matches('/'));
        let found = if pointer == "/" {
            Some(&*ctx)
        } else {
            ctx.pointer(&pointer)
        };
        let body = found.map_or("null".to_string(), Value::to_string);
        match self.faults.lock().unwrap().pop_front() {
            None => format!("{body}\x04\n").into_bytes(),
            Some(Fault::Silence) => Vec::new(),
            Some(Fault::Garbage) => b"\x00\x13 not json at all\x04\n".to_vec(),
            Some(Fault::CutShort) => body.as_bytes()[..body.len() / 2].to_vec(),
            Some(Fault::Endless) => vec![b'x'; 16 << 20],
        }
    }
}
