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
