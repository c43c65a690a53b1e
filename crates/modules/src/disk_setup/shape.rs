//! The declarative shapes of `disk_setup`, `fs_setup` and `device_aliases` (`ember schema`
//! checks them before the typed reader in `read`), after cloud-init's schema. A partition's
//! type may be a number (MBR) or a string (a GPT type code or GUID), as cloud-init takes it.

use crate::config::shape::{list, Fields, Lit, Shape};
use Shape::*;

const STRINGS: Shape = list(&Str, 0);

const LAYOUT_PART: Shape = OneOf(&[
    Int,
    Shape::List {
        item: &OneOf(&[Int, Str]),
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

pub const SHAPES: &[(&str, Shape)] = &[
    ("device_aliases", Dict(&Str)),
    ("disk_setup", Dict(&DISK)),
    ("fs_setup", list(&FS, 0)),
];
