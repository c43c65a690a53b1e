//! Helpers of the fault suite (tests/faults_*.rs): a scripted loopback web server, a closed
//! port, a record of a tree that shows any rewrite, and a child's peak memory.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

/// A web server on loopback: path → answers `(status, body)` in order, the last one
/// repeating; other paths get 404. It logs the paths asked for.
pub struct Web {
    pub port: u16,
    log: Arc<Mutex<Vec<String>>>,
}

impl Web {
    /// Starts a server whose script may name its own port (an include pointing back at it).
    pub fn start(make: impl FnOnce(u16) -> Vec<(&'static str, String)>) -> Web {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let script: HashMap<String, String> = make(port)
            .into_iter()
            .map(|(p, b)| (p.to_string(), b))
            .collect();
        let log = Arc::new(Mutex::new(Vec::new()));
        let seen = log.clone();
        std::thread::spawn(move || {
            // Bounded, so a client that loops cannot keep the test alive.
            for stream in listener.incoming().take(200) {
                let Ok(mut s) = stream else { continue };
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = req.split_whitespace().nth(1).unwrap_or("").to_string();
                seen.lock().unwrap().push(path.clone());
                let (code, body) = match script.get(&path) {
                    Some(b) => (200, b.as_bytes()),
                    None => (404, &b"not found"[..]),
                };
                let head = format!(
                    "HTTP/1.1 {code} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(body);
            }
        });
        Web { port, log }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// How many requests it received.
    pub fn requests(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    /// How many times `path` was asked for.
    pub fn count(&self, path: &str) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|p| *p == path)
            .count()
    }
}

/// A loopback port nothing listens on: bound, then released.
pub fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// What identifies one file's version: inode, modification time, mode, content. A file
/// replaced (even with the same bytes, as an atomic write does) changes its inode.
#[derive(Debug, PartialEq, Eq)]
pub struct Version {
    pub ino: u64,
    pub mtime_ns: i128,
    pub mode: u32,
    pub content: Vec<u8>,
}

/// Every entry under `dir` (files, directories, links), by path relative to `dir`.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Version> {
    let mut out = BTreeMap::new();
    for (path, meta) in super::walk(dir) {
        let rel = path.strip_prefix(dir).unwrap().display().to_string();
        let content = if meta.is_file() {
            std::fs::read(&path).unwrap()
        } else if meta.file_type().is_symlink() {
            std::fs::read_link(&path)
                .unwrap()
                .into_os_string()
                .into_encoded_bytes()
        } else {
            Vec::new()
        };
        let mtime_ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
        let version = Version {
            ino: meta.ino(),
            mtime_ns,
            mode: meta.mode(),
            content,
        };
        out.insert(rel, version);
    }
    out
}

/// The paths whose version differs between two snapshots (added, removed or changed).
pub fn changed(
    before: &BTreeMap<String, Version>,
    after: &BTreeMap<String, Version>,
) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(*v))
        .map(|(p, _)| p.clone())
        .collect();
    out.extend(before.keys().filter(|p| !after.contains_key(*p)).cloned());
    out.sort();
    out
}

/// Runs `cmd` to its end and returns its output with its peak resident memory in KiB, the
/// last `VmHWM` read from /proc while it ran (polled every 2 ms). Not `wait4`'s rusage: that
/// counts the test process's own memory, copied into the child by fork, as the child's. A
/// panic in `cmd` fails the test.
pub fn run_measured(cmd: &mut Command) -> (Output, u64) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| vm_hwm(&s))
        {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    super::assert_no_panic(&output);
    (output, peak)
}

fn vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Every regular file under `dir` with its mode, recursively, links not followed.
pub fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, u32)> {
    let mut out: Vec<_> = super::walk(dir)
        .into_iter()
        .filter(|(_, meta)| meta.is_file())
        .map(|(path, meta)| (path, meta.mode() & 0o7777))
        .collect();
    out.sort();
    out
}

/// `ember-initrd ARGS` on machine `m`, as `Machine::initrd_args` runs it, for `run_measured`.
pub fn initrd_command(m: &super::Machine, args: &[&str]) -> Command {
    let mut cmd = Command::new(super::EMBER_INITRD);
    cmd.arg("--host")
        .arg(&m.host)
        .arg("--target")
        .arg(&m.target)
        .arg("--run")
        .arg(&m.run)
        .args(args)
        .env_remove("KERNEL_CMDLINE");
    cmd
}

/// A Debian-like target for the cloud datasources: a default user `admin`, short deadlines,
/// and `extra` appended to the image's `ember: limits:`.
pub fn cloud_target(m: &super::Machine, extra_limits: &str) {
    let t = &m.target;
    super::target::Accounts::root().user("admin").write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = format!(
        "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n{extra_limits}"
    );
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
}

/// DMI as on an AWS Nitro instance.
pub fn aws_dmi(m: &super::Machine) {
    m.dmi("sys_vendor", "Amazon EC2");
    m.dmi("product_uuid", "ec2e1916-9099-7caf-fd21-012345abcdef");
    m.dmi("chassis_asset_tag", "Amazon EC2");
}

/// DMI as on a GCE instance.
pub fn gce_dmi(m: &super::Machine) {
    m.dmi("sys_vendor", "Google");
    m.dmi("product_name", "Google Compute Engine");
    m.dmi("bios_vendor", "Google");
    m.dmi("product_serial", "GoogleCloud-5A1B2C3D4E5F");
}

/// `n` bytes that are neither text nor HTTP (a fixed xorshift stream, so runs repeat).
pub fn garbage(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}
