//! The declarative shapes of `mounts`, `mount_default_fields` and `swap` (`ember schema` checks
//! them before the typed reader in `read`), after cloud-init's schema. A mount entry's fields
//! may be null (`[vdb, null]` removes vdb's line, as cloud-init documents) or numbers (the
//! dump and pass fields, written unquoted).

use crate::config::shape::{list, Fields, Lit, Shape};
use Shape::*;

/// `512M`, `1.5G`: digits with an optional fraction and a unit.
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
    item: &OneOf(&[Str, Int, Null]),
    min: 1,
    max: 6,
};
const MOUNT_FIELDS: Shape = Shape::List {
    item: &OneOf(&[Str, Int, Null]),
    min: 6,
    max: 6,
};

pub const SHAPES: &[(&str, Shape)] = &[
    ("mounts", list(&MOUNT, 0)),
    ("mount_default_fields", MOUNT_FIELDS),
    ("swap", SWAP),
];

#[cfg(test)]
mod tests {
    #[test]
    fn sizes() {
        assert!(super::size_text("512M") && super::size_text("1.5G") && super::size_text(".5T"));
        assert!(!super::size_text("512") && !super::size_text("M") && !super::size_text("1.G"));
    }
}
