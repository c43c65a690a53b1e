//! A GCE metadata server: `Metadata-Flavor: Google` required on every request (403 without,
//! as Google answers) and sent on every answer, the recursive document
//! (`/computeMetadata/v1/?recursive=true&alt=json`), single values and `?recursive=true`
//! subtrees (what cloud-init asks, for scripts/bench-clouds), fixture data
//! modelled on Google's documented examples (instance and project ssh keys in `user:key` form,
//! an expired `google-ssh` key, base64 user-data), guest attributes written with PUT (as
//! cloud-init publishes host keys: `instance/guest-attributes/hostkeys/<key type>`, recorded
//! with their bodies), and scripted faults: answers per path in order, answers without the
//! flavor header.
//! <https://cloud.google.com/compute/docs/metadata/querying-metadata>

use super::scripted::{self, Spec};
use super::{Answer, Request};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const DOCUMENT: &str = "/computeMetadata/v1/?recursive=true&alt=json";
/// Where guest attributes are written: `<namespace>/<key>` follows.
pub const GUEST_ATTRIBUTES: &str = "/computeMetadata/v1/instance/guest-attributes/";
pub const INSTANCE_ID: &str = "4520031799277581759";
pub const HOSTNAME: &str = "gce-vm-1.us-central1-a.c.my-project.internal";
pub const MAC: &str = "42:01:0a:80:00:02";
/// For the tests' default user, `admin`, and the QEMU case's, `debian`.
pub const ADMIN_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGceAdminKeyForTestsOnly admin-key";
pub const DEBIAN_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGceDebianKeyForTestsOnly debian-key";
/// For `cloudinit`, which every default user gets.
pub const CLOUDINIT_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGceCloudinitKeyForTests cloudinit-key";
/// Another user's: never installed.
pub const BOB_KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGceBobKeyForTestsOnlyX bob-key";
/// The default user's, from the project: installed unless blocked.
pub const PROJECT_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGceProjectKeyForTestsOnly project-key";
/// Google's format, expired in 2020.
pub const EXPIRED_KEY: &str = r#"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGceExpiredKeyForTests google-ssh {"userName":"admin@example.com","expireOn":"2020-01-01T00:00:00+0000"}"#;
/// Google's format, expiring in 2999.
pub const LIVE_KEY: &str = r#"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGceLiveKeyForTestsOnlyX google-ssh {"userName":"admin@example.com","expireOn":"2999-01-01T00:00:00+0000"}"#;
pub const USER_DATA: &str = "#cloud-config\nwrite_files:\n  - path: /etc/gce-secret\n    content: user-data-secret-9c1e\n    permissions: '0600'\n";
const USER_DATA_B64: &str = "I2Nsb3VkLWNvbmZpZwp3cml0ZV9maWxlczoKICAtIHBhdGg6IC9ldGMvZ2NlLXNlY3JldAogICAgY29udGVudDogdXNlci1kYXRhLXNlY3JldC05YzFlCiAgICBwZXJtaXNzaW9uczogJzA2MDAnCg==";

/// The recursive document of an e2-small in us-central1-a with one NIC.
pub fn document() -> Value {
    let keys = [
        format!("admin:{ADMIN_KEY}"),
        format!("debian:{DEBIAN_KEY}"),
        format!("cloudinit:{CLOUDINIT_KEY}"),
        format!("bob:{BOB_KEY}"),
        format!("admin:{EXPIRED_KEY}"),
        format!("admin:{LIVE_KEY}"),
    ];
    json!({
        "instance": {
            "attributes": {
                "ssh-keys": keys.join("\n"),
                "user-data": USER_DATA_B64,
                "user-data-encoding": "base64",
                "startup-script": "#!/bin/bash\necho the guest agent runs this\n",
            },
            "cpuPlatform": "Intel Broadwell",
            "description": "",
            "disks": [{"deviceName": "persistent-disk-0", "index": 0, "mode": "READ_WRITE",
                       "type": "PERSISTENT"}],
            "hostname": HOSTNAME,
            "id": INSTANCE_ID.parse::<u64>().unwrap(),
            "image": "projects/debian-cloud/global/images/debian-12-bookworm-v20240312",
            "machineType": "projects/123456789012/machineTypes/e2-small",
            "maintenanceEvent": "NONE",
            "name": "gce-vm-1",
            "networkInterfaces": [{
                "accessConfigs": [{"externalIp": "203.0.113.7", "type": "ONE_TO_ONE_NAT"}],
                "dnsServers": ["169.254.169.254"],
                "gateway": "10.128.0.1",
                "ip": "10.128.0.2",
                "mac": MAC,
                "mtu": 1460,
                "network": "projects/123456789012/networks/default",
                "subnetmask": "255.255.240.0",
            }],
            "serviceAccounts": {"default": {"aliases": ["default"],
                "email": "123456789012-compute@developer.gserviceaccount.com",
                "scopes": ["https://www.googleapis.com/auth/cloud-platform"]}},
            "tags": [],
            "zone": "projects/123456789012/zones/us-central1-a",
        },
        "oslogin": {"authenticate": {"sessions": {}}},
        "project": {
            "attributes": {"ssh-keys": format!("admin:{PROJECT_KEY}")},
            "numericProjectId": 123456789012u64,
            "projectId": "my-project",
        },
    })
}

/// The emulator's behaviour; change it through `Server::script`.
/// Faults per path are the scripted server's (`Server::set`).
pub struct Script {
    /// The document served; tests change its attributes.
    pub document: Value,
    /// Answers carry `Metadata-Flavor: Google`.
    pub flavor: bool,
}

pub struct Server {
    pub port: u16,
    pub log: Arc<Mutex<Vec<Request>>>,
    pub script: Arc<Mutex<Script>>,
    /// Answers per path (with query), in order; the last one repeats. They replace the
    /// fixture's; on a PUT, they refuse the write (it is not recorded).
    pub answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
    /// Guest attributes written, in order: `(namespace/key, value)`.
    pub guest_attributes: Arc<Mutex<Vec<(String, String)>>>,
}

impl Server {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
    pub fn guest_attributes(&self) -> Vec<(String, String)> {
        self.guest_attributes.lock().unwrap().clone()
    }
    pub fn set(&self, path: &str, answers: Vec<Answer>) {
        let mut a = self.answers.lock().unwrap();
        a.insert(path.to_string(), answers);
    }
    /// Sets (or with `None` removes) one instance attribute of the document.
    pub fn attribute(&self, scope: &str, key: &str, value: Option<&str>) {
        let mut s = self.script.lock().unwrap();
        let attrs = s.document[scope]["attributes"].as_object_mut().unwrap();
        match value {
            Some(v) => attrs.insert(key.to_string(), json!(v)),
            None => attrs.remove(key),
        };
    }
}

/// A single value's path: `/computeMetadata/v1/instance/id`.
/// With `?recursive=true` (cloud-init's `instance/attributes/?recursive=True`), a directory's
/// subtree as JSON.
fn single(doc: &Value, path: &str) -> Option<String> {
    let path = match path.split_once('?') {
        Some((p, query)) if query.eq_ignore_ascii_case("recursive=true") => p,
        _ => path,
    };
    let rest = path.strip_prefix("/computeMetadata/v1/")?;
    let v = doc.pointer(&format!("/{}", rest.trim_end_matches('/')))?;
    Some(match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Starts the emulator; it serves until the process ends.
pub fn start() -> Server {
    let script = Arc::new(Mutex::new(Script {
        document: document(),
        flavor: true,
    }));
    let guest_attributes = Arc::new(Mutex::new(Vec::new()));
    let (state, written) = (script.clone(), guest_attributes.clone());
    let route = move |req: &Request, body: &[u8]| {
        let attribute = req
            .path
            .strip_prefix(GUEST_ATTRIBUTES)
            .filter(|a| a.contains('/') && !a.ends_with('/'));
        if let (Some(a), "PUT") = (attribute, req.method.as_str()) {
            let value = String::from_utf8_lossy(body).into_owned();
            written.lock().unwrap().push((a.to_string(), value));
            return Answer::Body(200, Vec::new());
        }
        if req.method != "GET" {
            return Answer::Body(405, Vec::new());
        }
        let sc = state.lock().unwrap();
        if req.path == DOCUMENT {
            Answer::Body(200, sc.document.to_string().into_bytes())
        } else if let Some(v) = single(&sc.document, &req.path) {
            Answer::Body(200, v.into_bytes())
        } else {
            Answer::Body(404, Vec::new())
        }
    };
    let flavor = script.clone();
    let headers = move || {
        let google = flavor.lock().unwrap().flavor;
        let extra = if google {
            "Metadata-Flavor: Google\r\n"
        } else {
            ""
        };
        format!("{extra}Content-Type: application/json\r\n")
    };
    let spec = Spec::with_body(route)
        .guard(|req, _| flavor_missing(req))
        .key(scripted::with_query)
        .headers(headers);
    let server = scripted::serve(scripted::loopback(), spec);
    Server {
        port: server.port,
        log: server.log,
        script,
        answers: server.answers,
        guest_attributes,
    }
}

/// Every request needs the header, before anything else is looked at.
fn flavor_missing(req: &Request) -> Option<Answer> {
    (req.header("metadata-flavor") != Some("Google"))
        .then(|| Answer::Body(403, b"Missing Metadata-Flavor:Google header.".to_vec()))
}
