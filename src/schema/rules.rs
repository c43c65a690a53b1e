//! The shapes of the top-level keys no module owns (the image's module lists), after
//! cloud-init's cloud-config schema. A module's keys have their shapes in the module's own
//! files (its `Reader`); keys of modules ember lacks are reported as not checked.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use crate::config::shape::{list, Fields, Shape};
use Shape::*;

/// A module list's items: a name, `[name, frequency, args...]` or `{name, frequency, args}`.
/// The names and frequencies are checked by the boot's own reading of the lists (`plan`).
const MODULE_LIST: Shape = list(
    &OneOf(&[
        Str,
        list(&Any, 1),
        Map(&Fields {
            fields: &[("name", Str), ("frequency", Str), ("args", Any)],
            required: &["name"],
            open: false,
        }),
    ]),
    0,
);

/// Every key this table describes, with its shape.
pub static TOP: &[(&str, Shape)] = &[
    ("cloud_init_modules", MODULE_LIST),
    ("cloud_config_modules", MODULE_LIST),
    ("cloud_final_modules", MODULE_LIST),
];

/// Keys the image's config sets (/etc/cloud/cloud.cfg) and the boot reads from there alone:
/// cloud-init's cloud-config schema has none of them, so user-data or vendor-data setting one
/// is an error there, and ember's boot ignores it there.
pub static IMAGE_ONLY: &[&str] = &[
    "allow_userdata",
    "datasource",
    "datasource_list",
    "def_log_file",
    "disable_network_activation",
    "disable_vmware_customization",
    "log_cfgs",
    "manual_cache_clean",
    // The boot takes network config from the command line, the image and the datasource only.
    "network",
    "syslog_fix_perms",
    "vendor_data2",
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
        let image = super::IMAGE_ONLY;
        assert!(
            image.iter().all(|k| crate::config::known_keys::is_known(k)),
            "{image:?}"
        );
    }
}
