//! The `lxd` key read once into `Settings`: `init` as `lxd init --auto` flags (the trust
//! password kept apart, as a secret), `bridge` as the `lxc` commands and debconf answers
//! cloud-init derives from it, `preseed` as a secret text, and the storage drivers whose tools
//! the target may need. cloud-init's checks (`preseed` with `init` or `bridge`, wrong types)
//! are errors, as it raises there. The boot and `ember schema` both read it here.

use crate::common::pyvalue::{py_str, truthy};
use crate::error::Diag;
use crate::reason::Reason;
use crate::secret::Secret;
use serde_json::{Map, Value};

/// cloud-init's default bridge name.
pub const DEFAULT_BRIDGE: &str = "lxdbr0";
/// The `init` keys, in the order cloud-init puts their flags.
const INIT_KEYS: [&str; 7] = [
    "network_address",
    "network_port",
    "storage_backend",
    "storage_create_device",
    "storage_create_loop",
    "storage_pool",
    "trust_password",
];

#[derive(Debug, PartialEq, Eq)]
pub struct Init {
    /// `--network-address=…` and the others, in cloud-init's order; never the password.
    pub flags: Vec<String>,
    /// `storage_backend`, for the LVM thin-pool fallback.
    pub backend: Option<String>,
    /// `trust_password`: handed to LXD on standard input, never on a command line.
    pub trust_password: Option<Secret<String>>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Bridge {
    /// `name`, `lxdbr0` by default.
    pub name: String,
    /// `lxc network create …` (without `lxc` and `--force-local`), for mode `new`.
    pub create: Option<Vec<String>>,
    /// `lxc network attach-profile …`, for modes `new` and `existing`.
    pub attach: Option<Vec<String>>,
    /// The debconf answers for a packaged LXD's lxd-bridge.
    pub debconf: Vec<(String, String)>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    pub init: Option<Init>,
    /// The bridge; Err when its mode is not one cloud-init knows (it fails after `init`).
    pub bridge: Option<Result<Bridge, ()>>,
    pub preseed: Option<Secret<String>>,
    /// The storage drivers asked for, whose tools the target may need.
    pub drivers: Vec<String>,
}

/// `lxd`: None when there is nothing to do, or a value cloud-init fails on before doing
/// anything (with its diagnostics).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let lxd = cfg.get("lxd").filter(|v| truthy(v))?;
    let Some(lxd) = lxd.as_object() else {
        diags.push(Diag::error(Reason::WrongType, "expected a mapping").key("lxd"));
        return None;
    };
    let empty = Value::Object(Map::new());
    let init = lxd.get("init").unwrap_or(&empty);
    let bridge = lxd.get("bridge").unwrap_or(&empty);
    let preseed = lxd.get("preseed").cloned().unwrap_or(Value::from(""));
    let before = diags.len();
    for (key, ok, what) in [
        ("lxd.init", init.is_object(), "a mapping"),
        ("lxd.bridge", bridge.is_object(), "a mapping"),
        ("lxd.preseed", preseed.is_string(), "text"),
    ] {
        if !ok {
            let msg = format!("must be {what}");
            diags.push(Diag::error(Reason::WrongType, msg).key(key));
        }
    }
    let preseed = preseed.as_str().unwrap_or_default();
    if !preseed.is_empty() && (truthy(init) || truthy(bridge)) {
        let msg = "cannot be given with lxd.init or lxd.bridge";
        diags.push(Diag::error(Reason::BadValue, msg).key("lxd.preseed"));
    }
    if diags.len() > before {
        return None;
    }
    let (init, bridge) = (init.as_object()?, bridge.as_object()?);
    let mut drivers = Vec::new();
    if let Some(b) = init.get("storage_backend") {
        drivers.push(py_str(b));
    }
    if preseed.contains("storage_pools") {
        drivers.extend(preseed_drivers(preseed));
    }
    Some(Settings {
        init: (!init.is_empty()).then(|| read_init(init)),
        bridge: (!bridge.is_empty()).then(|| read_bridge(bridge, diags)),
        preseed: (!preseed.is_empty()).then(|| Secret::new(preseed.to_string())),
        drivers,
    })
}

fn read_init(init: &Map<String, Value>) -> Init {
    let mut flags = Vec::new();
    let mut trust_password = None;
    for k in INIT_KEYS {
        let Some(v) = init.get(k).filter(|v| truthy(v)) else {
            continue;
        };
        if k == "trust_password" {
            trust_password = Some(Secret::new(py_str(v)));
        } else {
            flags.push(format!("--{}={}", k.replace('_', "-"), py_str(v)));
        }
    }
    Init {
        flags,
        backend: init.get("storage_backend").map(py_str),
        trust_password,
    }
}

/// cloud-init's `bridge_to_cmd` and `bridge_to_debconf`.
fn read_bridge(b: &Map<String, Value>, diags: &mut Vec<Diag>) -> Result<Bridge, ()> {
    let get = |k: &str| b.get(k).filter(|v| truthy(v));
    let s = |k: &str| b.get(k).map(py_str).unwrap_or_else(|| "None".into());
    let mode = b.get("mode").and_then(Value::as_str).unwrap_or_default();
    let name = b.get("name").map_or(DEFAULT_BRIDGE.into(), py_str);
    let attach = vec![
        "network".into(),
        "attach-profile".into(),
        name.clone(),
        "default".into(),
        "eth0".into(),
    ];
    let mut debconf: Vec<(String, String)> = Vec::new();
    let mut set = |k: &str, v: String| debconf.push((format!("lxd/{k}"), v));
    let (create, attach) = match mode {
        "none" => {
            set("setup-bridge", "false".into());
            set("bridge-name", String::new());
            (None, None)
        }
        "existing" => {
            set("setup-bridge", "false".into());
            set("use-existing-bridge", "true".into());
            set("bridge-name", s("name"));
            (None, Some(attach))
        }
        "new" => {
            set("setup-bridge", "true".into());
            if get("name").is_some() {
                set("bridge-name", s("name"));
            }
            if get("ipv4_address").is_some() {
                set("bridge-ipv4", "true".into());
                for (k, f) in [
                    ("bridge-ipv4-address", "ipv4_address"),
                    ("bridge-ipv4-netmask", "ipv4_netmask"),
                    ("bridge-ipv4-dhcp-first", "ipv4_dhcp_first"),
                    ("bridge-ipv4-dhcp-last", "ipv4_dhcp_last"),
                    ("bridge-ipv4-dhcp-leases", "ipv4_dhcp_leases"),
                ] {
                    set(k, s(f));
                }
                set(
                    "bridge-ipv4-nat",
                    b.get("ipv4_nat").map_or("true".into(), py_str),
                );
            }
            if get("ipv6_address").is_some() {
                set("bridge-ipv6", "true".into());
                set("bridge-ipv6-address", s("ipv6_address"));
                set("bridge-ipv6-netmask", s("ipv6_netmask"));
                set(
                    "bridge-ipv6-nat",
                    b.get("ipv6_nat").map_or("false".into(), py_str),
                );
            }
            if get("domain").is_some() {
                set("bridge-domain", s("domain"));
            }
            (Some(create_cmd(b, &name)), Some(attach))
        }
        _ => {
            let msg = "must be none, existing or new";
            diags.push(Diag::error(Reason::BadValue, msg).key("lxd.bridge.mode"));
            return Err(());
        }
    };
    Ok(Bridge {
        name,
        create,
        attach,
        debconf,
    })
}

/// `lxc network create NAME …` for mode `new`. As cloud-init, NAT is asked for only when
/// `ipv4_nat` is absent or the text `"true"` (a YAML `true` does not match its test), and for
/// IPv6 only when `ipv6_nat` is the text `"true"`.
fn create_cmd(b: &Map<String, Value>, name: &str) -> Vec<String> {
    let get = |k: &str| b.get(k).filter(|v| truthy(v)).map(py_str);
    let text_true = |k: &str| b.get(k).and_then(Value::as_str) == Some("true");
    let mut cmd = vec!["network".to_string(), "create".into(), name.to_string()];
    match (get("ipv4_address"), get("ipv4_netmask")) {
        (Some(a), Some(m)) => {
            cmd.push(format!("ipv4.address={a}/{m}"));
            if b.get("ipv4_nat").is_none() || text_true("ipv4_nat") {
                cmd.push("ipv4.nat=true".into());
            }
            if let (Some(f), Some(l)) = (get("ipv4_dhcp_first"), get("ipv4_dhcp_last")) {
                cmd.push(format!("ipv4.dhcp.ranges={f}-{l}"));
            }
        }
        _ => cmd.push("ipv4.address=none".into()),
    }
    match (get("ipv6_address"), get("ipv6_netmask")) {
        (Some(a), Some(m)) => {
            cmd.push(format!("ipv6.address={a}/{m}"));
            if text_true("ipv6_nat") {
                cmd.push("ipv6.nat=true".into());
            }
        }
        _ => cmd.push("ipv6.address=none".into()),
    }
    if let Some(d) = get("domain") {
        cmd.push(format!("dns.domain={d}"));
    }
    match b.get("mtu") {
        Some(v) if v.as_i64() == Some(-1) => {}
        None => {}
        Some(v) => cmd.push(format!("bridge.mtu={}", py_str(v))),
    }
    cmd
}

/// The `driver:` values of a preseed's storage pools. cloud-init parses the YAML; the runner
/// has no YAML reader, so it takes the word after each `driver:` (block or flow style).
fn preseed_drivers(preseed: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in preseed.match_indices("driver:") {
        let before = preseed[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let word: String = preseed[i + 7..]
            .trim_start_matches([' ', '\t', '"', '\''])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn init_flags_keep_the_password_apart() {
        let cfg = json!({"lxd": {"init": {"network_address": "0.0.0.0", "network_port": 8443,
            "storage_backend": "zfs", "storage_pool": "datapool", "storage_create_loop": 10,
            "storage_create_device": "", "trust_password": "s3cret"}}});
        let mut d = Vec::new();
        let s = read(&cfg, &mut d).unwrap();
        assert!(d.is_empty());
        let init = s.init.unwrap();
        assert_eq!(
            init.flags,
            [
                "--network-address=0.0.0.0",
                "--network-port=8443",
                "--storage-backend=zfs",
                "--storage-create-loop=10",
                "--storage-pool=datapool"
            ]
        );
        assert_eq!(init.trust_password.unwrap().expose(), "s3cret");
        assert_eq!(s.drivers, ["zfs"]);
        assert!(s.bridge.is_none() && s.preseed.is_none());
    }

    #[test]
    fn bridge_commands_and_debconf() {
        let b = json!({"mode": "new", "name": "testbr0", "ipv4_address": "10.0.8.1",
            "ipv4_netmask": "24", "ipv4_dhcp_first": "10.0.8.2", "ipv4_dhcp_last": "10.0.8.254",
            "ipv4_dhcp_leases": "250", "ipv4_nat": "true", "ipv6_address": "fd98:9e0:3744::1",
            "ipv6_netmask": "64", "ipv6_nat": "true", "domain": "lxd", "mtu": 9000});
        let mut d = Vec::new();
        let got = read_bridge(b.as_object().unwrap(), &mut d).unwrap();
        assert_eq!(
            got.create.unwrap(),
            [
                "network",
                "create",
                "testbr0",
                "ipv4.address=10.0.8.1/24",
                "ipv4.nat=true",
                "ipv4.dhcp.ranges=10.0.8.2-10.0.8.254",
                "ipv6.address=fd98:9e0:3744::1/64",
                "ipv6.nat=true",
                "dns.domain=lxd",
                "bridge.mtu=9000"
            ]
        );
        assert_eq!(
            got.attach.unwrap(),
            ["network", "attach-profile", "testbr0", "default", "eth0"]
        );
        assert_eq!(got.debconf.len(), 14);
        assert_eq!(got.debconf[9].0, "lxd/bridge-ipv6");
        let partial = json!({"mode": "new", "ipv6_address": "fd98::1", "ipv6_netmask": 64,
                             "ipv6_nat": true, "ipv4_nat": true, "mtu": -1});
        let got = read_bridge(partial.as_object().unwrap(), &mut d).unwrap();
        assert_eq!(
            got.create.unwrap(),
            [
                "network",
                "create",
                "lxdbr0",
                "ipv4.address=none",
                "ipv6.address=fd98::1/64"
            ]
        );
        let existing = json!({"mode": "existing", "name": "br9"});
        let got = read_bridge(existing.as_object().unwrap(), &mut d).unwrap();
        assert_eq!(got.create, None);
        assert_eq!(got.attach.unwrap()[2], "br9");
        let none = json!({"mode": "none"});
        let got = read_bridge(none.as_object().unwrap(), &mut d).unwrap();
        assert_eq!((got.create, got.attach), (None, None));
        assert!(d.is_empty());
        assert!(read_bridge(json!({"name": "x"}).as_object().unwrap(), &mut d).is_err());
        assert_eq!(d[0].key.as_deref(), Some("lxd.bridge.mode"));
    }

    #[test]
    fn cloud_init_refusals() {
        let cases = [
            (
                json!({"lxd": {"preseed": "x: 1", "init": {"storage_pool": "p"}}}),
                "lxd.preseed",
            ),
            (json!({"lxd": {"init": "zfs"}}), "lxd.init"),
            (json!({"lxd": {"bridge": null}}), "lxd.bridge"),
            (json!({"lxd": {"preseed": {"a": 1}}}), "lxd.preseed"),
            (json!({"lxd": ["init"]}), "lxd"),
        ];
        for (cfg, key) in cases {
            let mut d = Vec::new();
            assert_eq!(read(&cfg, &mut d), None, "{cfg}");
            assert_eq!(d[0].key.as_deref(), Some(key), "{cfg}");
            assert!(d.iter().all(Diag::is_error));
        }
        assert_eq!(read(&json!({"lxd": {}}), &mut Vec::new()), None);
    }

    #[test]
    fn drivers_from_a_preseed() {
        let p = "storage_pools:\n- config: {}\n  driver: lvm\n- {name: b, driver: \"btrfs\"}\n\
                 x_driver: zfs\n";
        assert_eq!(preseed_drivers(p), ["lvm", "btrfs"]);
        let cfg = json!({"lxd": {"preseed": p}});
        let s = read(&cfg, &mut Vec::new()).unwrap();
        assert_eq!(s.drivers, ["lvm", "btrfs"]);
        assert_eq!(s.preseed.unwrap().expose(), p);
        assert!(s.init.is_none());
    }
}
