//! The image config decides: datasource_list, inline NoCloud seeds (also from the initramfs
//! when the target has no config), allow_userdata, vendor_data, and MIME user-data with scripts.

use crate::common;
use common::{stderr, Machine};

const SEED_DIR: &str = "var/lib/cloud/seed/nocloud";

fn seeded(name: &str, user_data: &str, vendor_data: Option<&str>) -> Machine {
    let m = Machine::new(name);
    m.seed_files(
        &m.target,
        SEED_DIR,
        &[
            ("meta-data", "instance-id: i-cfg\n"),
            ("user-data", user_data),
        ],
    );
    if let Some(vd) = vendor_data {
        m.seed_files(&m.target, SEED_DIR, &[("vendor-data", vd)]);
    }
    m
}

#[test]
fn datasource_list_without_nocloud_ignores_the_seed_unless_the_cmdline_names_it() {
    let m = seeded("dslist", "", None);
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg.d/90-ds.cfg",
        // Two platforms, neither with evidence (a single one would be taken as it stands, as
        // cloud-init's ds-identify does, and EC2 would be asked).
        b"datasource_list: [Ec2, GCE, None]\n",
    );
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert_eq!(m.status()["datasource"], "none");

    std::fs::remove_dir_all(&m.run).unwrap();
    m.cmdline("ro ds=nocloud");
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert_eq!(m.status()["instance_id"], "i-cfg");
}

#[test]
fn inline_seed_in_the_initramfs_config() {
    let m = Machine::new("inline");
    let cfg = "datasource:\n  NoCloud:\n    meta-data: {instance-id: i-inline, local-hostname: inl}\n    user-data: |\n      #cloud-config\n      timezone: UTC\n";
    m.write(&m.host, "etc/cloud/cloud.cfg.d/10-seed.cfg", cfg.as_bytes());
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(m.status()["instance_id"], "i-inline");
    assert_eq!(
        m.json("cloud-init/combined-cloud-config.json")["timezone"],
        "UTC"
    );
    assert!(m.status()["evidence"].to_string().contains("image config"));
}

#[test]
fn allow_userdata_false_and_vendor_data_disabled() {
    let m = seeded(
        "noud",
        "#cloud-config\ntimezone: Europe/Berlin\n",
        Some("#cloud-config\nlocale: C.UTF-8\n"),
    );
    m.write(&m.target, "etc/cloud/cloud.cfg", b"allow_userdata: false\n");
    assert_eq!(m.initrd("all").status.code(), Some(0));
    let merged = m.json("cloud-init/combined-cloud-config.json");
    assert!(merged.get("timezone").is_none(), "user-data ignored");
    assert_eq!(merged["locale"], "C.UTF-8", "vendor-data still read");
    assert!(m.diag_with_code("userdata-disallowed").is_some());

    let m = seeded(
        "novd",
        "#cloud-config\nvendor_data: {enabled: false}\n",
        Some("#cloud-config\nlocale: C.UTF-8\n"),
    );
    assert_eq!(m.initrd("all").status.code(), Some(0));
    assert!(m
        .json("cloud-init/combined-cloud-config.json")
        .get("locale")
        .is_none());
}

#[test]
fn user_data_wins_over_vendor_data_over_image_config() {
    let m = seeded(
        "precedence",
        "#cloud-config\na: user\n",
        Some("#cloud-config\na: vendor\nb: vendor\n"),
    );
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg",
        b"a: image\nb: image\nc: image\n",
    );
    m.cmdline("ro cc: c: cmdline end_cc");
    assert_eq!(m.initrd("all").status.code(), Some(0));
    let merged = m.json("cloud-init/combined-cloud-config.json");
    assert_eq!(
        (
            merged["a"].as_str(),
            merged["b"].as_str(),
            merged["c"].as_str()
        ),
        (Some("user"), Some("vendor"), Some("cmdline"))
    );
}

#[test]
fn mime_user_data_scripts_land_in_the_instance_and_the_handoff() {
    let ud = "Content-Type: multipart/mixed; boundary=\"XX\"\nMIME-Version: 1.0\n\n--XX\nContent-Type: text/cloud-config\n\nhostname: mime\n--XX\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"setup.sh\"\n\n#!/bin/sh\necho setup\n--XX\nContent-Type: text/x-shellscript-per-boot\n\n#!/bin/sh\necho boot\n--XX\nContent-Type: text/cloud-boothook\n\n#cloud-boothook\necho hook\n--XX--\n";
    let m = seeded("mime", ud, None);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        m.json("cloud-init/combined-cloud-config.json")["hostname"],
        "mime"
    );
    let handoff = m.json("ember/handoff.json");
    let scripts = handoff["scripts"].as_array().unwrap();
    assert_eq!(scripts.len(), 1, "{scripts:?}");
    assert_eq!(
        scripts[0]["path"],
        "/var/lib/cloud/instances/i-cfg/scripts/setup.sh"
    );
    assert_eq!(scripts[0]["frequency"], "once-per-instance");
    // A per-boot part goes to the image's per-boot folder (scripts_per_boot runs it every
    // boot), as cloud-init's handler puts it: not one of the instance's scripts.
    let per_boot = Machine::tree(&m.target.join("var/lib/cloud/scripts/per-boot"));
    assert_eq!(per_boot.len(), 1, "{per_boot:?}");
    let setup = m
        .target
        .join("var/lib/cloud/instances/i-cfg/scripts/setup.sh");
    // The newline before a boundary belongs to the boundary (RFC 2046), as Python reads it.
    assert_eq!(
        std::fs::read_to_string(&setup).unwrap(),
        "#!/bin/sh\necho setup"
    );
    assert_eq!(Machine::mode(&setup), 0o700);
    assert_eq!(handoff["boothooks"].as_array().unwrap().len(), 1);
}
