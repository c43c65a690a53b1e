use super::*;
use crate::disk_setup::{Make, Partition};
use serde_json::json;

/// The diagnostics as `code@key`.
fn codes(diags: &[Diag]) -> Vec<String> {
    diags
        .iter()
        .map(|d| format!("{}@{}", d.code, d.key.as_deref().unwrap_or("")))
        .collect()
}

fn read_ok(cfg: Value) -> Settings {
    let mut diags = Vec::new();
    let settings = read(&cfg, &mut diags);
    assert!(diags.is_empty(), "{cfg}: {diags:?}");
    settings
}

#[test]
fn nothing_asked_reads_as_nothing_to_do() {
    assert_eq!(read_ok(json!({})), Settings::default());
    let nulls = json!({"disk_setup": null, "fs_setup": null, "device_aliases": null});
    assert_eq!(read_ok(nulls), Settings::default());
}

#[test]
fn disks_are_read_in_order_and_those_left_alone_dropped() {
    let settings = read_ok(json!({"disk_setup": {
        "/dev/sdb": {"table_type": "gpt", "layout": [50, [50, 82]], "overwrite": true},
        "/dev/sdc": {"layout": true},
        "/dev/sdd": {"layout": "Remove", "overwrite": "yes"},
        "/dev/sde": {"layout": false, "table_type": "zfs"},
        "/dev/sdf": {"table_type": "gpt"},
    }}));
    let disk = |name: &str, table_type, layout, overwrite| Disk {
        name: name.into(),
        table_type,
        layout,
        overwrite,
    };
    assert_eq!(
        settings.disks,
        [
            disk(
                "/dev/sdb",
                TableKind::Gpt,
                Layout::Partitions(vec![json!(50), json!([50, 82])]),
                true
            ),
            disk("/dev/sdc", TableKind::Mbr, Layout::Whole, false),
            disk("/dev/sdd", TableKind::Mbr, Layout::Remove, false),
        ]
    );
}

#[test]
fn filesystems_take_their_partition_from_the_device_or_the_key() {
    let settings = read_ok(json!({"fs_setup": [
        {"device": "data.2", "partition": "auto", "filesystem": "ext4", "label": "d"},
        {"device": "/dev/sdb", "partition": "None", "filesystem": "xfs", "overwrite": true,
         "extra_opts": "-m 0  -K"},
        {"device": "sdc", "partition": 3, "filesystem": "swap", "extra_opts": ["-v", 1]},
        {"device": "sdd", "partition": "AUTO", "filesystem": "btrfs", "replace_fs": "ntfs"},
        {"device": "sde", "cmd": "mkfs -t %(filesystem)s %(device)s", "extra_opts": 7},
        {"device": "sdf", "cmd": ["mkfs.vfat", 32]},
    ]}));
    let fs = &settings.filesystems;
    assert_eq!(fs.len(), 6);
    assert_eq!(
        (fs[0].disk.as_str(), fs[0].partition),
        ("data", Partition::Number(2))
    );
    assert_eq!(fs[0].label.as_deref(), Some("d"));
    assert_eq!(fs[1].partition, Partition::WholeDisk);
    assert!(fs[1].overwrite);
    let mkfs = |filesystem: &str, opts: &[&str]| Make::Mkfs {
        filesystem: filesystem.into(),
        extra_opts: opts.iter().map(|o| o.to_string()).collect(),
    };
    assert_eq!(fs[1].make, mkfs("xfs", &["-m", "0", "-K"]));
    assert_eq!(fs[2].partition, Partition::Number(3));
    assert_eq!(fs[2].make, mkfs("swap", &["-v", "1"]));
    assert_eq!(fs[3].partition, Partition::Auto);
    assert_eq!(fs[3].replace_fs.as_deref(), Some("ntfs"));
    // With cmd, extra_opts are not used, so not read either.
    assert_eq!(fs[4].partition, Partition::Any);
    assert_eq!(
        fs[4].make,
        Make::Shell("mkfs -t %(filesystem)s %(device)s".into())
    );
    assert_eq!(
        fs[5].make,
        Make::Argv(vec!["mkfs.vfat".into(), "32".into()])
    );
    assert_eq!(fs[5].index, 5);
}

#[test]
fn aliases_are_the_string_entries() {
    let cfg = json!({"device_aliases": {"data": "/dev/vdb", "odd": 5}});
    let want = Aliases::from([("data".to_string(), "/dev/vdb".to_string())]);
    assert_eq!(read_ok(cfg).aliases, want);
    assert_eq!(
        aliases(&json!({"device_aliases": ["/dev/vdb"]})),
        Aliases::new()
    );
}

/// Each problem: one diagnostic naming its key path, and its entry left out.
#[test]
fn each_problem_is_named_by_its_key() {
    let cases = [
        (json!({"disk_setup": [1]}), "wrong-type@disk_setup"),
        (json!({"fs_setup": {"a": 1}}), "wrong-type@fs_setup"),
        (
            json!({"disk_setup": {"sdb": true}}),
            "wrong-type@disk_setup.sdb",
        ),
        (
            json!({"disk_setup": {"sdb": {"layout": true, "table_type": "GPT"}}}),
            "bad-value@disk_setup.sdb.table_type",
        ),
        (
            json!({"disk_setup": {"sdb": {"layout": "all"}}}),
            "bad-value@disk_setup.sdb.layout",
        ),
        (json!({"fs_setup": ["sdb"]}), "wrong-type@fs_setup.0"),
        (
            json!({"fs_setup": [{"filesystem": "ext4"}]}),
            "missing-key@fs_setup.0.device",
        ),
        (
            json!({"fs_setup": [{"device": "sdb", "partition": "first", "filesystem": "ext4"}]}),
            "bad-value@fs_setup.0.partition",
        ),
        (
            json!({"fs_setup": [{"device": "sdb", "cmd": {"sh": 1}}]}),
            "wrong-type@fs_setup.0.cmd",
        ),
        (
            json!({"fs_setup": [{"device": "sdb"}]}),
            "missing-key@fs_setup.0.filesystem",
        ),
        (
            json!({"fs_setup": [{"device": "sdb", "filesystem": "ext4", "extra_opts": 1}]}),
            "wrong-type@fs_setup.0.extra_opts",
        ),
    ];
    for (cfg, want) in cases {
        let mut diags = Vec::new();
        let settings = read(&cfg, &mut diags);
        assert_eq!(codes(&diags), [want], "{cfg}");
        assert!(diags[0].is_error(), "{cfg}");
        assert!(settings.disks.is_empty() && settings.filesystems.is_empty());
    }
}

#[test]
fn a_bad_entry_leaves_the_others() {
    let cfg = json!({"fs_setup": [
        {"device": "sdb"},
        {"device": "sdc", "filesystem": "ext4"},
    ]});
    let mut diags = Vec::new();
    let settings = read(&cfg, &mut diags);
    assert_eq!(codes(&diags), ["missing-key@fs_setup.0.filesystem"]);
    assert_eq!(settings.filesystems.len(), 1);
    assert_eq!(settings.filesystems[0].index, 1);
}
