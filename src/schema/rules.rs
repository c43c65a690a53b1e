//! The shapes of the top-level keys no module owns (the image's module lists), after
//! cloud-init's cloud-config schema. A module's keys have their shapes in the module's own
//! files (its `Reader`); keys of modules ember lacks are reported as not checked.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use crate::config::shape::{list, Shape};
use Shape::*;

const MODULE_LIST: Shape = list(&OneOf(&[Str, list(&Str, 1)]), 0);

/// Every key this table describes, with its shape.
pub static TOP: &[(&str, Shape)] = &[
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
    fn keys_are_known() {
        let keys: Vec<&str> = super::TOP.iter().map(|(k, _)| *k).collect();
        assert!(
            keys.iter().all(|k| crate::config::known_keys::is_known(k)),
            "{keys:?}"
        );
    }
}
