//! Two network namespaces joined by a veth pair, for the ephemeral network tests (DHCP, SLAAC):
//! the server's end is up, the client's down, as a NIC at boot. Removed on drop.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

static NEXT: AtomicU32 = AtomicU32::new(0);

/// `ip ARGS`, which must succeed; its stdout.
pub fn ip(args: &[&str]) -> String {
    let out = Command::new("ip").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub struct Link {
    pub client_ns: String,
    pub server_ns: String,
    pub client: String,
    pub server: String,
    /// A scratch directory of the test's (dnsmasq's files).
    pub dir: PathBuf,
}

impl Link {
    /// `tag` keeps the names of different test files apart (interface names: 15 bytes at most).
    pub fn new(tag: &str) -> Link {
        let n = format!(
            "{}x{}",
            std::process::id() % 100_000,
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let link = Link {
            client_ns: format!("ember-{tag}c{n}"),
            server_ns: format!("ember-{tag}s{n}"),
            client: format!("e{tag}c{n}"),
            server: format!("e{tag}s{n}"),
            dir: std::env::temp_dir().join(format!("ember-netns-{tag}{n}")),
        };
        std::fs::create_dir_all(&link.dir).unwrap();
        for ns in [&link.client_ns, &link.server_ns] {
            ip(&["netns", "add", ns]);
        }
        ip(&[
            "link",
            "add",
            &link.client,
            "netns",
            &link.client_ns,
            "type",
            "veth",
            "peer",
            "name",
            &link.server,
            "netns",
            &link.server_ns,
        ]);
        ip(&["-n", &link.server_ns, "link", "set", &link.server, "up"]);
        link
    }

    /// Moves the client's end into `other`'s client namespace, a second NIC beside `other`'s.
    pub fn move_beside(&self, other: &Link) {
        let (ns, nic) = (&self.client_ns, &self.client);
        ip(&["-n", ns, "link", "set", nic, "netns", &other.client_ns]);
    }

    /// Puts the server's end down: the client's end never gets a carrier (no cable).
    pub fn unplug(&self) {
        ip(&["-n", &self.server_ns, "link", "set", &self.server, "down"]);
    }

    /// Whether the client's link is up: `UP` among its flags in `ip -j link show`.
    pub fn is_up(&self) -> bool {
        let out = ip(&[
            "-n",
            &self.client_ns,
            "-j",
            "link",
            "show",
            "dev",
            &self.client,
        ]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v[0]["flags"].as_array().unwrap().iter().any(|f| f == "UP")
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        for ns in [&self.client_ns, &self.server_ns] {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A process started in a namespace, killed (by its PID) and reaped when dropped.
pub struct Process(pub std::process::Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Link {
    /// dnsmasq on the server's end at `net.1/24`, answering DNS (port 53, no upstream: it
    /// knows only what `options` give it, `--log-queries` into `dnsmasq.log`) and, with
    /// `dhcp`, DHCP (option 6 is then its own address). Returns once it listens.
    pub fn dns_server(&self, net: &str, dhcp: bool, options: &[&str]) -> Process {
        use std::process::Stdio;
        use std::time::{Duration, Instant};
        let addr = format!("{net}.1/24");
        ip(&[
            "-n",
            &self.server_ns,
            "addr",
            "add",
            &addr,
            "dev",
            &self.server,
        ]);
        let log = self.dir.join("dnsmasq.log");
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.server_ns, "dnsmasq", "--no-daemon"])
            .args([
                "--conf-file=/dev/null",
                "--no-resolv",
                "--no-hosts",
                "--log-queries",
            ])
            .arg(format!("--interface={}", self.server))
            .args(["--bind-interfaces", "--port=53", "--no-ping"])
            .arg(format!(
                "--pid-file={}",
                self.dir.join("dnsmasq.pid").display()
            ))
            .arg(format!(
                "--dhcp-leasefile={}",
                self.dir.join("leases").display()
            ))
            .args(options)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        if dhcp {
            cmd.arg(format!("--dhcp-range={net}.100,{net}.150,255.255.255.0,1h"));
        }
        let child = Process(cmd.spawn().unwrap());
        let start = Instant::now();
        let ready = if dhcp {
            "DHCP, sockets bound"
        } else {
            "started, version"
        };
        while !std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains(ready)
        {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "dnsmasq: {log:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        child
    }

    /// The DNS server's log so far.
    pub fn dns_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("dnsmasq.log")).unwrap_or_default()
    }

    /// A TCP listener bound to `addr` inside the server's namespace: a thread enters it just
    /// to bind; the listener stays there.
    pub fn listen_in_server(&self, addr: &str) -> std::net::TcpListener {
        use std::os::fd::AsFd;
        let ns = std::fs::File::open(format!("/run/netns/{}", self.server_ns)).unwrap();
        let addr = addr.to_string();
        std::thread::spawn(move || {
            let kind = rustix::thread::LinkNameSpaceType::Network;
            rustix::thread::move_into_link_name_space(ns.as_fd(), Some(kind)).unwrap();
            std::net::TcpListener::bind(addr).unwrap()
        })
        .join()
        .unwrap()
    }
}
