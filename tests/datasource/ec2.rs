//! The EC2 datasource end to end: `ember-initrd all` against the IMDS emulator on loopback
//! (`ember.metadata-url=`), DMI in the host tree, a networkd target: provisioning, the network
//! config, IMDSv2 only on AWS, 403 and 401, retries, deadlines, broken answers, detection
//! refusing weak evidence, and secrets kept out of every world-readable file.

use crate::common;
use crate::common::emulator;
use crate::common::target::Accounts;
use common::{stderr, Machine};
use emulator::ec2::{self as imds, Imds};
use emulator::{ok, status, Answer};
use std::time::Instant;

const NETWORKD: &str = "usr/lib/systemd/systemd-networkd";

pub(crate) fn aws_machine(name: &str, server: &Imds) -> Machine {
    let m = Machine::new(name);
    m.dmi("sys_vendor", "Amazon EC2");
    m.dmi("product_uuid", "ec2e1916-9099-7caf-fd21-012345abcdef");
    m.dmi("chassis_asset_tag", "Amazon EC2");
    target(&m, "");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    m
}

/// A Debian-like target with networkd, a default user, and short deadlines.
fn target(m: &Machine, extra_cfg: &str) {
    let t = &m.target;
    m.write(t, NETWORKD, b"");
    Accounts::root().user("admin").write(t);
    std::fs::create_dir_all(t.join("root")).unwrap();
    let cfg = format!(
        "users: [default]\nsystem_info:\n  default_user:\n    name: admin\nember:\n  limits:\n    request_timeout_ms: 2000\n    datasource_timeout_ms: 8000\n{extra_cfg}"
    );
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    // Both NICs are on the host, as ens5 and ens6 (cloud-init configures only the NICs the
    // host has; `ec2::network::tests::nics_the_host_does_not_have_are_left_out`).
    for (nic, mac) in [("ens5", imds::MAC0), ("ens6", imds::MAC1)] {
        for (file, value) in [("address", mac), ("type", "1")] {
            m.write(
                &m.host,
                &format!("sys/class/net/{nic}/{file}"),
                format!("{value}\n").as_bytes(),
            );
        }
    }
}

fn networkd_files(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    names
        .iter()
        .map(|p| {
            let body = std::fs::read_to_string(p).unwrap();
            format!("== {}\n{body}", p.file_name().unwrap().to_string_lossy())
        })
        .collect()
}

/// Every GET carried a token the emulator issued; none went without.
fn assert_imdsv2_only(server: &Imds) {
    let tokens = server.tokens();
    assert!(!tokens.is_empty(), "no token was asked for");
    for r in server.requests() {
        if r.method == "PUT" {
            assert_eq!(r.path, "/latest/api/token");
            assert_eq!(
                r.header("x-aws-ec2-metadata-token-ttl-seconds"),
                Some("21600")
            );
        } else {
            let t = r.header("x-aws-ec2-metadata-token");
            assert!(
                t.is_some_and(|t| tokens.iter().any(|x| x == t)),
                "GET {} without a valid token",
                r.path
            );
        }
    }
}

fn assert_secrets_kept(m: &Machine, server: &Imds, out: &std::process::Output) {
    let mut secrets = server.tokens();
    secrets.push("user-data-secret-7f3a".into());
    for s in &secrets {
        m.assert_secret_not_world_readable(s);
        assert!(!stderr(out).contains(s.as_str()), "secret on stderr");
        assert!(
            !common::stdout(out).contains(s.as_str()),
            "secret on stdout"
        );
    }
}

#[test]
fn provisions_from_imdsv2_with_two_nics() {
    let server = imds::start();
    let m = aws_machine("ec2-full", &server);
    let started = Instant::now();
    let out = m.initrd("all");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = m.status();
    assert_eq!(status["instance_id"], imds::INSTANCE_ID, "{status}");
    assert_eq!(status["datasource"], "ec2", "{status}");
    let v1 = &m.json("ember/instance-data.json")["v1"];
    assert_eq!(
        (&v1["cloud_name"], &v1["platform"]),
        (&"aws".into(), &"ec2".into())
    );
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    // Hostname, keys and user-data.
    assert_eq!(m.target_file("etc/hostname").trim(), "ip-10-0-1-5");
    let keys = m.target_file("home/admin/.ssh/authorized_keys");
    assert!(
        keys.contains(imds::KEY0) && keys.contains(imds::KEY1),
        "{keys}"
    );
    assert_eq!(
        m.target_file("etc/ec2-secret").trim(),
        "user-data-secret-7f3a"
    );
    // cloud-init's instance data: the region and zone from the identity document.
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["region"], "us-west-2");
    assert_eq!(idata["v1"]["availability_zone"], "us-west-2b");
    // The launch index user-data parts are filtered by.
    assert_eq!(idata["ds"]["meta-data"]["ami-launch-index"], "0");
    assert_eq!(
        idata["ds"]["meta-data"]["public-keys"]["my-public-key"][0],
        imds::KEY0
    );
    // The network: both NICs by MAC, metrics by device number, the secondary address with
    // its subnet's prefix, DHCPv6 where there is IPv6, policy routing on the second NIC.
    let net = networkd_files(&m);
    for want in [
        &format!("MACAddress={}", imds::MAC0),
        &format!("MACAddress={}", imds::MAC1),
        "RouteMetric=100",
        "RouteMetric=200",
        "Address=10.0.1.6/20",
        "Table=101",
        "From=10.0.16.7",
        "Gateway=10.0.16.1",
    ] {
        assert!(net.contains(want), "{want} missing:\n{net}");
    }
    assert!(!net.contains("Name=ens5"), "matched by MAC only:\n{net}");
    // cloud-init's EC2 default update events: hotplug, for the runner's install_hotplug.
    let hotplug = m.handoff_module("install_hotplug");
    assert_eq!(
        hotplug["config"]["updates"]["network"]["when"],
        serde_json::json!(["boot-new-instance", "hotplug"]),
        "{hotplug}"
    );
    // IMDSv2 throughout; only what is used, each once; the count in status.json.
    assert_imdsv2_only(&server);
    let reqs = server.requests();
    let paths: Vec<&str> = reqs.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(reqs.len(), 24, "{paths:?}");
    assert!(!paths.iter().any(|p| p.ends_with("/hostname")), "{paths:?}");
    let steps = status["stages"]["fetch"]["steps"].to_string();
    assert!(steps.contains("ok (24 reads)"), "{steps}");
    assert_secrets_kept(&m, &server, &out);
    eprintln!(
        "ec2 emulator: {} requests, ember-initrd all in {took:?}",
        reqs.len()
    );
}

/// The second NIC's policy routing (its own table, a rule per address, `use-routes`) goes
/// to the stacks that express it: netplan, as in cloud-init (upstream
/// `test_ec2.py::TestConvertEc2MetadataNetworkConfig::test_convert_ec2_metadata_network_config_multi_nics_ipv4`),
/// and networkd (`provisions_from_imdsv2_with_two_nics`). On ifupdown, which cannot express
/// it, it is left out as cloud-init leaves it out, and the boot is clean instead of
/// degraded by a warning for each rule (issue 37's noticed bug).
#[test]
fn policy_routing_is_left_out_where_the_stack_cannot_say_it() {
    let server = imds::start();
    let netplan = aws_machine("ec2-netplan", &server);
    std::fs::remove_file(netplan.target.join(NETWORKD)).unwrap();
    netplan.write(&netplan.target, "usr/sbin/netplan", b"");
    let out = netplan.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let yaml = netplan.target_file("etc/netplan/50-cloud-init.yaml");
    for want in [
        "routing-policy:",
        "table: 101",
        "from: 10.0.16.7",
        "use-routes: true",
    ] {
        assert!(yaml.contains(want), "{want} missing:\n{yaml}");
    }
    let eni = aws_machine("ec2-eni", &server);
    std::fs::remove_file(eni.target.join(NETWORKD)).unwrap();
    eni.write(&eni.target, "sbin/ifup", b"");
    eni.write(&eni.target, "etc/network/interfaces", b"");
    let out = eni.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(eni.diags().is_empty(), "{:?}", eni.diags());
    let rendered = eni.target_file("etc/network/interfaces.d/50-cloud-init");
    assert!(rendered.contains("metric 200"), "{rendered}");
    assert!(!rendered.contains("10.0.16.1"), "{rendered}");
}

/// The keys scripts and templates read, in cloud-init's layout: the meta-data tree as
/// crawled (`ds["meta-data"]`), the identity document under `ds.dynamic`, and the `v1` keys
/// derived from them; IAM credentials never asked for, the sensitive copy root's only.
#[test]
fn instance_data_has_the_keys_scripts_read() {
    let server = imds::start();
    let template = "## template: jinja\n#cloud-config\nwrite_files:\n  - path: /etc/where\n    content: \"{{ ds.meta_data.public_ipv4 }} {{ ds.meta_data.local_ipv4 }} {{ v1.availability_zone }} {{ ds.dynamic.instance_identity.document.accountId }}\"\n";
    server.set("/latest/user-data", vec![ok(template)]);
    let m = aws_machine("ec2-idata", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let idata = m.json("cloud-init/instance-data.json");
    let md = &idata["ds"]["meta-data"];
    for (key, want) in [
        ("local-ipv4", "10.0.1.5"),
        ("public-ipv4", imds::PUBLIC_IPV4),
        ("public-hostname", imds::PUBLIC_HOSTNAME),
        ("mac", imds::MAC0),
        ("instance-type", "t3.micro"),
        ("ami-id", "ami-0abcdef1234567890"),
        ("instance-id", imds::INSTANCE_ID),
    ] {
        assert_eq!(md[key], want, "ds.meta-data.{key} in {md}");
    }
    assert_eq!(md["placement"]["availability-zone"], "us-west-2b");
    assert_eq!(md["placement"]["region"], "us-west-2", "{md}");
    let doc = &idata["ds"]["dynamic"]["instance-identity"]["document"];
    assert_eq!(doc["accountId"], "123456789012", "{doc}");
    let v1 = &idata["v1"];
    for (key, want) in [
        ("availability_zone", "us-west-2b"),
        ("region", "us-west-2"),
        ("instance_id", imds::INSTANCE_ID),
        ("cloud_id", "aws"),
        ("cloud_name", "aws"),
        ("platform", "ec2"),
        ("local_hostname", "ip-10-0-1-5"),
    ] {
        assert_eq!(v1[key], want, "v1.{key} in {v1}");
    }
    assert!(v1["subplatform"]
        .as_str()
        .unwrap()
        .starts_with("metadata ("));
    // A template reads them by their jinja names.
    assert_eq!(
        m.target_file("etc/where").trim(),
        format!("{} 10.0.1.5 us-west-2b 123456789012", imds::PUBLIC_IPV4)
    );
    let sensitive = m.run.join("cloud-init/instance-data-sensitive.json");
    let mode = std::fs::metadata(&sensitive).unwrap().permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        !paths
            .iter()
            .any(|p| p.contains("iam") || p.contains("security-credentials")),
        "credentials are never fetched: {paths:?}"
    );
    m.assert_secret_not_world_readable("iam-secret-51c2");
}

/// A compatible cloud without an identity document: the leaves are asked for instead, the
/// region is the zone without its letter.
#[test]
fn without_an_identity_document_the_leaves_are_read() {
    let server = imds::start();
    let doc = "/latest/dynamic/instance-identity/document";
    server.set(doc, vec![status(404)]);
    let m = aws_machine("ec2-noidentity", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let idata = m.json("ember/instance-data.json");
    let md = &idata["ds"]["meta-data"];
    assert_eq!(md["instance-type"], "t3.micro", "{md}");
    assert_eq!(md["ami-id"], "ami-0abcdef1234567890", "{md}");
    assert_eq!(md["local-ipv4"], "10.0.1.5", "{md}");
    assert_eq!(md["placement"]["availability-zone"], "us-west-2b", "{md}");
    assert_eq!(md["placement"]["region"], "us-west-2", "{md}");
    assert_eq!(idata["v1"]["region"], "us-west-2");
    assert_eq!(idata["v1"]["availability_zone"], "us-west-2b");
    assert!(idata["ds"].get("dynamic").is_none(), "{}", idata["ds"]);
}

/// An instance without a public address has no `public-ipv4` (404): absent, no diagnostic.
/// Any other failure of an optional leaf is a warning naming it; the instance provisions.
#[test]
fn an_optional_leaf_that_fails_is_left_out_not_the_datasource() {
    let leaf = "/latest/meta-data/public-ipv4";
    for (answer, name) in [(404, "ec2-no-public-ip"), (500, "ec2-public-ip-5xx")] {
        let server = imds::start();
        server.set(leaf, vec![status(answer)]);
        let m = aws_machine(name, &server);
        let out = m.initrd("all");
        assert_eq!(
            m.status()["instance_id"],
            imds::INSTANCE_ID,
            "{answer}: {}",
            stderr(&out)
        );
        assert!(m
            .target_file("home/admin/.ssh/authorized_keys")
            .contains(imds::KEY0));
        let md = &m.json("cloud-init/instance-data.json")["ds"]["meta-data"];
        assert!(md.get("public-ipv4").is_none(), "{answer}: {md}");
        assert_eq!(
            md["public-hostname"],
            imds::PUBLIC_HOSTNAME,
            "{answer}: {md}"
        );
        let diags = m.diags();
        if answer == 404 {
            assert!(diags.is_empty(), "{diags:?}");
            continue;
        }
        assert_eq!(diags.len(), 1, "{diags:?}");
        let d = &diags[0];
        assert_eq!(d["severity"], "warning", "{d}");
        assert!(
            d["message"].as_str().unwrap().contains("public-ipv4"),
            "{d}"
        );
        assert!(
            d["file"]
                .as_str()
                .unwrap()
                .ends_with("meta-data/public-ipv4"),
            "{d}"
        );
    }
}

/// cloud-init's `device_name_to_device`: the mapping's `ephemeral0` and `swap` (`sdb`, `sdc`
/// to IMDS) are the hypervisor's `xvdb` and `xvdc` here; mounts' defaults find them.
#[test]
fn block_device_mapping_names_the_ephemeral_and_swap_disks() {
    let server = imds::start();
    let bdm = "/latest/meta-data/block-device-mapping";
    server.set(&format!("{bdm}/"), vec![ok("ami\nephemeral0\nroot\nswap")]);
    server.set(&format!("{bdm}/ephemeral0"), vec![ok("sdb")]);
    server.set(&format!("{bdm}/swap"), vec![ok("sdc\n")]);
    let m = aws_machine("ec2-bdm", &server);
    let mut xfs = b"XFSB".to_vec();
    xfs.resize(4096, 0);
    m.write(&m.host, "dev/xvdb", &xfs);
    m.write(&m.host, "dev/xvdc", b"");
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fstab = m.target_file("etc/fstab");
    assert!(fstab.contains("/dev/xvdb\t/mnt\tauto\t"), "{fstab}");
    assert!(fstab.contains("/dev/xvdc\tnone\tswap\t"), "{fstab}");
    let md = &m.json("cloud-init/instance-data.json")["ds"]["meta-data"];
    assert_eq!(
        md["block-device-mapping"],
        serde_json::json!({"ephemeral0": "sdb", "swap": "sdc"})
    );
    // No request for what no module resolves.
    let reqs = server.requests();
    assert!(
        !reqs
            .iter()
            .any(|r| r.path.ends_with("/ami") || r.path.ends_with("/root")),
        "{reqs:?}"
    );
    // A listing that fails is a warning; the instance provisions without it.
    let server = imds::start();
    server.set(&format!("{bdm}/"), vec![status(500)]);
    let m = aws_machine("ec2-bdm-500", &server);
    m.initrd("all");
    assert_eq!(m.status()["instance_id"], imds::INSTANCE_ID);
    let diags = m.diags();
    assert!(
        diags.iter().any(|d| d["severity"] == "warning"
            && d["message"]
                .as_str()
                .unwrap()
                .contains("block-device-mapping")),
        "{diags:?}"
    );
}

#[test]
fn primary_nic_only_when_the_image_asks() {
    let server = imds::start();
    let m = aws_machine("ec2-primary", &server);
    target(
        &m,
        "datasource:\n  Ec2:\n    apply_full_imds_network_config: false\n",
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let net = networkd_files(&m);
    assert!(net.contains(imds::MAC0), "{net}");
    assert!(!net.contains(imds::MAC1), "{net}");
    assert!(
        !net.contains("RouteMetric") && !net.contains("10.0.1.6"),
        "{net}"
    );
}

#[test]
fn token_forbidden_is_a_clear_error_and_the_boot_goes_on() {
    let server = imds::start();
    server.script.lock().unwrap().token_status = 403;
    let m = aws_machine("ec2-403", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("imds-disabled").expect("imds-disabled");
    assert!(d["message"].as_str().unwrap().contains("403"), "{d}");
    // No IMDSv1 attempt after the refusal, and the local stage still ran.
    assert!(server.requests().iter().all(|r| r.method == "PUT"));
    assert_eq!(server.requests().len(), 1);
    assert!(m.status()["stages"]["local"].is_object());
}

#[test]
fn never_imdsv1_on_aws() {
    let server = imds::start();
    {
        let mut s = server.script.lock().unwrap();
        s.token_status = 405;
        s.allow_v1 = true;
    }
    let m = aws_machine("ec2-nov1", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    assert!(
        m.diag_with_code("imds-token-refused").is_some(),
        "{:?}",
        m.diags()
    );
    assert!(
        server.requests().iter().all(|r| r.method == "PUT"),
        "{:?}",
        server.requests()
    );
}

#[test]
fn imdsv1_on_a_compatible_cloud_that_is_not_aws() {
    let server = imds::start();
    {
        let mut s = server.script.lock().unwrap();
        s.token_status = 405;
        s.allow_v1 = true;
    }
    let m = Machine::new("ec2-v1");
    m.dmi("sys_vendor", "OpenStack Foundation");
    target(&m, "");
    m.cmdline(&format!("ro ds=ec2 ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], imds::INSTANCE_ID);
    let gets = server
        .requests()
        .iter()
        .filter(|r| r.method == "GET")
        .count();
    assert!(gets > 5, "{:?}", server.requests());
    assert!(server.tokens().is_empty());
}

#[test]
fn an_expired_token_is_renewed_once() {
    let server = imds::start();
    server.script.lock().unwrap().expire_once = true;
    let m = aws_machine("ec2-401", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], imds::INSTANCE_ID);
    assert_eq!(server.tokens().len(), 2);
    assert_imdsv2_only(&server);
    assert_secrets_kept(&m, &server, &out);
}

#[test]
fn server_errors_are_retried_and_absences_are_not_errors() {
    let server = imds::start();
    let id = "/latest/meta-data/instance-id";
    server.set(id, vec![status(500), status(503), ok(imds::INSTANCE_ID)]);
    server.set("/latest/user-data", vec![status(404)]);
    let m = aws_machine("ec2-retry", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], imds::INSTANCE_ID);
    let n = server.requests().iter().filter(|r| r.path == id).count();
    assert_eq!(n, 3);
    assert!(m.diags().is_empty(), "{:?}", m.diags());
}

#[test]
fn truncated_identity_and_garbage_answers() {
    let server = imds::start();
    let doc = "/latest/dynamic/instance-identity/document";
    server.set(doc, vec![ok(&imds::IDENTITY[..40])]);
    let m = aws_machine("ec2-trunc-json", &server);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], imds::INSTANCE_ID);
    assert!(m.diag_with_code("metadata-invalid").is_some());

    // A body cut short and bytes that are not HTTP: retried, then a clear error, no panic.
    let server = imds::start();
    server.set(
        "/latest/meta-data/instance-id",
        vec![Answer::Truncated(b"i-123".to_vec())],
    );
    server.set(
        "/latest/user-data",
        vec![Answer::Garbage(b"\x00\x01 not http\r\n\r\n".to_vec())],
    );
    let m = aws_machine("ec2-garbage", &server);
    let out = m.initrd("all");
    m.fell_back(&out);
    let d = m.diag_with_code("fetch-failed").expect("fetch-failed");
    assert!(d["file"].as_str().unwrap().ends_with("instance-id"), "{d}");
}

#[test]
fn weak_dmi_evidence_is_not_ec2() {
    let server = imds::start();
    let m = Machine::new("ec2-weak");
    // cloud-init's `ec2*` UUID glob alone would claim this machine.
    m.dmi("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF");
    m.dmi("sys_vendor", "Dell Inc.");
    m.dmi("bios_vendor", "Dell Inc.");
    target(&m, "");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(m.status()["datasource"], "none", "{}", stderr(&out));
    assert!(server.requests().is_empty(), "no packet without evidence");

    // The same UUID with a serial that agrees (EC2 on Xen) is AWS.
    let m = Machine::new("ec2-xen");
    m.dmi("product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF");
    m.dmi("product_serial", "ec2e1916-9099-7caf-fd21-012345abcdef");
    target(&m, "");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "ec2");
    assert_imdsv2_only(&server);
}

/// EC2-compatible clouds that name themselves in DMI are found without `ds=`, and instance
/// data says which, as cloud-init's EC2 sub-platforms: platform `ec2`, the cloud's own name.
#[test]
fn compatible_clouds_are_named_in_instance_data() {
    let clouds: [(&str, &[(&str, &str)]); 6] = [
        (
            "brightbox",
            &[("product_serial", "srv-otuxg.gb1.brightbox.com")],
        ),
        ("zstack", &[("chassis_asset_tag", "123456.zstack.io")]),
        ("e24cloud", &[("sys_vendor", "e24cloud")]),
        ("tilaa", &[("sys_vendor", "Tilaa")]),
        (
            "outscale",
            &[
                ("sys_vendor", "3DS Outscale"),
                ("product_name", "3DS Outscale VM"),
            ],
        ),
        ("aws", &[]),
    ];
    for (cloud, dmi) in clouds {
        let server = imds::start();
        let m = Machine::new(&format!("ec2-{cloud}"));
        for (field, value) in dmi {
            m.dmi(field, value);
        }
        if cloud == "aws" {
            // Xen's own guest id, as EC2's older instances show it.
            m.write(
                &m.host,
                "sys/hypervisor/uuid",
                b"ec2c6e2f-5fac-4fc7-9c82-74127ec14bbb\n",
            );
        }
        target(&m, "");
        m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
        let out = m.initrd("all");
        assert_eq!(out.status.code(), Some(0), "{cloud}: {}", stderr(&out));
        assert_eq!(m.status()["datasource"], "ec2", "{cloud}");
        let v1 = &m.json("cloud-init/instance-data.json")["v1"];
        assert_eq!(v1["platform"], "ec2", "{cloud}: {v1}");
        assert_eq!(v1["cloud_name"], cloud, "{cloud}: {v1}");
        assert_eq!(v1["cloud_id"], cloud, "{cloud}: {v1}");
    }
}

#[test]
fn datasource_list_alone_selects_ec2() {
    let server = imds::start();
    let m = Machine::new("ec2-list");
    target(&m, "datasource_list: [Ec2, None]\n");
    m.cmdline(&format!("ro ember.metadata-url={}", server.url()));
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], imds::INSTANCE_ID);
}
