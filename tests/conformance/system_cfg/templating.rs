//! `## template: jinja` system config (`util.read_conf`, rendered over the instance data once
//! there is some, a missing variable printing `CI_MISSING_JINJA_VAR/<name>`), and what the
//! instance data holds of the system config (`merged_system_cfg`).

use super::{boot, check, machine, same, Boot, Row};
use serde_json::Value;

/// The image of `test_substitution_in_etc_cloud`: cloud.cfg and a cloud.cfg.d part made
/// templates, a third part without the header.
fn substitution() -> Boot {
    let m = machine("cfg-jinja", "#cloud-config\n{}\n");
    let files = [
        (
            "etc/cloud/cloud.cfg",
            "## template: jinja\n\npreserve_hostname: false\n\nruncmd:\n - echo {{v1.local_hostname}} > /var/tmp/runcmd_output\n",
        ),
        (
            "etc/cloud/cloud.cfg.d/50-jinja-test.cfg",
            "## template: jinja\nbootcmd:\n - echo '{{merged_system_cfg._doc}}' > /var/tmp/bootcmd_output\n",
        ),
        (
            "etc/cloud/cloud.cfg.d/70-no-jinja-test.cfg",
            "final_message: final hi {{v1.local_hostname}}",
        ),
    ];
    for (path, text) in files {
        m.write(&m.target, path, text.as_bytes());
    }
    boot(m)
}

/// The image of `test_invalid_etc_cloud_substitution`: a template naming a variable instance
/// data lacks, and a plain part after it.
fn invalid() -> Boot {
    let m = machine("cfg-jinja-bad", "#cloud-config\n{}\n");
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/50-no-var.cfg",
        b"## template: jinja\nruncmd:\n - echo {{bad}} > /var/tmp/runcmd_bad\n - echo {{v1.local_hostname}} > /var/tmp/runcmd_output\nfinal_message: final hi {{v1.local_hostname}}",
    );
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/60-normal.cfg",
        b"bootcmd:\n - echo hi > /var/tmp/bootcmd_output\n",
    );
    boot(m)
}

fn list(b: &Boot, key: &str) -> Result<Vec<String>, String> {
    let cfg = b.combined()?;
    let items = cfg[key].as_array().ok_or(format!("no {key} list: {cfg}"))?;
    Ok(items
        .iter()
        .map(|v| v.as_str().unwrap_or("?").to_string())
        .collect())
}

fn doc(b: &Boot) -> Result<String, String> {
    let data = b.run_json("cloud-init/instance-data-sensitive.json")?;
    let doc = data["merged_system_cfg"]["_doc"]
        .as_str()
        .unwrap_or_default();
    if doc.is_empty() {
        return Err("merged_system_cfg has no _doc".into());
    }
    Ok(doc.to_string())
}

const SUBSTITUTION: &[Row] = &[
    Row {
        upstream: "test_jinja_templating.py::test_substitution_in_etc_cloud (cloud.cfg rendered)",
        holds: |b| same("runcmd", list(b, "runcmd")?, vec!["echo h1 > /var/tmp/runcmd_output".into()]),
        differs: None,
    },
    Row {
        upstream: "test_jinja_templating.py::test_substitution_in_etc_cloud (cloud.cfg.d part rendered, merged_system_cfg._doc)",
        holds: |b| {
            let want = format!("echo '{}' > /var/tmp/bootcmd_output", doc(b)?);
            same("bootcmd", list(b, "bootcmd")?, vec![want])
        },
        differs: None,
    },
    Row {
        upstream: "test_jinja_templating.py::test_substitution_in_etc_cloud (a file without the header is not a template)",
        holds: |b| same("final_message", b.combined()?["final_message"].clone(), Value::from("final hi {{v1.local_hostname}}")),
        differs: None,
    },
    Row {
        upstream: "test_jinja_templating.py::test_substitution_in_etc_cloud (verify_clean_log)",
        holds: |b| {
            let d = b.diags();
            same("diagnostics", d.len(), 0).map_err(|e| format!("{e}: {d:?}"))
        },
        differs: None,
    },
    Row {
        upstream: "sources/test_init.py::TestDataSource::test_get_data_writes_redacted_public_json_instance_data (merged_system_cfg)",
        holds: |b| {
            let public = b.run_json("cloud-init/instance-data.json")?;
            same("merged_system_cfg", public["merged_system_cfg"].clone(), Value::from("redacted for non-root user"))?;
            same("merged_cfg", public["merged_cfg"].clone(), Value::from("redacted for non-root user"))?;
            let keys = public["sensitive_keys"].as_array().cloned().unwrap_or_default();
            let listed = |k: &str| keys.iter().any(|v| v == k);
            same("sensitive_keys lists both", listed("merged_cfg") && listed("merged_system_cfg"), true)
        },
        differs: None,
    },
    Row {
        upstream: "sources/test_init.py::TestDataSource::test_get_data_writes_json_instance_data_sensitive (merged_system_cfg)",
        holds: |b| {
            let data = b.run_json("cloud-init/instance-data-sensitive.json")?;
            let cfg = &data["merged_system_cfg"];
            same("merged_system_cfg.preserve_hostname", cfg["preserve_hostname"].clone(), Value::Bool(false))?;
            let mode = crate::common::Machine::mode(&b.m.run.join("cloud-init/instance-data-sensitive.json"));
            same("mode", mode, 0o600)
        },
        differs: None,
    },
];

const INVALID: &[Row] = &[
    Row {
        upstream: "test_jinja_templating.py::test_invalid_etc_cloud_substitution (warning names the file and 'bad')",
        holds: |b| {
            let file = "/etc/cloud/cloud.cfg.d/50-no-var.cfg";
            let found = b.diags().into_iter().any(|d| {
                d["severity"] == "warning"
                    && d["file"] == file
                    && d["message"].as_str().is_some_and(|m| m.contains("bad"))
            });
            same("a warning naming the file and the variable", found, true)
                .map_err(|e| format!("{e}: {:?}", b.diags()))
        },
        differs: None,
    },
    Row {
        upstream: "test_jinja_templating.py::test_invalid_etc_cloud_substitution (CI_MISSING_JINJA_VAR/bad; other variables rendered)",
        holds: |b| {
            let want = vec![
                "echo CI_MISSING_JINJA_VAR/bad > /var/tmp/runcmd_bad".to_string(),
                "echo h1 > /var/tmp/runcmd_output".to_string(),
            ];
            same("runcmd", list(b, "runcmd")?, want)?;
            same("final_message", b.combined()?["final_message"].clone(), Value::from("final hi h1"))
        },
        differs: None,
    },
    Row {
        upstream: "test_jinja_templating.py::test_invalid_etc_cloud_substitution (other files load)",
        holds: |b| same("bootcmd", list(b, "bootcmd")?, vec!["echo hi > /var/tmp/bootcmd_output".into()]),
        differs: None,
    },
];

const USER_DATA: &str = "## template: jinja\n#cloud-config\nruncmd:\n  - echo {{v1.local_hostname}} > /var/tmp/runcmd_output\n  - echo {{merged_system_cfg._doc}} >> /var/tmp/runcmd_output\n  - echo {{v1['local-hostname']}} >> /var/tmp/runcmd_output\n";

const USER_TEMPLATE: &[Row] = &[Row {
    upstream: "test_jinja_templating.py::test_runcmd_with_variable_substitution",
    holds: |b| {
        let want = vec![
            "echo h1 > /var/tmp/runcmd_output".to_string(),
            format!("echo {} >> /var/tmp/runcmd_output", doc(b)?),
            "echo h1 >> /var/tmp/runcmd_output".to_string(),
        ];
        same("runcmd", list(b, "runcmd")?, want)
    },
    differs: None,
}];

#[test]
fn templated_system_config_agrees() {
    check(&substitution(), SUBSTITUTION);
}

#[test]
fn missing_variables_in_system_config_agree() {
    check(&invalid(), INVALID);
}

#[test]
fn user_data_templates_see_the_system_config() {
    check(&boot(machine("cfg-ud-jinja", USER_DATA)), USER_TEMPLATE);
}

pub fn rows() -> usize {
    SUBSTITUTION.len() + INVALID.len() + USER_TEMPLATE.len()
}
