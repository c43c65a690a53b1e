//! cloud-init's run directory after a boot: the `cloud-id` link, combined-cloud-config.json
//! with `features` and `system_info`, and the modules that have nothing to do.

use super::{boot, check, machine, same, Boot, Row};
use crate::common::{self, stdout};
use serde_json::{json, Value};

/// `cloudinit/features.py`'s flags at their upstream values, but `STRIP_INVALID_MTU`: ember
/// strips `mtu: 0` (a listed difference, "STRIP_INVALID_MTU switch on") and says so.
fn upstream_features() -> Value {
    json!({
        "ERROR_ON_USER_DATA_FAILURE": true,
        "ALLOW_EC2_MIRRORS_ON_NON_AWS_INSTANCE_TYPES": false,
        "EXPIRE_APPLIES_TO_HASHED_USERS": true,
        "NETPLAN_CONFIG_ROOT_READ_ONLY": true,
        "NOCLOUD_SEED_URL_APPEND_FORWARD_SLASH": true,
        "APT_DEB822_SOURCE_LIST_FILE": true,
        "MANUAL_NETWORK_WAIT": true,
        "STRIP_INVALID_MTU": true,
        "DEPRECATION_INFO_BOUNDARY": "devel",
    })
}

/// An image naming its default user (as Ubuntu's does), and user-data with one module's keys.
fn plain() -> Boot {
    let m = machine("cfg-run", "#cloud-config\nruncmd: [echo hi]\n");
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg",
        b"system_info:\n  default_user:\n    name: ubuntu\n",
    );
    boot(m)
}

fn cloud_id(b: &Boot) -> Result<String, String> {
    let out = b.m.ember(&["cloud-id"]);
    common::assert_no_panic(&out);
    Ok(stdout(&out).trim().to_string())
}

fn step(b: &Boot, name: &str) -> Result<String, String> {
    let status = b.run_json("ember/status.json")?;
    let steps = status["stages"]["local"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let found = steps.into_iter().find(|s| s["name"] == name);
    let found = found.ok_or(format!("no step {name}"))?;
    Ok(found["result"].as_str().unwrap_or_default().to_string())
}

const TABLE: &[Row] = &[
    Row {
        upstream: "test_combined.py::TestCombined::test_cloud_id_file_symlink",
        holds: |b| {
            let link = std::fs::read_link(b.m.run.join("cloud-init/cloud-id")).map_err(|e| e.to_string())?;
            let want = b.m.run.join(format!("cloud-init/cloud-id-{}", cloud_id(b)?));
            same("absolute link", link.is_absolute(), true)?;
            same("cloud-id link", link, want)
        },
        differs: None,
    },
    Row {
        upstream: "sources/test_init.py::TestDataSource::test_persist_instance_data_writes_canonical_cloud_id_and_symlink",
        holds: |b| {
            let text = std::fs::read_to_string(b.m.run.join("cloud-init/cloud-id")).map_err(|e| e.to_string())?;
            same("cloud-id through the link", text, format!("{}\n", cloud_id(b)?))
        },
        differs: None,
    },
    Row {
        upstream: "test_combined.py::TestCombined::test_combined_cloud_config_json (features)",
        holds: |b| same("features", b.combined()?["features"].clone(), upstream_features()),
        differs: Some("STRIP_INVALID_MTU switch on"),
    },
    Row {
        upstream: "test_combined.py::TestCombined::test_combined_cloud_config_json (system_info)",
        holds: |b| same("default user", b.combined()?["system_info"]["default_user"]["name"].clone(), Value::from("ubuntu")),
        differs: None,
    },
    Row {
        upstream: "stages.py Init._write_combined_cloud_config (instance-data-sensitive.json gets system_info and features)",
        holds: |b| {
            let data = b.run_json("cloud-init/instance-data-sensitive.json")?;
            same("features", data["features"].clone(), upstream_features())?;
            same("system_info", data["system_info"]["default_user"]["name"].clone(), Value::from("ubuntu"))
        },
        differs: None,
    },
    Row {
        upstream: "stages.py Init._write_combined_cloud_config (combined-cloud-config.json is 0600, with a _doc)",
        holds: |b| {
            let mode = common::Machine::mode(&b.m.run.join("cloud-init/combined-cloud-config.json"));
            same("mode", mode, 0o600)?;
            same("_doc is a string", b.combined()?["_doc"].is_string(), true)
        },
        differs: None,
    },
    Row {
        upstream: "config/test_modules.py::TestModules::test__is_inapplicable (none of the module's keys: not run)",
        holds: |b| {
            same("write_files", step(b, "module write_files")?, "skipped (no config)".into())?;
            same("disk_setup", step(b, "module disk_setup")?, "skipped (no config)".into())
        },
        differs: None,
    },
    Row {
        upstream: "config/test_modules.py::TestModules::test__is_inapplicable (no activating keys: always run)",
        holds: |b| same("set_hostname", step(b, "module set_hostname")?, "ok".into()),
        differs: None,
    },
];

/// The same run directory written again after the cloud id changed (`cloud-name` in
/// NoCloud's meta-data), as the upstream test persists twice.
fn renamed_cloud() -> Boot {
    let m = machine("cfg-cloud-id", "#cloud-config\n{}\n");
    let meta = |name: &str| format!("instance-id: i-1\nlocal-hostname: h1\ncloud-name: {name}\n");
    let seed = "var/lib/cloud/seed/nocloud";
    m.seed_files(&m.target, seed, &[("meta-data", &meta("my-cloud"))]);
    common::assert_no_panic(&m.initrd("all"));
    m.seed_files(&m.target, seed, &[("meta-data", &meta("my-cloud2"))]);
    boot(m)
}

const RENAMED: &[Row] = &[Row {
    upstream: "sources/test_init.py::TestDataSource::test_persist_instance_data_writes_canonical_cloud_id_and_symlink (cloud id changed)",
    holds: |b| {
        let dir = b.m.run.join("cloud-init");
        same("old file removed", dir.join("cloud-id-my-cloud").exists(), false)?;
        let text = std::fs::read_to_string(dir.join("cloud-id")).map_err(|e| e.to_string())?;
        same("through the link", text, "my-cloud2\n".into())
    },
    differs: None,
}];

#[test]
fn runtime_files_agree() {
    check(&plain(), TABLE);
}

#[test]
fn a_changed_cloud_id_replaces_the_old_file() {
    check(&renamed_cloud(), RENAMED);
}

pub fn rows() -> usize {
    TABLE.len() + RENAMED.len()
}
