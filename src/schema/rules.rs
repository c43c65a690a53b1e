//! What each top-level cloud-config key of the modules ember implements accepts: one table,
//! written after cloud-init's cloud-config schema (`schema-cloud-config-v1.json`, 22.4) so the
//! two agree on what is valid; where ember deliberately differs, the row says why.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use crate::config::shape::{list, Fields, Lit, Shape};
use Shape::*;

const STRINGS: Shape = list(&Str, 0);

fn size_text(s: &str) -> bool {
    let Some(num) = s.strip_suffix(['B', 'K', 'M', 'G', 'T']) else {
        return false;
    };
    let (int, frac) = num.split_once('.').unwrap_or(("", num));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    !frac.is_empty() && digits(int) && digits(frac)
}
const SIZE: Shape = OneOf(&[Int, Pattern(size_text, "a size such as 512M or 2G")]);
const SWAP: Shape = Map(&Fields {
    fields: &[
        ("filename", Str),
        ("size", OneOf(&[Lit(&[Lit::S("auto")]), Int, SIZE])),
        ("maxsize", SIZE),
    ],
    required: &[],
    open: false,
});
const MOUNT: Shape = Shape::List {
    item: &Str,
    min: 1,
    max: 6,
};
const MOUNT_FIELDS: Shape = Shape::List {
    item: &OneOf(&[Str, Null]),
    min: 6,
    max: 6,
};

const LAYOUT_PART: Shape = OneOf(&[
    Int,
    Shape::List {
        item: &Int,
        min: 2,
        max: 2,
    },
]);
const DISK: Shape = Map(&Fields {
    fields: &[
        ("table_type", Lit(&[Lit::S("mbr"), Lit::S("gpt")])),
        (
            "layout",
            OneOf(&[Lit(&[Lit::S("remove")]), Bool, list(&LAYOUT_PART, 0)]),
        ),
        ("overwrite", Bool),
    ],
    required: &[],
    open: false,
});
const FS: Shape = Map(&Fields {
    fields: &[
        ("label", Str),
        ("filesystem", Str),
        ("device", Str),
        (
            "partition",
            OneOf(&[
                Lit(&[Lit::S("auto"), Lit::S("any"), Lit::S("none")]),
                Int,
                Pattern(|s| s.parse::<u32>().is_ok(), "a partition number"),
            ]),
        ),
        ("overwrite", Bool),
        ("replace_fs", Str),
        ("extra_opts", OneOf(&[STRINGS, Str])),
        ("cmd", OneOf(&[STRINGS, Str])),
    ],
    required: &[],
    open: false,
});

const VENDOR_DATA: Shape = Map(&Fields {
    fields: &[
        (
            "enabled",
            OneOf(&[Bool, Deprecated(&Str, "use true or false")]),
        ),
        ("prefix", OneOf(&[list(&OneOf(&[Str, Int]), 0), Str])),
    ],
    required: &[],
    open: false,
});
const MODULE_LIST: Shape = list(&OneOf(&[Str, list(&Str, 1)]), 0);

/// Every key this table describes, with its shape; keys not here are checked by their module's
/// reader (`modules_check::READ_WHOLE`) or not beyond being known (see `known_keys`).
pub static TOP: &[(&str, Shape)] = &[
    ("no_ssh_fingerprints", Bool),
    ("ssh_import_id", STRINGS),
    (
        "resize_rootfs",
        Lit(&[Lit::B(true), Lit::B(false), Lit::S("noblock")]),
    ),
    ("mounts", list(&MOUNT, 1)),
    ("mount_default_fields", MOUNT_FIELDS),
    ("swap", SWAP),
    ("device_aliases", Dict(&Str)),
    ("disk_setup", Dict(&DISK)),
    ("fs_setup", list(&FS, 0)),
    ("locale", Str),
    ("locale_configfile", Str),
    ("disable_ec2_metadata", Bool),
    ("vendor_data", VENDOR_DATA),
    ("cloud_init_modules", MODULE_LIST),
    ("cloud_config_modules", MODULE_LIST),
    ("cloud_final_modules", MODULE_LIST),
];

pub fn shape_of(key: &str) -> Option<&'static Shape> {
    TOP.iter().find(|(k, _)| *k == key).map(|(_, s)| s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_and_key_names() {
        assert!(super::size_text("512M") && super::size_text("1.5G") && super::size_text(".5T"));
        assert!(!super::size_text("512") && !super::size_text("M") && !super::size_text("1.G"));
        let keys: Vec<&str> = super::TOP.iter().map(|(k, _)| *k).collect();
        assert!(
            keys.iter().all(|k| crate::config::known_keys::is_known(k)),
            "{keys:?}"
        );
    }
}
