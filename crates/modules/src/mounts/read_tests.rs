use super::*;
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

fn some(fields: [&str; 6]) -> [Option<String>; 6] {
    fields.map(|f| Some(f.to_string()))
}

fn fields(m: &Mount) -> [Option<String>; 6] {
    [
        Some(m.spec.clone()),
        m.file.clone(),
        m.fstype.clone(),
        m.options.clone(),
        m.freq.clone(),
        m.passno.clone(),
    ]
}

#[test]
fn nothing_asked_reads_as_nothing_to_do() {
    assert_eq!(read_ok(json!({})), Settings::default());
    assert_eq!(read_ok(json!({"mounts": null})), Settings::default());
}

#[test]
fn mounts_take_the_built_in_defaults() {
    let cfg = json!({"mounts": [
        ["vdb", "/data"],
        ["LABEL=logs", "/logs", "ext4", "noatime", 1, null],
        ["swap", null],
        [null, "/nowhere"],
    ]});
    let settings = read_ok(cfg);
    let got: Vec<_> = settings.mounts.iter().map(fields).collect();
    let mut removal = some(["swap", "", "auto", DEFAULT_OPTIONS, "0", "2"]);
    removal[1] = None;
    assert_eq!(
        got,
        [
            some(["vdb", "/data", "auto", DEFAULT_OPTIONS, "0", "2"]),
            some(["LABEL=logs", "/logs", "ext4", "noatime", "1", "2"]),
            removal,
        ]
    );
    let indexes: Vec<usize> = settings.mounts.iter().map(|m| m.index).collect();
    assert_eq!(indexes, [0, 1, 2]);
}

#[test]
fn mount_default_fields_fill_the_gaps_but_not_a_null_mount_point() {
    let cfg = json!({
        "mount_default_fields": [null, "/default", "xfs", "ro", "0", "0"],
        "mounts": [["vdb"], ["vdc", null]],
    });
    let settings = read_ok(cfg);
    assert_eq!(
        fields(&settings.mounts[0]),
        some(["vdb", "/default", "xfs", "ro", "0", "0"])
    );
    assert_eq!(settings.mounts[1].file, None);
}

#[test]
fn swap_sizes_are_bytes_or_auto() {
    let swap = |v: Value| read_ok(json!({ "swap": v })).swap;
    assert_eq!(
        swap(json!({"size": "512M"})),
        Some(Swap {
            filename: "/swap.img".into(),
            size: Some(SwapSize::Bytes(512 << 20)),
        })
    );
    assert_eq!(
        swap(json!({"filename": "/var/swap", "size": "Auto", "maxsize": 4096})),
        Some(Swap {
            filename: "/var/swap".into(),
            size: Some(SwapSize::Auto {
                maxsize: Some(4096)
            }),
        })
    );
    // No size: only a file made on an earlier run is kept.
    assert_eq!(swap(json!({})).and_then(|s| s.size), None);
}

#[test]
fn device_aliases_come_from_disk_setup_unreported() {
    let cfg = json!({"device_aliases": {"data": "/dev/vdb", "odd": [1]}});
    let aliases = read_ok(cfg).aliases;
    assert_eq!(aliases.len(), 1);
    assert_eq!(aliases["data"], "/dev/vdb");
}

/// Each problem: one diagnostic naming its key path; an error only where cloud-init's module
/// fails too. It warns and goes on for a `mounts` entry that is not a list (a string's
/// characters included), pads entries with any `mount_default_fields` list, and reads and
/// makes `swap` in one `try` that warns "failed to setup swap".
#[test]
fn each_problem_is_named_by_its_key() {
    let (error, warning) = (true, false);
    let cases = [
        (json!({"mounts": "vdb /data"}), "wrong-type@mounts", warning),
        (
            json!({"mounts": {"vdb": "/data"}}),
            "wrong-type@mounts",
            error,
        ),
        (
            json!({"mounts": [["vdb", "/a"], []]}),
            "wrong-type@mounts.1",
            warning,
        ),
        (
            json!({"mounts": [["a", "b", "c", "d", "e", "f", "g"]]}),
            "wrong-type@mounts.0",
            warning,
        ),
        (
            json!({"mounts": ["vdb /data"]}),
            "wrong-type@mounts.0",
            warning,
        ),
        (
            json!({"mount_default_fields": [null, null]}),
            "wrong-type@mount_default_fields",
            warning,
        ),
        (json!({"swap": null}), "wrong-type@swap", warning),
        (
            json!({"swap": {"filename": "swap.img", "size": "1G"}}),
            "bad-value@swap.filename",
            warning,
        ),
        (
            json!({"swap": {"size": "lots"}}),
            "bad-value@swap.size",
            warning,
        ),
        (
            json!({"swap": {"size": -1}}),
            "bad-value@swap.size",
            warning,
        ),
        (
            json!({"swap": {"size": "auto", "maxsize": [1]}}),
            "bad-value@swap.maxsize",
            warning,
        ),
    ];
    for (cfg, want, is_error) in cases {
        let mut diags = Vec::new();
        read(&cfg, &mut diags);
        assert_eq!(codes(&diags), [want], "{cfg}");
        assert_eq!(diags[0].is_error(), is_error, "{cfg}");
    }
}

#[test]
fn a_bad_swap_size_keeps_the_swap_file_name() {
    let mut diags = Vec::new();
    let settings = read(&json!({"swap": {"size": "lots"}}), &mut diags);
    let swap = settings.swap.expect("a swap file named");
    assert_eq!((swap.filename.as_str(), swap.size), ("/swap.img", None));
    // `maxsize` bounds `auto` only: with a size given it is not read.
    let mut diags = Vec::new();
    read(&json!({"swap": {"size": 1024, "maxsize": "x"}}), &mut diags);
    assert!(diags.is_empty());
}

/// A field fstab cannot hold (empty, a comment's `#` first, a carriage return or NUL) is an
/// error naming `mounts.N.I` and its entry is skipped; a bad default field is an error too
/// and the built-in defaults stand. Blanks and line breaks are not refused: they are escaped
/// when the line is written.
#[test]
fn fields_fstab_cannot_hold_are_refused_by_key() {
    let cfg = json!({"mounts": [
        ["/dev/sdb", "/data\r/dev/sdc /root ext4 defaults 0 0"],
        ["/dev/sdc", "/x", "", "defaults"],
        ["#/dev/sdd", "/y"],
        ["/dev/sde", "/my disk", "ext4", "defaults\nx"],
    ], "mount_default_fields": [null, null, "auto", "defaults\u{0}", "0", "2"]});
    let mut diags = Vec::new();
    let s = read(&cfg, &mut diags);
    assert_eq!(
        codes(&diags),
        [
            "bad-value@mount_default_fields.3",
            "bad-value@mounts.0.1",
            "bad-value@mounts.1.2",
            "bad-value@mounts.2.0",
        ]
    );
    assert_eq!(s.mounts.len(), 1);
    assert_eq!(s.mounts[0].file.as_deref(), Some("/my disk"));
}
