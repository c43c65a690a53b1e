//! The schema command's own cases (`tests/unittests/config/test_schema.py`,
//! `tests/integration_tests/cmd/test_schema.py`), the cloud-config schema's shapes that issue
//! 34 names (`cloudinit/config/schemas/schema-cloud-config-v1.json`), and the command-line
//! spellings of cloud-init's docs and tests.

use super::Want::{self, Invalid, Valid};
use super::{ember, scratch};

/// One document checked with `ember schema [args] --config-file FILE`.
pub struct ConfigRow {
    pub upstream: &'static str,
    pub text: &'static str,
    pub args: &'static [&'static str],
    pub want: Want,
    pub differs: Option<&'static str>,
}

const ROW: ConfigRow = ConfigRow {
    upstream: "",
    text: "",
    args: &[],
    want: Valid,
    differs: None,
};

const NET: &[&str] = &["--schema-type", "network-config"];

/// The network-config v1 document of the schema tests, with `TYPE` as its one subnet's type.
macro_rules! v1_subnet {
    ($t:literal) => {
        concat!(
            "network:\n version: 1\n config:\n  - type: physical\n    name: eth0\n",
            "    subnets:\n      - type: ",
            $t,
            "\n"
        )
    };
}

pub static CONFIGS: &[ConfigRow] = &[
    // schema-cloud-config-v1.json, cc_ansible: galaxy needs `actions`, a list of argv lists;
    // package_name defaults to `ansible`; `pull` as one mapping is the deprecated form.
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_ansible[galaxy actions: list of lists]",
        text: "#cloud-config\nansible:\n  galaxy:\n    actions:\n      - [ansible-galaxy, collection, install, community.grafana]\n",
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_ansible[galaxy actions item not a list]",
        text: "#cloud-config\nansible:\n  galaxy:\n    actions: [ansible-galaxy]\n",
        want: Invalid("ansible.galaxy.actions.0"),
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_ansible[galaxy requires actions]",
        text: "#cloud-config\nansible:\n  galaxy: {}\n",
        want: Invalid("ansible.galaxy"),
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_ansible[package_name has a default]",
        text: "#cloud-config\nansible:\n  install_method: pip\n  pull:\n    - url: https://example.com/site.git\n      playbook_names: [site.yml]\n",
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_ansible[pull as one mapping: deprecated]",
        text: "#cloud-config\nansible:\n  pull:\n    url: https://example.com/site.git\n    playbook_names: [site.yml]\n",
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_ansible[unknown key]",
        text: "#cloud-config\nansible:\n  package: ansible\n",
        want: Invalid("ansible.package"),
        ..ROW
    },
    // cc_apt_configure: `keyid` is any string (cloud-init hands it to gpg); the docs use short
    // ids, fingerprints with and without blanks, and the placeholder word `keyid`.
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_apt_configure[keyid: short id]",
        text: "#cloud-config\napt:\n  sources:\n    s1:\n      source: deb http://example.com/ focal main\n      keyid: 03683F77\n",
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_apt_configure[keyid: fingerprint with blanks]",
        text: "#cloud-config\napt:\n  sources:\n    s1:\n      keyid: B59D 5F15 97A5 04B7 E230  6DCA 0620 BBCF 0368 3F77\n",
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_apt_configure[keyid: 0x long id]",
        text: "#cloud-config\napt:\n  primary:\n    - arches: [default]\n      keyid: '0x376A290EC8068B11'\n",
        ..ROW
    },
    ConfigRow {
        upstream: "test_cc_apt_configure.py[keyid: a word, as the tests' haveit]",
        text: "#cloud-config\napt:\n  sources:\n    s1:\n      keyid: haveit\n",
        ..ROW
    },
    ConfigRow {
        upstream: "test_cc_apt_configure.py[keyid: 1 is not of type string]",
        text: "#cloud-config\napt:\n  primary:\n    - arches: [amd64]\n      keyid: 1\n",
        want: Invalid("apt.primary.0.keyid"),
        ..ROW
    },
    // cc_phone_home: `url` required; `post` is `all` or a list of known names; `tries` integer.
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_phone_home[url required]",
        text: "#cloud-config\nphone_home:\n  post: all\n",
        want: Invalid("phone_home"),
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_phone_home[post item not known: DSA dropped]",
        text: "#cloud-config\nphone_home:\n  url: http://example.com/\n  post: [pub_key_dsa]\n",
        want: Invalid("phone_home.post.0"),
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#cc_phone_home[tries not an integer]",
        text: "#cloud-config\nphone_home:\n  url: http://example.com/\n  tries: many\n",
        want: Invalid("phone_home.tries"),
        ..ROW
    },
    // cc_ca_certs: no other keys; `trusted` has at least one item.
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#ca_certs.properties[unknown key]",
        text: "#cloud-config\nca_certs:\n  trusted: [abc]\n  bogus: 1\n",
        want: Invalid("ca_certs.bogus"),
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json#ca_certs.properties[trusted minItems 1]",
        text: "#cloud-config\nca_certs:\n  trusted: []\n",
        want: Invalid("ca_certs.trusted"),
        ..ROW
    },
    // The top level allows only the modules' keys: the image's own settings are refused.
    ConfigRow {
        upstream: "schema-cloud-config-v1.json[top level: datasource not allowed]",
        text: "#cloud-config\ndatasource:\n  Ec2:\n    timeout: 5\n",
        want: Invalid("datasource"),
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json[top level: datasource_list not allowed]",
        text: "#cloud-config\ndatasource_list: [NoCloud, None]\n",
        want: Invalid("datasource_list"),
        ..ROW
    },
    ConfigRow {
        upstream: "schema-cloud-config-v1.json[top level: network not allowed]; \
                   test_stages.py::TestInit::test__find_networking_config_returns_fallback",
        text: "#cloud-config\nnetwork: {version: 2, ethernets: {eth9: {dhcp4: true}}}\n",
        want: Invalid("network"),
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestAnnotatedCloudconfigFile::test_annotated_invalid_top_level_key",
        text: "#cloud-config\ninvalid_key: value\n",
        want: Valid,
        differs: Some("unknown top-level"),
        ..ROW
    },
    // write_files' third doc example: gzip content as `!!binary`.
    ConfigRow {
        upstream: "doc/module-docs/cc_write_files/example3.yaml (TestCloudConfigExamples)",
        text: "#cloud-config\nwrite_files:\n- encoding: gzip\n  content: !!binary |\n    H4sIAAAAAAACA1NW1E/KzNMvzuBKTc7IV8hIzcnJ5wIAedQ/FxUAAAA=\n  path: /usr/bin/hello\n  permissions: '0755'\n",
        ..ROW
    },
    // test_schema.py::TestValidateCloudConfigFile
    ConfigRow {
        upstream: "test_schema.py::TestValidateCloudConfigFile::test_validateconfig_file_error_on_invalid_header",
        text: "#junk",
        want: Invalid("format-l1.c1"),
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestValidateCloudConfigFile::test_validateconfig_file_error_on_non_yaml_scanner_error",
        text: "#cloud-config\nasdf:\nasdf",
        want: Invalid(""),
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestValidateCloudConfigFile::test_validateconfig_file_error_on_non_yaml_parser_error",
        text: "#cloud-config\n{}}",
        want: Invalid(""),
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestHandleSchemaArgs::test_handle_schema_args_unknown_header",
        text: "#bogus-config\nhostname: notgonnamakeit\n",
        want: Invalid("format-l1.c1"),
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestHandleSchemaArgs::test_handle_schema_unable_to_read_cfg_paths",
        text: "#cloud-config\npackages: [sl]\n",
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[ntp]",
        text: "#cloud-config\nntp:",
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[cloud-config ntp]",
        text: "#cloud-config\nntp:",
        args: &["--schema-type", "cloud-config"],
        ..ROW
    },
    ConfigRow {
        upstream: "integration cmd/test_schema.py::test_schema_deprecations",
        text: "#cloud-config\napt_update: false\napt_upgrade: false\napt_reboot_if_required: false\n",
        ..ROW
    },
    // Network config: test_main_validates_config_file's v1 subnets and v2 (no netplan), the
    // integration test's v1 documents.
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v2 dhcp]",
        text: "network: {'version': 2, 'ethernets': {'eth0': {'dhcp': true}}}",
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 dhcp]",
        text: v1_subnet!("dhcp"),
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 manual]",
        text: v1_subnet!("manual"),
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 static]",
        text: v1_subnet!("static"),
        args: NET,
        want: Invalid("network.config.0.subnets.0.address"),
        differs: Some("a static subnet without an address"),
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 static6]",
        text: v1_subnet!("static6"),
        args: NET,
        want: Invalid("network.config.0.subnets.0.address"),
        differs: Some("a static subnet without an address"),
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 dhcp6]",
        text: v1_subnet!("dhcp6"),
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 dhcp4]",
        text: v1_subnet!("dhcp4"),
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 ipv6_slaac]",
        text: v1_subnet!("ipv6_slaac"),
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 ipv6_dhcpv6-stateful]",
        text: v1_subnet!("ipv6_dhcpv6-stateful"),
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_config_file[v1 ipv6_dhcpv6-stateless]",
        text: v1_subnet!("ipv6_dhcpv6-stateless"),
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_system_userdata_vendordata_and_network_config[netv1_schema_errors_handled]",
        text: "network:\n version: 1\n config:\n  - type: physical\n   name: eth0\n    subnets:\n      - type: dhcp\n",
        args: NET,
        want: Invalid(""),
        ..ROW
    },
    ConfigRow {
        upstream: "test_schema.py::TestMain::test_main_validates_system_userdata_vendordata_and_network_config[netv1_schema_error_on_nic_name_length]",
        text: "network:\n version: 1\n config:\n  - type: physical\n    name: eth01234567890123\n    subnets:\n      - type: dhcp\n",
        args: NET,
        want: Invalid("network.config.0.name"),
        ..ROW
    },
    ConfigRow {
        upstream: "integration cmd/test_schema.py::test_network_config_schema_validation[v1]",
        text: "network:\n  version: 1\n  config:\n  - type: physical\n    name: eth0\n    subnets:\n      - type: dhcp\n",
        args: NET,
        ..ROW
    },
    ConfigRow {
        upstream: "integration cmd/test_schema.py::test_network_config_schema_validation[v1 junk]",
        text: "network:\n  version: 1\n  junk:\n  - type: physical\n    name: eth0\n    subnets:\n      - type: dhcp\n",
        args: NET,
        want: Invalid("network.junk"),
        ..ROW
    },
];

fn file(name: &str, text: &str) -> String {
    let path = scratch(&format!("cmd-{name}")).join("user-data");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// test_schema.py::TestMain::test_main_exclusive_args and test_main_missing_args: neither or
/// both of --config-file and --system is an error, exit 1.
#[test]
fn one_source_is_required() {
    let f = file("exclusive", "#cloud-config\n");
    for args in [
        &["schema"][..],
        &["schema", "--system", "--config-file", &f][..],
    ] {
        let (code, _, err) = ember(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains("Expected one of --config-file or --system arguments"),
            "{args:?}: {err}"
        );
    }
}

/// test_schema.py::TestMain::test_main_absent_config_file.
#[test]
fn absent_config_file() {
    let (code, _, err) = ember(&["schema", "--annotate", "--config-file", "NOT_A_FILE"]);
    assert_eq!(
        (code, err.as_str()),
        (1, "Error: Config file NOT_A_FILE does not exist\n")
    );
}

/// test_schema.py::TestValidateCloudConfigFile::test_validateconfig_file_no_cloud_cfg, and
/// test_main_validates_system_userdata_vendordata_and_network_config[empty_net_validation_is_skipped].
#[test]
fn empty_documents_are_not_validated() {
    let f = file("empty", "");
    let (code, out, _) = ember(&["schema", "--config-file", &f]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!("Empty 'cloud-config' found at {f}. Nothing to validate.\n")
    );
    let f = file("empty-net", "network: {}\n");
    let (code, out, _) = ember(&["schema", "--schema-type", "network-config", "-c", &f]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Skipping network-config schema validation on empty config.\n"
    );
}

/// test_schema.py::TestMain::test_main_ignores_schema_type.
#[test]
fn schema_type_is_ignored_with_system() {
    let root = scratch("cmd-ignored");
    let root = root.to_str().unwrap();
    let (_, out, _) = ember(&[
        "--target",
        root,
        "schema",
        "--schema-type",
        "network-config",
        "--system",
    ]);
    assert!(
        out.contains(
            "WARNING: The --schema-type parameter is inapplicable when --system is present"
        ),
        "{out}"
    );
}

/// integration cmd/test_schema.py::test_schema_deprecations and TestHandleSchemaArgs'
/// unannotated deprecations: exit 0, nothing on stderr, the deprecations on one line before
/// the verdict.
#[test]
fn deprecations_block() {
    let f = file(
        "deprecations",
        "#cloud-config\napt_update: false\napt_upgrade: false\napt_reboot_if_required: false\n",
    );
    let (code, out, err) = ember(&["schema", "--config-file", &f]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let (block, verdict) = out.split_once('\n').unwrap();
    assert!(
        block.starts_with("Cloud config schema deprecations: "),
        "{out}"
    );
    for key in ["apt_update: ", "apt_upgrade: ", "apt_reboot_if_required: "] {
        assert!(block.contains(key), "{key}: {out}");
    }
    assert_eq!(verdict, format!("Valid schema {f}\n"));
}

/// test_schema.py::TestMain::test_main_processed_data_preference_over_raw_data and
/// test_main_validates_system_userdata_vendordata_and_network_config: each instance document
/// is named by its type (`Valid schema user-data`); and (issue 34) each cloud-config part of a
/// MIME user-data is checked.
#[test]
fn system_names_documents_by_type_and_checks_mime_parts() {
    let root = scratch("cmd-system");
    let inst = root.join("var/lib/cloud/instance");
    std::fs::create_dir_all(&inst).unwrap();
    std::fs::write(inst.join("user-data.txt"), "#cloud-config\nntp:\n").unwrap();
    std::fs::write(
        inst.join("vendor-data.txt"),
        "#cloud-config\nssh_import_id: [me]\n",
    )
    .unwrap();
    std::fs::write(
        inst.join("vendor-data2.txt"),
        "#cloud-config\nssh_pwauth: true\n",
    )
    .unwrap();
    let target = root.to_str().unwrap();
    let (code, out, err) = ember(&["--target", target, "schema", "--system"]);
    assert_eq!(code, 0, "{out}{err}");
    for what in ["user-data", "vendor-data", "vendor2-data"] {
        assert!(
            out.contains(&format!(":\nValid schema {what}\n")),
            "{what}: {out}"
        );
    }

    let mime = "Content-Type: multipart/mixed; boundary=\"XX\"\nMIME-Version: 1.0\n\n\
                --XX\nContent-Type: text/cloud-config\nContent-Disposition: attachment; filename=\"a.yaml\"\n\n\
                #cloud-config\nruncmd: [ls]\n\
                --XX\nContent-Type: text/cloud-config\nContent-Disposition: attachment; filename=\"b.yaml\"\n\n\
                #cloud-config\nhostname: 123\n\
                --XX\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho hi\n--XX--\n";
    std::fs::write(inst.join("user-data.txt"), mime).unwrap();
    let (code, out, err) = ember(&["--target", target, "schema", "--system"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("Valid schema user-data part 1 (a.yaml)\n"),
        "{out}"
    );
    assert!(
        err.contains("Error: Invalid schema: user-data part 2 (b.yaml)\nhostname: line 2: "),
        "{err}"
    );
    assert!(
        out.contains(
            "User-data type 'text/x-shellscript' not currently evaluated by cloud-init schema"
        ),
        "{out}"
    );
}

/// cloudinit/handlers/jinja_template.py's render_jinja_payload_from_file: no instance data is
/// an error (exit 1) naming where it was looked for; with it, the rendered document is checked
/// (test_schema.py::TestHandleSchemaArgs::test_handle_schema_args_jinja_with_errors: an int
/// hostname).
#[test]
fn jinja_user_data_needs_instance_data() {
    let root = scratch("cmd-jinja");
    let f = root.join("user-data");
    std::fs::write(
        &f,
        "## template: jinja\n#cloud-config\nhostname: {{ ds.asdf }}\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let target = root.to_str().unwrap();
    let (code, _, err) = ember(&["--target", target, "schema", "--config-file", f]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not yet present at"), "{err}");
    let data = root.join("instance-data.json");
    std::fs::write(&data, r#"{"ds": {"asdf": 123}}"#).unwrap();
    let data = data.to_str().unwrap();
    let (code, out, err) = ember(&["schema", "--instance-data", data, "--config-file", f]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("\nhostname: line "), "{err}");
    assert!(out.starts_with(&format!("Invalid user-data {f}")), "{out}");
}

/// test_schema.py::TestHandleSchemaArgs: another part type is noted, not evaluated, exit 0.
#[test]
fn other_part_types_are_not_evaluated() {
    let f = file("script", "#!/bin/sh\necho hi\n");
    let (code, out, _) = ember(&["schema", "--config-file", &f]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "User-data type 'text/x-shellscript' not currently evaluated by cloud-init schema"
        ),
        "{out}"
    );
}

/// The command lines of cloud-init's integration tests (modules/test_combined.py's
/// test_cli_commands and modules/test_cli.py's test_modules_init), through the `cloud-init`
/// name: `collect-logs --redact-sensitive --tarfile`, `modules --mode init|config|final`,
/// `schema --config-file /dev/null [--annotate] [--instance-data F]`.
#[test]
fn cloud_init_spellings() {
    let dir = scratch("cmd-spellings");
    let alias = dir.join("cloud-init");
    std::os::unix::fs::symlink(crate::common::EMBER, &alias).unwrap();
    let (target, run) = (dir.join("target"), dir.join("run"));
    std::fs::create_dir_all(&target).unwrap();
    std::fs::create_dir_all(&run).unwrap();
    let cloud_init = |args: &[&str]| {
        let out = crate::common::run(
            std::process::Command::new(&alias)
                .env("EMBER_INITRD", crate::common::EMBER_INITRD)
                .arg("--target")
                .arg(&target)
                .arg("--run")
                .arg(&run)
                .args(args),
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code().unwrap_or(-1), text)
    };
    let tarball = dir.join("redacted.tar.gz");
    let tar = tarball.to_str().unwrap();
    let (code, text) = cloud_init(&["collect-logs", "--redact-sensitive", "--tarfile", tar]);
    assert_eq!(code, 0, "{text}");
    assert!(tarball.exists(), "{text}");
    // No handoff here: each mode says there is nothing to do, and exits 0.
    for mode in ["init", "config", "final"] {
        let (code, text) = cloud_init(&["modules", "--mode", mode]);
        assert_eq!(code, 0, "{mode}: {text}");
        assert!(text.contains("nothing to do"), "{mode}: {text}");
    }
    let data = dir.join("instance-data.json");
    std::fs::write(&data, "{}").unwrap();
    for extra in [
        &[][..],
        &["--annotate"],
        &["--annotate", "--instance-data", data.to_str().unwrap()],
    ] {
        let mut args = vec!["schema", "--config-file", "/dev/null"];
        args.extend_from_slice(extra);
        let (code, text) = cloud_init(&args);
        assert_eq!(code, 0, "{args:?}: {text}");
        assert!(
            text.contains("Empty 'cloud-config' found at /dev/null. Nothing to validate."),
            "{args:?}: {text}"
        );
    }
}
