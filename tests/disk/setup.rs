//! disk_setup and fs_setup on real loop devices: a GPT table written in Rust and told to the
//! kernel partition by partition, filesystems made by the distribution's mkfs, aliases and
//! `disk.N` names, a disk with data left alone when overwrite is false, bad layouts and a
//! missing disk named by key while the other disks are still set up, and the same config on a
//! new instance changing nothing. Root only (SKIP elsewhere).

use crate::common;
use common::loopdev::{self, sh, Loop};
use common::Machine;

fn blkid(dev: &str, tag: &str) -> String {
    let out = std::process::Command::new("blkid")
        .args(["-p", "-o", "value", "-s", tag, dev])
        .output()
        .unwrap();
    common::stdout(&out).trim().to_string()
}

fn provision(m: &Machine, instance: &str, user_data: &str) {
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/nocloud",
        &[
            ("meta-data", &format!("instance-id: {instance}\n")),
            ("user-data", user_data),
        ],
    );
    m.initrd("all");
}

#[test]
fn disks_are_partitioned_formatted_and_data_is_left_alone() {
    if !loopdev::available() || !common::have("mkfs.ext4") || !common::have("blkid") {
        return;
    }
    let m = Machine::new("disk-setup");
    loopdev::real_host(&m);
    let a = Loop::new(&m.dir.join("a.img"), 64);
    let b = Loop::new(&m.dir.join("b.img"), 32);
    let c = Loop::new(&m.dir.join("c.img"), 32);
    let d = Loop::new(&m.dir.join("d.img"), 32);
    sh(&format!("mkfs.ext4 -q {}", b.dev));
    let b_uuid = blkid(&b.dev, "UUID");
    let user_data = format!(
        "#cloud-config
device_aliases: {{data: {a}}}
disk_setup:
  data: {{table_type: gpt, layout: [50, [50, 82]], overwrite: false}}
  {b}: {{table_type: mbr, layout: true, overwrite: false}}
  {c}: {{table_type: mbr, layout: [60, 60]}}
  {d}: {{layout: true}}
fs_setup:
  - {{label: data, filesystem: ext4, device: data.1}}
  - {{label: swp, filesystem: swap, device: data, partition: 2}}
  - {{label: other, filesystem: ext4, device: {b}, partition: none}}
  - {{filesystem: ext4, device: {d}.1, extra_opts: [-O, no_such_feature]}}
  - {{filesystem: zzfs, device: {d}.1}}
mounts:
  - [data.1, /data]
  - [{a}p2, none, swap, sw, '0', '0']
",
        a = a.dev,
        b = b.dev,
        c = c.dev,
        d = d.dev
    );
    provision(&m, "i-1", &user_data);

    let table: serde_json::Value =
        serde_json::from_str(&sh(&format!("sfdisk --json {}", a.dev))).unwrap();
    let parts = table["partitiontable"]["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{table}");
    assert_eq!(parts[1]["type"], "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F");
    assert_eq!(blkid(&a.part(1), "TYPE"), "ext4");
    assert_eq!(blkid(&a.part(1), "LABEL"), "data");
    assert_eq!(blkid(&a.part(2), "TYPE"), "swap");
    let data_uuid = blkid(&a.part(1), "UUID");
    // The disk that held a filesystem: untouched, and the status says so.
    assert_eq!(blkid(&b.dev, "UUID"), b_uuid);
    assert_eq!(blkid(&b.dev, "TYPE"), "ext4");
    let in_use = m
        .diag_with_code("disk-in-use")
        .expect("disk-in-use")
        .to_string();
    assert!(
        in_use.contains(&format!("disk_setup.{}", b.dev)),
        "{in_use}"
    );
    let fs_in_use = m
        .diag_with_code("fs-in-use")
        .expect("fs-in-use")
        .to_string();
    assert!(fs_in_use.contains("fs_setup.2"), "{fs_in_use}");
    // A layout over 100%: named by its key; its disk keeps no table.
    let bad = m
        .diag_with_code("bad-value")
        .expect("bad layout")
        .to_string();
    assert!(
        bad.contains(&format!("disk_setup.{}.layout", c.dev)),
        "{bad}"
    );
    assert_eq!(blkid(&c.dev, "PTTYPE"), "");
    let fstab = m.target_file("etc/fstab");
    assert!(
        fstab.contains(&format!("{}\t/data\tauto\t", a.part(1))),
        "{fstab}"
    );
    assert!(
        fstab.contains(&format!(
            "{}\tnone\tswap\tsw,comment=cloudconfig\t0\t0",
            a.part(2)
        )),
        "{fstab}"
    );

    // A new instance with the same config: the layout and the filesystems are there.
    provision(&m, "i-2", &user_data);
    assert_eq!(blkid(&a.part(1), "UUID"), data_uuid, "reformatted");
    assert_eq!(blkid(&b.dev, "UUID"), b_uuid);
}

#[test]
fn a_missing_disk_is_an_error_after_a_bounded_wait() {
    let m = Machine::new("disk-setup-missing");
    let started = std::time::Instant::now();
    provision(
        &m,
        "i-1",
        "#cloud-config\ndisk_setup:\n  /dev/vdq: {layout: true}\n",
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let d = m
        .diag_with_code("disk-no-device")
        .expect("disk-no-device")
        .to_string();
    assert!(d.contains("disk_setup./dev/vdq"), "{d}");
    assert_eq!(m.status()["stages"]["local"]["state"], "done");
}
