//! `system_info.paths` (`cloudinit/helpers.py` `Paths`): `cloud_dir` moves everything cloud-init
//! keeps (instances, data, seeds, scripts; `instance`, `boot-finished`), `templates_dir` the
//! templates; `run_dir` is not ember's to move.

use super::{boot, boot_to_final, check, machine, same, Boot, Row};
use crate::common::Machine;

const NEW_CLOUD_DIR: &str = "new-cloud-dir";

/// `test_honor_cloud_dir`'s image: `cloud_dir: /new-cloud-dir` in a cloud.cfg.d part, no
/// /var/lib/cloud; the seed where that cloud dir keeps seeds. `templates_dir` moved too.
fn custom_dirs() -> Machine {
    let m = machine("cfg-paths", "#cloud-config\nmanage_etc_hosts: true\n");
    let old = m.target.join("var/lib/cloud/seed/nocloud");
    let new = m.target.join(NEW_CLOUD_DIR).join("seed/nocloud");
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    std::fs::rename(&old, &new).unwrap();
    std::fs::remove_dir_all(m.target.join("var/lib/cloud")).unwrap();
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/95-custom-cloud-dir.cfg",
        b"system_info:\n  paths:\n    cloud_dir: /new-cloud-dir\n    templates_dir: /srv/templates/\n",
    );
    m.write(
        &m.target,
        "srv/templates/hosts.debian.tmpl",
        b"# from the moved templates\n127.0.1.1 $fqdn $hostname\n",
    );
    m
}

fn exists(b: &Boot, rel: &str) -> bool {
    b.m.target.join(rel).exists()
}

const TABLE: &[Row] = &[
    Row {
        upstream: "test_paths.py::TestHonorCloudDir::test_honor_cloud_dir (test ! -d /var/lib/cloud)",
        holds: |b| same("/var/lib/cloud exists", exists(b, "var/lib/cloud"), false),
        differs: None,
    },
    Row {
        upstream: "test_paths.py::TestHonorCloudDir::test_honor_cloud_dir (new-cloud-dir/instance/user-data.txt)",
        holds: |b| {
            same("user-data.txt", exists(b, "new-cloud-dir/instances/i-1/user-data.txt"), true)?;
            let link = std::fs::read_link(b.m.target.join("new-cloud-dir/instance")).map_err(|e| e.to_string())?;
            same("instance link", link.display().to_string(), "/new-cloud-dir/instances/i-1".into())
        },
        differs: None,
    },
    Row {
        upstream: "test_paths.py::TestHonorCloudDir::test_honor_cloud_dir (new-cloud-dir/data/result.json)",
        holds: |b| same("result.json", exists(b, "new-cloud-dir/data/result.json"), true),
        differs: None,
    },
    Row {
        upstream: "helpers.py Paths (seed_dir is cloud_dir/seed: the NoCloud seed found there)",
        holds: |b| {
            let status = b.run_json("ember/status.json")?;
            same("instance", status["instance_id"].clone(), "i-1".into())?;
            let evidence = status["evidence"].to_string();
            same("evidence names the moved seed", evidence.contains("/new-cloud-dir/seed/nocloud"), true)
                .map_err(|e| format!("{e}: {evidence}"))
        },
        differs: None,
    },
    Row {
        upstream: "helpers.py Paths (boot_finished is instance_link/boot-finished; data/instance-id)",
        holds: |b| {
            same("boot-finished", exists(b, "new-cloud-dir/instances/i-1/boot-finished"), true)?;
            same("instance-id", b.target_file("new-cloud-dir/data/instance-id")?, "i-1\n".into())
        },
        differs: None,
    },
    Row {
        upstream: "helpers.py Paths (template_tpl is templates_dir/%s.tmpl: /etc/hosts from hosts.debian.tmpl)",
        holds: |b| {
            let hosts = b.target_file("etc/hosts")?;
            same("rendered from the moved template", hosts.contains("from the moved templates") && hosts.contains("127.0.1.1 h1"), true)
                .map_err(|e| format!("{e}: {hosts:?}"))
        },
        differs: None,
    },
];

/// `run_dir` elsewhere than /run/cloud-init: ember warns and keeps its run files where the
/// initramfs leaves them.
const RUN_DIR: &[Row] = &[Row {
    upstream: "helpers.py Paths (run_dir: get_runpath files move with it)",
    holds: |b| {
        let warned = b
            .diags()
            .into_iter()
            .any(|d| d["key"] == "system_info.paths.run_dir" && d["severity"] == "warning");
        same("a warning on run_dir", warned, true)?;
        same(
            "instance data in cloud-init/",
            b.m.run.join("cloud-init/instance-data.json").exists(),
            true,
        )
    },
    differs: Some("system_info.paths.run_dir"),
}];

#[test]
fn cloud_dir_and_templates_dir_agree() {
    if let Some(b) = boot_to_final(custom_dirs()) {
        check(&b, TABLE);
    }
}

#[test]
fn run_dir_is_ember_own() {
    let m = machine("cfg-run-dir", "#cloud-config\n{}\n");
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-run.cfg",
        b"system_info:\n  paths:\n    run_dir: /run/elsewhere\n",
    );
    check(&boot(m), RUN_DIR);
}

pub fn rows() -> usize {
    // Bigstep's row runs twice, with the default cloud dir and with the image's.
    let bigstep = if cfg!(feature = "ds-bigstep") { 2 } else { 0 };
    TABLE.len() + RUN_DIR.len() + SLASHED_ID.len() + bigstep
}

/// Bigstep's url file, in the cloud dir's `data/seed/bigstep/` (the default one, or the
/// image's `cloud_dir`), naming the endpoint emulator.
#[cfg(feature = "ds-bigstep")]
fn bigstep(custom: bool) -> Boot {
    use crate::common::emulator::bigstep as bs;
    let server = bs::start();
    let m = Machine::new("cfg-bigstep");
    let mut cfg = "ember:\n  limits:\n    request_timeout_ms: 1000\n".to_string();
    let mut dir = "var/lib/cloud";
    if custom {
        cfg.push_str("system_info:\n  paths:\n    cloud_dir: /srv/cloud\n");
        dir = "srv/cloud";
    }
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let url = format!("{}\n", server.url());
    m.write(
        &m.target,
        &format!("{dir}/data/seed/bigstep/url"),
        url.as_bytes(),
    );
    let b = boot(m);
    assert_eq!(server.paths(), [bs::PATH], "one request");
    b
}

#[cfg(feature = "ds-bigstep")]
const BIGSTEP: &[Row] = &[Row {
    upstream: "sources/test_bigstep.py::TestBigstep::test_get_data_honor_cloud_dir",
    holds: |b| {
        let status = b.run_json("ember/status.json")?;
        same("datasource", status["datasource"].clone(), "bigstep".into())?;
        let id = crate::common::emulator::bigstep::INSTANCE_ID;
        same("instance", status["instance_id"].clone(), id.into())
    },
    differs: None,
}];

#[cfg(feature = "ds-bigstep")]
#[test]
fn bigstep_reads_its_url_file_in_the_cloud_dir() {
    for custom in [false, true] {
        check(&bigstep(custom), BIGSTEP);
    }
}

/// An instance whose id holds slashes.
const SLASHED_ID: &[Row] = &[Row {
    upstream: "test_helpers.py::TestPaths::test_get_ipath_and_instance_id_with_slashes",
    holds: |b| {
        let dir = b.m.target.join("var/lib/cloud/instances/%2Ffoo%2Fbar");
        same(
            "instance directory",
            dir.join("user-data.txt").exists(),
            true,
        )?;
        same(
            "no directory _foo_bar",
            b.m.target.join("var/lib/cloud/instances/_foo_bar").exists(),
            false,
        )
    },
    differs: Some("percent-encoded"),
}];

#[test]
fn instance_ids_with_slashes_name_one_directory() {
    let m = Machine::new("cfg-slashed");
    let meta = "instance-id: /foo/bar\nlocal-hostname: h1\n";
    let files = [("meta-data", meta), ("user-data", "#cloud-config\n{}\n")];
    m.seed_files(&m.target, "var/lib/cloud/seed/nocloud", &files);
    check(&boot(m), SLASHED_ID);
}
