#![cfg(feature = "ds-vmware")]
//! VMware and OVF end to end: `ember-initrd all` on an OVF CD made with xorriso (labelled as
//! vSphere labels it, and under another label found by its content), and on VMware's
//! guestinfo table behind a stand-in `vmware-rpctool` (`emulator::vmware`): encodings,
//! the network config rendered for networkd, keys cleared after reading (`redact`), the
//! container transport (`VMX_GUESTINFO*`), faults (a failing tool, broken metadata, broken
//! XML), what is not VMware, and secrets kept out of world-readable files.

use crate::common;
use crate::common::target::Accounts;
use common::emulator::vmware as vmw;
use common::{have, stderr, Machine};
use std::path::PathBuf;

fn machine(name: &str) -> Machine {
    let m = Machine::new(name);
    let t = &m.target;
    m.write(t, "usr/lib/systemd/systemd-networkd", b"");
    Accounts::root().group("sudo", 27).shadow().write(t);
    std::fs::create_dir_all(t.join("home")).unwrap();
    let cfg = "users: [default]\nsystem_info:\n  default_user:\n    name: debian\n";
    m.write(t, "etc/cloud/cloud.cfg", cfg.as_bytes());
    for (file, value) in [("address", vmw::MAC), ("type", "1")] {
        let path = format!("sys/class/net/ens192/{file}");
        m.write(&m.host, &path, format!("{value}\n").as_bytes());
    }
    m
}

fn vmware_dmi(m: &Machine) {
    m.dmi("sys_vendor", "VMware, Inc.");
    m.dmi("product_name", "VMware Virtual Platform");
    m.dmi("product_uuid", "4221E0C2-7B6F-4A55-9D1A-0F3E2B1C9D8E");
}

/// The stand-in tool's directory (for PATH) and its table's.
fn rpctool(m: &Machine, table: &[(String, String)], fail: bool) -> (String, PathBuf) {
    let (bin, dir) = (m.dir.join("tools"), m.dir.join("guestinfo"));
    vmw::fake_rpctool(&bin, &dir, table, fail);
    let path = format!("{}:/usr/sbin:/usr/bin:/sbin:/bin", bin.display());
    (path, dir)
}

fn networkd(m: &Machine) -> String {
    let dir = m.target.join("etc/systemd/network");
    let mut out = String::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push_str(&std::fs::read_to_string(e.path()).unwrap());
    }
    out
}

#[test]
fn ovf_cd_provisions() {
    if !have("xorriso") {
        return;
    }
    let m = machine("ovf-cd");
    m.iso_seed("sr0", "OVF ENV", &[("ovf-env.xml", &vmw::ovf_fixture())]);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["datasource"], "ovf", "{st}");
    assert_eq!(st["instance_id"], "iid-ovf-5a2c", "{st}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    let idata = m.json("cloud-init/instance-data.json");
    assert_eq!(idata["v1"]["subplatform"], "ovf (iso)", "{}", idata["v1"]);
    assert_eq!(idata["v1"]["platform"], "ovf");
    assert_eq!(idata["v1"]["cloud_id"], "ovf");
    assert_eq!(m.run_file("cloud-init/cloud-id-ovf"), "ovf\n");
    assert_eq!(m.target_file("etc/hostname").trim(), "ovf-guest-1");
    assert_eq!(
        m.target_file("etc/ovf-ud").trim(),
        "ovf-user-data-secret-0e44"
    );
    let keys = m.target_file("home/debian/.ssh/authorized_keys");
    assert!(keys.contains(vmw::OVF_KEY), "{keys}");
    // The password property is the default user's password, hashed into shadow.
    let shadow = m.target_file("etc/shadow");
    let line = shadow.lines().find(|l| l.starts_with("debian:")).unwrap();
    assert!(line.starts_with("debian:$6$"), "{line}");
    let net = networkd(&m);
    assert!(net.contains(&format!("MACAddress={}", vmw::MAC)), "{net}");
    assert!(net.contains("DHCP=ipv4"), "{net}");
    // Hashed at once: the plain password is in no file ember wrote, whatever its mode.
    for (rel, _) in Machine::tree(&m.dir) {
        let path = m.dir.join(&rel);
        if rel.starts_with("run/") && path.is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            assert!(!text.contains(vmw::PASSWORD), "plain password in {rel}");
        }
    }
    for secret in [vmw::PASSWORD, "ovf-user-data-secret-0e44"] {
        m.assert_secret_not_world_readable(secret);
    }
}

#[test]
fn ovf_cd_found_by_content_and_broken_xml_named() {
    if !have("xorriso") {
        return;
    }
    // Another label, a small disc: ds-identify looks inside for the OVF namespace.
    let m = machine("ovf-content");
    let xml = vmw::ovf_env(&[("instance-id", "iid-by-content")]);
    m.iso_seed("sr0", "CDROM", &[("OVF-ENV.XML", &xml)]);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "iid-by-content");
    // Broken XML fails the datasource with the file and line, never the content.
    let m = machine("ovf-broken");
    let xml = vmw::ovf_env(&[("password", "pw-never-shown")]).replace("</PropertySection>", "");
    m.iso_seed("sr0", "OVF ENV", &[("ovf-env.xml", &xml)]);
    m.initrd("all");
    let d = m
        .diag_with_code("xml-syntax")
        .expect("xml-syntax diagnostic");
    assert_eq!(d["file"], "/dev/sr0: ovf-env.xml", "{d}");
    assert!(d["line"].as_u64().is_some(), "{d}");
    assert!(!m.status().to_string().contains("pw-never-shown"));
    // A plain data CD is no OVF transport: nothing is chosen.
    let m = machine("ovf-none");
    m.iso_seed("sr0", "DATA", &[("readme.txt", "hello")]);
    m.initrd("all");
    assert!(
        m.diag_with_code("no-datasource").is_some(),
        "{:?}",
        m.diags()
    );
}

#[test]
fn guestinfo_provisions_renders_network_and_redacts() {
    let m = machine("vmw-guestinfo");
    vmware_dmi(&m);
    let (path, table) = rpctool(&m, &vmw::table(), false);
    let out = m.initrd_env(&["all"], &[("PATH", &path)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["datasource"], "vmware", "{st}");
    assert_eq!(st["instance_id"], vmw::INSTANCE_ID, "{st}");
    assert!(m.diags().is_empty(), "{:?}", m.diags());
    let idata = m.json("cloud-init/instance-data.json");
    let v1 = &idata["v1"];
    assert_eq!(v1["subplatform"], "guestinfo (guestinfo.metadata)", "{v1}");
    assert_eq!(v1["platform"], "vmware", "{v1}");
    assert_eq!(v1["cloud_name"], "vmware", "{v1}");
    assert_eq!(v1["cloud_id"], "vmware", "{v1}");
    assert_eq!(m.run_file("cloud-init/cloud-id-vmware"), "vmware\n");
    assert_eq!(m.target_file("etc/hostname").trim(), vmw::HOSTNAME);
    assert_eq!(
        m.target_file("etc/vmware-ud").trim(),
        "guestinfo-user-data-secret-3b7f"
    );
    let keys = m.target_file("home/debian/.ssh/authorized_keys");
    assert!(keys.contains(vmw::KEY), "{keys}");
    let runcmd = m.handoff_module("runcmd").to_string();
    assert!(runcmd.contains("vmware-vendor-data-ran"), "{runcmd}");
    let net = networkd(&m);
    for want in [
        &format!("MACAddress={}", vmw::MAC),
        "Address=192.168.10.20/24",
        "Gateway=192.168.10.1",
        "DNS=192.168.10.1",
    ] {
        assert!(net.contains(want), "{want} missing in\n{net}");
    }
    // `redact: [userdata, vendordata]`: cleared in the table after reading, as cloud-init.
    for key in ["userdata", "vendordata"] {
        let v = std::fs::read_to_string(table.join(key)).unwrap();
        assert_eq!(v, "---", "guestinfo.{key}");
        let e = std::fs::read_to_string(table.join(format!("{key}.encoding"))).unwrap();
        assert_eq!(e, " ", "guestinfo.{key}.encoding");
    }
    assert!(std::fs::read_to_string(table.join("metadata"))
        .unwrap()
        .contains("instance-id"));
    m.assert_secret_not_world_readable("guestinfo-user-data-secret-3b7f");
}

#[test]
fn envvar_transport_for_containers() {
    let m = machine("vmw-envvar");
    let md = r#"{"instance-id": "iid-container", "local-hostname": "ctr-1"}"#;
    let ud = vmw::b64(vmw::USER_DATA);
    let vars = [
        ("VMX_GUESTINFO", "true"),
        ("VMX_GUESTINFO_METADATA", md),
        ("VMX_GUESTINFO_USERDATA", ud.as_str()),
        ("VMX_GUESTINFO_USERDATA_ENCODING", "b64"),
    ];
    let out = m.initrd_env(&["all"], &vars);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let st = m.status();
    assert_eq!(st["datasource"], "vmware", "{st}");
    assert_eq!(st["instance_id"], "iid-container", "{st}");
    let idata = m.json("cloud-init/instance-data.json");
    assert_eq!(
        idata["v1"]["subplatform"],
        "envvar (VMX_GUESTINFO_METADATA)"
    );
    assert_eq!(
        m.target_file("etc/vmware-ud").trim(),
        "guestinfo-user-data-secret-3b7f"
    );
    // Without the switch the variables are not read.
    let m = machine("vmw-envvar-off");
    let out = m.initrd_env(&["all"], &vars[1..]);
    assert!(
        m.diag_with_code("no-datasource").is_some(),
        "{}",
        stderr(&out)
    );
}

#[test]
fn guestinfo_faults() {
    // Broken metadata fails its key: the DMI UUID is the instance id, user-data still applies.
    let m = machine("vmw-bad-md");
    vmware_dmi(&m);
    let mut table = vmw::table();
    table[0].1 = "instance-id: [unclosed\n".into();
    let (path, _) = rpctool(&m, &table, false);
    let out = m.initrd_env(&["all"], &[("PATH", &path)]);
    assert_ne!(out.status.code(), Some(0));
    let d = m.diag_with_code("yaml-syntax").expect("yaml-syntax");
    assert_eq!(d["file"], "guestinfo.metadata", "{d}");
    assert!(d["line"].as_u64().is_some(), "{d}");
    assert_eq!(
        m.status()["instance_id"],
        "4221e0c2-7b6f-4a55-9d1a-0f3e2b1c9d8e"
    );
    assert!(m.target.join("etc/vmware-ud").exists());
    // A user-data whose encoding lies fails alone.
    let m = machine("vmw-bad-ud");
    vmware_dmi(&m);
    let mut table = vmw::table();
    table[1].1 = "%%% not base64".into();
    let (path, _) = rpctool(&m, &table, false);
    m.initrd_env(&["all"], &[("PATH", &path)]);
    let d = m.diag_with_code("bad-value").expect("bad-value");
    assert_eq!(d["file"], "guestinfo.userdata", "{d}");
    assert_eq!(m.status()["instance_id"], vmw::INSTANCE_ID);
    // A tool that fails (not really VMware): no evidence, no datasource.
    let m = machine("vmw-tool-fails");
    vmware_dmi(&m);
    let (path, _) = rpctool(&m, &vmw::table(), true);
    m.initrd_env(&["all"], &[("PATH", &path)]);
    assert!(
        m.diag_with_code("no-datasource").is_some(),
        "{:?}",
        m.diags()
    );
    // VMware's DMI without open-vm-tools: nothing to read, nothing chosen.
    let m = machine("vmw-no-tool");
    vmware_dmi(&m);
    m.initrd_env(&["all"], &[("PATH", "/nonexistent")]);
    assert!(
        m.diag_with_code("no-datasource").is_some(),
        "{:?}",
        m.diags()
    );
}

#[test]
fn guest_customization_is_found_and_refused_with_its_reason() {
    // VMware, tools with an empty table, open-vm-tools' deployPkg plugin and customization
    // switched on: VMware is chosen (ds-identify's `imc` check) and the fetch says why it stops.
    let m = machine("vmw-imc");
    vmware_dmi(&m);
    let (path, _) = rpctool(&m, &[], false);
    let plugin = "usr/lib/x86_64-linux-gnu/open-vm-tools/plugins/vmsvc/libdeployPkgPlugin.so";
    m.write(&m.target, plugin, b"ELF");
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-imc.cfg",
        b"disable_vmware_customization: false\n",
    );
    let out = m.initrd_env(&["all"], &[("PATH", &path)]);
    m.fell_back(&out);
    // Found by its evidence, refused: None stands in.
    assert_eq!(m.status()["datasource"], "none", "{}", m.status());
    assert!(m.status()["evidence"]
        .to_string()
        .contains("platform vmware"));
    let d = m
        .diag_with_code("vmware-customization-unsupported")
        .expect("the refusal");
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains("deployPkg plugin /usr/lib/x86_64-linux-gnu/open-vm-tools/"),
        "{msg}"
    );
    assert!(msg.contains("/etc/cloud/cloud.cfg.d/90-imc.cfg"), "{msg}");
    // Switched off (cloud-init's default): nothing is chosen.
    let m = machine("vmw-imc-off");
    vmware_dmi(&m);
    let (path, _) = rpctool(&m, &[], false);
    m.write(&m.target, plugin, b"ELF");
    m.initrd_env(&["all"], &[("PATH", &path)]);
    assert!(
        m.diag_with_code("no-datasource").is_some(),
        "{:?}",
        m.diags()
    );
}

#[test]
fn empty_guestinfo_leaves_ovf_its_turn() {
    if !have("xorriso") {
        return;
    }
    // VMware with tools but no guestinfo keys, and an OVF CD: OVF, later in the list, is used.
    let m = machine("vmw-then-ovf");
    vmware_dmi(&m);
    let (path, dir) = rpctool(&m, &[], false);
    m.iso_seed("sr0", "OVF ENV", &[("ovf-env.xml", &vmw::ovf_fixture())]);
    let out = m.initrd_env(&["all"], &[("PATH", &path)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["datasource"], "ovf");
    let idata = m.json("cloud-init/instance-data.json");
    assert_eq!(idata["v1"]["subplatform"], "ovf (iso)");
    // guestinfo.ovfEnv was asked first, as cloud-init's transport order has it.
    let calls = std::fs::read_to_string(dir.join(".calls")).unwrap();
    assert!(calls.contains("get ovfEnv"), "{calls}");
}

#[test]
fn ovf_seed_dir_with_seedfrom_path() {
    // The seed directory, whose environment points at a NoCloud seed in the target: the
    // environment's keys win, the seed's user-data replaces its, and from the seed directory
    // the network-config property is not read (cloud-init reads it from transports only).
    let m = machine("ovf-seed-dir");
    let props = [
        ("instance-id", "iid-seeddir"),
        ("seedfrom", "file:///var/lib/ovfseed/"),
        ("user-data", "#!/bin/sh\necho overridden"),
        (
            "network-config",
            &vmw::b64("network: {version: 2, ethernets: {e: {dhcp4: true}}}\n"),
        ),
    ];
    let seed = "/var/lib/cloud/seed/ovf/ovf-env.xml";
    m.write(&m.target, seed, vmw::ovf_env(&props).as_bytes());
    let md = "instance-id: iid-from-seed\nlocal-hostname: seeded-host\n";
    m.write(&m.target, "var/lib/ovfseed/meta-data", md.as_bytes());
    m.write(
        &m.target,
        "var/lib/ovfseed/user-data",
        vmw::OVF_USER_DATA.as_bytes(),
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "iid-seeddir");
    assert_eq!(m.target_file("etc/hostname").trim(), "seeded-host");
    assert!(m.target.join("etc/ovf-ud").exists(), "the seed's user-data");
    let idata = m.json("cloud-init/instance-data.json");
    let want = format!("ovf ({seed},file:///var/lib/ovfseed/)");
    assert_eq!(idata["v1"]["subplatform"], want.as_str());
    assert!(networkd(&m).is_empty(), "{}", networkd(&m));
    // DataSourceOVF's own seed path (the seed directory's parent), which ds-identify does not
    // look at: read when OVF is chosen otherwise (here `ds=ovf`).
    let m = machine("ovf-seed-parent");
    m.cmdline("root=/dev/vda1 ro ds=ovf");
    let props = [("instance-id", "iid-parent-seed")];
    m.write(
        &m.target,
        "/var/lib/cloud/seed/ovf-env.xml",
        vmw::ovf_env(&props).as_bytes(),
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "iid-parent-seed");
    // A URL is OVFNet's, which ember lacks: the datasource fails, naming the key.
    let m = machine("ovf-seed-url");
    let props = [("seedfrom", "http://10.0.0.1/seed/")];
    m.write(&m.target, seed, vmw::ovf_env(&props).as_bytes());
    m.initrd("all");
    let d = m
        .diag_with_code("seed-unreachable")
        .expect("seed-unreachable");
    assert_eq!(d["key"], "seedfrom", "{d}");
}

#[test]
fn guestinfo_through_the_targets_tool_chrooted() {
    if common::chroot::cannot_chroot() {
        return;
    }
    // No tool in the initramfs: the target's vmware-rpctool runs chrooted into it, with the
    // initramfs's /dev, /proc and /sys bound in for the run and unbound after.
    let m = machine("vmw-chroot");
    vmware_dmi(&m);
    let t = &m.target;
    for d in ["bin", "usr/bin", "dev", "proc", "sys"] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    std::fs::copy(common::chroot::BUSYBOX, t.join("bin/busybox")).unwrap();
    for applet in ["sh", "cat"] {
        std::os::unix::fs::symlink("busybox", t.join("bin").join(applet)).unwrap();
    }
    let table = t.join("guestinfo");
    vmw::fake_rpctool_seen(
        &t.join("usr/bin"),
        &table,
        "/guestinfo",
        &vmw::table(),
        false,
    );
    let out = m.initrd_env(&["all"], &[("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], vmw::INSTANCE_ID);
    assert_eq!(
        std::fs::read_to_string(table.join("userdata")).unwrap(),
        "---"
    );
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mounts.contains(&m.dir.display().to_string()),
        "a bind mount was left"
    );
}
