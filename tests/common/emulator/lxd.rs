//! LXD's devlxd API on a unix socket (as /dev/lxd/sock is): `/1.0`, `/1.0/meta-data`,
//! `/1.0/config` (the instance's `cloud-init.*` and `user.*` keys as routes),
//! `/1.0/config/<key>` and `/1.0/devices`, with a container's fixture data: its meta-data,
//! user-data and vendor-data under `cloud-init.*`, older `user.*` twins that must lose to them,
//! a custom key, and a NIC and a disk. Scripted faults per path, in order, the last repeating;
//! the config keys can be replaced.
//! <https://documentation.ubuntu.com/lxd/en/latest/dev-lxd/>

use super::scripted::{self, Spec};
use super::{ok, Answer, Request};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const INSTANCE: &str = "c1";
pub const META_DATA: &str = "#cloud-config\ninstance-id: c1\nlocal-hostname: c1\n";
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/lxd-secret\n    content: lxd-user-data-secret-91ac\n    permissions: '0600'\n";
/// The `user.user-data` an older profile left: cloud-init.user-data wins over it.
pub const OLD_USER_DATA: &str =
    "#cloud-config\nwrite_files:\n  - path: /etc/lxd-old\n    content: old\n";
pub const VENDOR_DATA: &str = "#cloud-config\n# lxd-vendor-marker-44b1\nmanage_etc_hosts: true\n";

/// The fixture's config keys.
pub fn config() -> BTreeMap<String, String> {
    [
        ("cloud-init.user-data", USER_DATA),
        ("cloud-init.vendor-data", VENDOR_DATA),
        ("user.user-data", OLD_USER_DATA),
        ("user.role", "web"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

pub struct Server {
    pub path: PathBuf,
    pub log: Arc<Mutex<Vec<Request>>>,
    /// Answers per path, in order; the last one repeats. They replace the fixture's.
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
    pub config: Arc<Mutex<BTreeMap<String, String>>>,
}

impl Server {
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
    pub fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.path).collect()
    }
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        self.answers
            .lock()
            .unwrap()
            .insert(path.to_string(), answers);
    }
    pub fn set_config(&self, config: BTreeMap<String, String>) {
        *self.config.lock().unwrap() = config;
    }
}

fn fixture(path: &str, config: &BTreeMap<String, String>) -> Answer {
    match path {
        "/1.0" => ok(&json!({"api_version": "1.0", "instance_type": "container",
            "location": "host1", "state": "Started"})
        .to_string()),
        "/1.0/meta-data" => ok(META_DATA),
        "/1.0/config" => {
            let routes: Vec<String> = config.keys().map(|k| format!("/1.0/config/{k}")).collect();
            ok(&json!(routes).to_string())
        }
        "/1.0/devices" => ok(&json!({
            "eth0": {"type": "nic", "network": "lxdbr0", "name": "eth0"},
            "root": {"type": "disk", "path": "/", "pool": "default"},
        })
        .to_string()),
        p => match p.strip_prefix("/1.0/config/").and_then(|k| config.get(k)) {
            Some(v) => ok(v),
            None => Answer::Body(404, b"not found".to_vec()),
        },
    }
}

/// Starts the emulator on a socket at `path` (its folder made); it serves until the process
/// ends.
pub fn start(path: &Path) -> Server {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path).unwrap();
    let config = Arc::new(Mutex::new(self::config()));
    let keys = config.clone();
    let route = move |req: &Request| fixture(&req.path, &keys.lock().unwrap());
    let spec = Spec::new(route)
        .guard(|req, _| scripted::get_only(req))
        .key(scripted::with_query);
    let server = scripted::serve_unix(listener, spec);
    Server {
        path: path.to_path_buf(),
        log: server.log,
        answers: server.answers,
        config,
    }
}
