//! Where the network config comes from (`tests/unittests/test_stages.py`, the
//! `_find_networking_config` tests): the command line's `network-config=`, the system config's
//! `network` (cloud.cfg.d here), the datasource's (a NoCloud seed's `network-config`), dracut's
//! `ip=`, else the fallback; the first that disables or gives a config decides. User-data is
//! never a source. Each row is one NoCloud machine booted with `ember-initrd all`, judged on
//! the `network-config.json` the boot leaves (its `source`, or `disabled`) and its warnings.

use crate::common::{self, Machine};
use base64::Engine;
use serde_json::Value;

/// One upstream case and the machine that plays it.
struct Row {
    /// `test_stages.py::TestInit::test_wb__find_networking_config_returns_kernel[network_key]`.
    upstream: &'static str,
    user_data: &'static str,
    /// The seed's `network-config` (the datasource's config), when it has one.
    seed_network: Option<&'static str>,
    /// A cloud.cfg.d file of the image (the system config), when there is one.
    image_cfg: Option<&'static str>,
    /// `network-config=` on the command line, base64-encoded here, when there is one.
    cmdline_network: Option<&'static str>,
    /// Where the config comes from (`source`), or what disabled it (`disabled`, a prefix).
    want: Want,
    /// A further fact of the boot.
    also: fn(&Machine) -> Result<(), String>,
}

enum Want {
    Source(&'static str),
    Disabled(&'static str),
}

const NO_USER_NETWORK: &str = "#cloud-config\nhostname: h1\n";
const USER_NETWORK: &str =
    "#cloud-config\nnetwork:\n  version: 2\n  ethernets:\n    eth9:\n      dhcp4: true\n";
const USER_DISABLED: &str = "#cloud-config\nnetwork: {config: disabled}\n";
const SEED_V2: &str = "version: 2\nethernets:\n  eth1:\n    dhcp4: true\n";
const SEED_DISABLED: &str = "config: disabled\n";
const SEED_DISABLED_UNDER_NETWORK: &str = "network: {config: disabled}\n";
const IMAGE_V2: &str = "network:\n  version: 2\n  ethernets:\n    eth2:\n      dhcp4: true\n";
const IMAGE_V2_UNDER_NETWORK: &str =
    "network:\n  network:\n    version: 2\n    ethernets:\n      eth2:\n        dhcp4: true\n";
const IMAGE_DISABLED: &str = "network: {config: disabled}\n";
const IMAGE_DISABLED_UNDER_NETWORK: &str = "network: {network: {config: disabled}}\n";
const IMAGE_EMPTY: &str = "network: {}\n";
const IMAGE_NULL: &str = "network:\n";
const CMDLINE_V2: &str = "version: 2\nethernets:\n  eth3:\n    dhcp4: true\n";
const CMDLINE_V2_UNDER_NETWORK: &str =
    "network:\n  version: 2\n  ethernets:\n    eth3:\n      dhcp4: true\n";

const FROM_CMDLINE: &str = "kernel command line: network-config=";
const FROM_IMAGE: &str = "config: network";
const FROM_FALLBACK: &str = "fallback";
const FROM_SEED: &str = "/var/lib/cloud/seed/nocloud";

fn nothing(_: &Machine) -> Result<(), String> {
    Ok(())
}

/// The boot warned that user-data's `network` key is ignored, naming the key and the file.
fn warns_user_network(m: &Machine) -> Result<(), String> {
    let found = m.diags().into_iter().any(|d| {
        d["key"] == "network"
            && d["file"] == "user-data"
            && d["severity"] == "warning"
            && d["message"].as_str().is_some_and(|s| s.contains("ignored"))
    });
    found
        .then_some(())
        .ok_or_else(|| format!("no warning on user-data's network key: {:?}", m.diags()))
}

/// The config's model names the interface `name` (the config that was chosen is the one used).
fn names(m: &Machine, name: &str) -> Result<(), String> {
    let text = m.run_file("ember/network-config.json");
    text.contains(name)
        .then_some(())
        .ok_or_else(|| format!("{name} not in the chosen config: {text}"))
}

/// The boot warned that the system config's `network` is empty.
fn warns_empty(m: &Machine) -> Result<(), String> {
    let found = m.diags().into_iter().any(|d| {
        d["key"] == "network" && d["message"].as_str().is_some_and(|s| s.contains("empty"))
    });
    found
        .then_some(())
        .ok_or_else(|| format!("no warning on the empty network key: {:?}", m.diags()))
}

const ROWS: &[Row] = &[
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_returns_fallback (user-data's network key is no source)",
        user_data: USER_NETWORK,
        seed_network: None,
        image_cfg: None,
        cmdline_network: None,
        want: Want::Source(FROM_FALLBACK),
        also: warns_user_network,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_returns_datasrc_cfg[config] (over user-data's network key)",
        user_data: USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: None,
        cmdline_network: None,
        want: Want::Source(FROM_SEED),
        also: |m| names(m, "eth1"),
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_returns_fallback (user-data's network: {config: disabled} disables nothing)",
        user_data: USER_DISABLED,
        seed_network: None,
        image_cfg: None,
        cmdline_network: None,
        want: Want::Source(FROM_FALLBACK),
        also: warns_user_network,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_returns_system_cfg[config]",
        user_data: USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_V2),
        cmdline_network: None,
        want: Want::Source(FROM_IMAGE),
        also: |m| names(m, "eth2"),
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_returns_system_cfg[network_key]",
        user_data: NO_USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_V2_UNDER_NETWORK),
        cmdline_network: None,
        want: Want::Source(FROM_IMAGE),
        also: |m| names(m, "eth2"),
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_returns_kernel[config]",
        user_data: USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_V2),
        cmdline_network: Some(CMDLINE_V2),
        want: Want::Source(FROM_CMDLINE),
        also: |m| names(m, "eth3"),
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_returns_kernel[network_key]",
        user_data: NO_USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_V2),
        cmdline_network: Some(CMDLINE_V2_UNDER_NETWORK),
        want: Want::Source(FROM_CMDLINE),
        also: |m| names(m, "eth3"),
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_disabled_by_kernel[config]",
        user_data: NO_USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_V2),
        cmdline_network: Some(SEED_DISABLED),
        want: Want::Disabled("kernel command line"),
        also: nothing,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_disabled_by_kernel[network_key]",
        user_data: NO_USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_V2),
        cmdline_network: Some(SEED_DISABLED_UNDER_NETWORK),
        want: Want::Disabled("kernel command line"),
        also: nothing,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_disabled_by_sysconfig[config]",
        user_data: USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_DISABLED),
        cmdline_network: None,
        want: Want::Disabled("config: network"),
        also: nothing,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_disabled_by_sysconfig[network_key]",
        user_data: NO_USER_NETWORK,
        seed_network: Some(SEED_V2),
        image_cfg: Some(IMAGE_DISABLED_UNDER_NETWORK),
        cmdline_network: None,
        want: Want::Disabled("config: network"),
        also: nothing,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_disabled_by_datasrc[config] (system config network: {})",
        user_data: USER_NETWORK,
        seed_network: Some(SEED_DISABLED),
        image_cfg: Some(IMAGE_EMPTY),
        cmdline_network: None,
        want: Want::Disabled(FROM_SEED),
        also: nothing,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_wb__find_networking_config_disabled_by_datasrc[network_key] (system config network: {})",
        user_data: NO_USER_NETWORK,
        seed_network: Some(SEED_DISABLED_UNDER_NETWORK),
        image_cfg: Some(IMAGE_EMPTY),
        cmdline_network: None,
        want: Want::Disabled(FROM_SEED),
        also: nothing,
    },
    Row {
        upstream: "test_stages.py::TestInit::test_warn_on_empty_network",
        user_data: NO_USER_NETWORK,
        seed_network: None,
        image_cfg: Some(IMAGE_NULL),
        cmdline_network: None,
        want: Want::Source(FROM_FALLBACK),
        also: warns_empty,
    },
];

/// The NoCloud machine of `row`, booted.
fn boot(row: &Row) -> Machine {
    let m = Machine::new("net-sources");
    let meta = "instance-id: i-1\nlocal-hostname: h1\n";
    let mut files = vec![("meta-data", meta), ("user-data", row.user_data)];
    files.extend(row.seed_network.map(|n| ("network-config", n)));
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    if let Some(cfg) = row.image_cfg {
        m.write(
            &m.target,
            "etc/cloud/cloud.cfg.d/90-net.cfg",
            cfg.as_bytes(),
        );
    }
    let mut line = "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro".to_string();
    if let Some(net) = row.cmdline_network {
        let b64 = base64::engine::general_purpose::STANDARD.encode(net);
        line.push_str(&format!(" network-config={b64}"));
    }
    m.cmdline(&line);
    let out = m.initrd("all");
    common::assert_no_panic(&out);
    m
}

fn holds(row: &Row, m: &Machine) -> Result<(), String> {
    let chosen: Value = serde_json::from_str(&m.run_file("ember/network-config.json"))
        .map_err(|e| format!("network-config.json: {e}"))?;
    match row.want {
        Want::Source(want) => {
            let source = chosen["source"].as_str().unwrap_or_default();
            if !source.starts_with(want) {
                return Err(format!("source {chosen}, want {want}"));
            }
        }
        Want::Disabled(want) => {
            let why = chosen["disabled"].as_str().unwrap_or_default();
            if !why.starts_with(want) {
                return Err(format!("disabled by {chosen}, want {want}"));
            }
        }
    }
    (row.also)(m)
}

#[test]
fn network_config_comes_from_cloud_inits_sources_in_its_order() {
    let mut wrong = Vec::new();
    for row in ROWS {
        assert!(!row.upstream.is_empty(), "a row without its upstream case");
        let m = boot(row);
        if let Err(why) = holds(row, &m) {
            wrong.push(format!("{}: {why}", row.upstream));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} rows disagree:\n\n{}",
        wrong.len(),
        ROWS.len(),
        wrong.join("\n\n")
    );
}

/// `test_stages.py::TestInit::test_wb__find_networking_config_returns_fallback` (vendor-data's
/// network key is no source either): only the system config, the datasource and the command
/// line are read.
#[test]
fn vendor_datas_network_key_is_no_source() {
    let m = Machine::new("net-sources-vendor");
    let meta = "instance-id: i-1\nlocal-hostname: h1\n";
    let files = [
        ("meta-data", meta),
        ("user-data", NO_USER_NETWORK),
        ("vendor-data", USER_NETWORK),
    ];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    common::assert_no_panic(&m.initrd("all"));
    let chosen = m.json("ember/network-config.json");
    assert_eq!(chosen["source"], FROM_FALLBACK, "{chosen}");
    let warned = m
        .diags()
        .into_iter()
        .any(|d| d["key"] == "network" && d["file"] == "vendor-data" && d["severity"] == "warning");
    assert!(
        warned,
        "no warning on vendor-data's network key: {:?}",
        m.diags()
    );
}
