#![cfg(feature = "ds-altcloud")]
//! AltCloud end to end: `ember-initrd all` with DMI saying RHEV and the user-data on a real
//! VFAT floppy image at /dev/fd0, with DMI saying VMware and a real ISO9660 CD labelled CDROM
//! (which OpenNebula, whose label it shares, leaves alone without a context.sh), with the
//! target's /etc/sysconfig/cloud-info naming the type, and without either sign.

use crate::common;
use common::{have, stderr, Machine};

const UD: &str = "#cloud-config\nruncmd:\n  - echo altcloud-ran\n";

fn check(m: &Machine, subplatform: &str) {
    let st = m.status();
    assert_eq!(st["datasource"], "altcloud", "{st}");
    assert_eq!(st["instance_id"], "455", "{st}");
    let idata = m.json("ember/instance-data.json");
    assert_eq!(idata["v1"]["subplatform"], subplatform);
    assert_eq!(idata["ds"]["meta_data"]["local-hostname"], "localhost");
    let runcmd = m.handoff_module("runcmd").to_string();
    assert!(runcmd.contains("altcloud-ran"), "{runcmd}");
    m.assert_secret_not_world_readable("altcloud-ran");
}

#[test]
fn rhev_floppy() {
    if !have("mkfs.vfat") || !have("mcopy") {
        return common::skip("dosfstools or mtools missing");
    }
    let m = Machine::new("alt-rhev");
    m.dmi("product_name", "RHEV Hypervisor");
    // Deltacloud's file wins over the plain one.
    m.vfat_seed(
        "fd0",
        "FLOPPY",
        &[
            ("deltacloud-user-data.txt", UD),
            (
                "user-data.txt",
                "#cloud-config\nruncmd: [echo wrong-file]\n",
            ),
        ],
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check(&m, "rhev (/dev/fd0)");
    assert!(!m
        .handoff_module("runcmd")
        .to_string()
        .contains("wrong-file"));
}

#[test]
fn vsphere_cdrom_and_cloud_info() {
    if !have("xorriso") {
        return common::skip("xorriso missing");
    }
    let m = Machine::new("alt-vsphere");
    m.dmi("product_name", "VMware Virtual Platform");
    m.iso_seed("sr0", "CDROM", &[("user-data.txt", UD)]);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check(&m, "vsphere (/dev/sr0)");

    // The image says vSphere, whatever DMI says.
    let m = Machine::new("alt-cloud-info");
    m.dmi("product_name", "Standard PC (i440FX + PIIX, 1996)");
    m.write(&m.target, "etc/sysconfig/cloud-info", b"vsphere\n");
    m.iso_seed("sr0", "CDROM", &[("user-data.txt", UD)]);
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    check(&m, "vsphere (/dev/sr0)");

    // Neither sign: the CD is no evidence of anything.
    let m = Machine::new("alt-none");
    m.iso_seed("sr0", "CDROM", &[("user-data.txt", UD)]);
    let out = m.initrd("detect");
    let text = common::stdout(&out);
    assert!(
        !text.contains("altcloud") && !text.contains("opennebula"),
        "{text}"
    );
}
