//! The declarative shapes of the apt keys (`ember schema` checks them before the typed reader
//! in `settings`), after cloud-init's schema: `apt` with its fields (no others), mirrors
//! needing `arches`, source entries of known fields (`keyurl` too, which cloud-init's newest
//! module reads). The old top-level apt keys, which
//! cloud-init's schema no longer lists but its module still converts, are deprecations here.

use crate::config::shape::{list, Fields, Shape};
use Shape::*;

const MIRROR: Shape = Map(&Fields {
    fields: &[
        ("arches", list(&Str, 1)),
        ("uri", Str),
        ("search", list(&Str, 1)),
        ("search_dns", Bool),
        ("keyid", Str),
        ("key", Str),
        ("keyserver", Str),
        ("keyurl", Str),
    ],
    required: &["arches"],
    open: false,
});

const SOURCE: Shape = Map(&Fields {
    fields: &[
        ("source", Str),
        ("filename", Str),
        ("append", Bool),
        ("keyid", Str),
        ("key", Str),
        ("keyserver", Str),
        ("keyurl", Str),
    ],
    required: &[],
    open: false,
});

const APT: Shape = Map(&Fields {
    fields: &[
        ("preserve_sources_list", Bool),
        ("disable_suites", list(&Str, 1)),
        ("primary", list(&MIRROR, 1)),
        ("security", list(&MIRROR, 1)),
        ("add_apt_repo_match", Str),
        ("debconf_selections", Dict(&Str)),
        ("sources_list", Str),
        ("conf", Str),
        ("https_proxy", Str),
        ("http_proxy", Str),
        ("proxy", Str),
        ("ftp_proxy", Str),
        ("sources", Dict(&SOURCE)),
    ],
    required: &[],
    open: false,
});

const fn old(shape: &'static Shape) -> Shape {
    Deprecated(
        shape,
        "use the apt key (cloud-init 22.1 deprecated this one)",
    )
}

pub const SHAPES: &[(&str, Shape)] = &[
    ("apt", APT),
    ("apt_sources", old(&OneOf(&[list(&Any, 0), Dict(&Any)]))),
    ("apt_mirror", old(&Str)),
    ("apt_mirror_search", old(&list(&Str, 0))),
    ("apt_mirror_search_dns", old(&Bool)),
    ("apt_proxy", old(&Str)),
    ("apt_http_proxy", old(&Str)),
    ("apt_ftp_proxy", old(&Str)),
    ("apt_https_proxy", old(&Str)),
    ("apt_preserve_sources_list", old(&Bool)),
    ("apt_custom_sources_list", old(&Str)),
    ("add_apt_repo_match", old(&Str)),
];
