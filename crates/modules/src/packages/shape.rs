//! The declarative shapes of the package keys (`ember schema` checks them before the typed
//! reader in `settings`), after cloud-init's schema: a package is a name or `[name, version]`,
//! and an item may also be `{apt: [...], snap: [...]}` (cloud-init 23.1+).

use crate::config::shape::{list, Fields, Shape};
use Shape::*;

const PACKAGE: Shape = OneOf(&[
    Shape::List {
        item: &Str,
        min: 2,
        max: 2,
    },
    Str,
]);
const BY_MANAGER: Shape = Map(&Fields {
    fields: &[("apt", list(&PACKAGE, 0)), ("snap", list(&PACKAGE, 0))],
    required: &[],
    open: false,
});
const FLAG_OLD: Shape = Deprecated(&Bool, "use the package_* spelling");

pub const SHAPES: &[(&str, Shape)] = &[
    ("packages", list(&OneOf(&[PACKAGE, BY_MANAGER]), 1)),
    ("package_update", Bool),
    ("package_upgrade", Bool),
    ("package_reboot_if_required", Bool),
    ("apt_update", FLAG_OLD),
    ("apt_upgrade", FLAG_OLD),
    ("apt_reboot_if_required", FLAG_OLD),
];
