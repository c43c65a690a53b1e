//! What each top-level cloud-config key of the modules ember implements accepts: one table,
//! written after cloud-init's cloud-config schema (`schema-cloud-config-v1.json`, 22.4) so the
//! two agree on what is valid; where ember deliberately differs, the row says why.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html>

use crate::config::shape::{list, Fields, Lit, Shape};
use Shape::*;

const STRINGS: Shape = list(&Str, 0);
const STRINGS1: Shape = list(&Str, 1);

const SSH_KEY_TYPES: &[Lit] = &[
    Lit::S("dsa"),
    Lit::S("ecdsa"),
    Lit::S("ed25519"),
    Lit::S("rsa"),
];
fn ssh_key_name(name: &str) -> bool {
    let Some((kind, what)) = name.rsplit_once('_') else {
        return false;
    };
    ["dsa", "ecdsa", "ed25519", "rsa"].contains(&kind)
        && ["public", "private", "certificate"].contains(&what)
}
/// `ssh_keys`: its keys are `<type>_{public,private,certificate}`, checked by `key_names`.
const SSH_KEYS: Shape = Dict(&Str);

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

const PACKAGE: Shape = OneOf(&[
    Shape::List {
        item: &Str,
        min: 2,
        max: 2,
    },
    Str,
]);
const PACKAGE_FLAG_OLD: Shape = Deprecated(&Bool, "use the package_* spelling");

const MANAGE_ETC_HOSTS: Shape = OneOf(&[
    Lit(&[Lit::B(true), Lit::B(false), Lit::S("localhost")]),
    Deprecated(&Lit(&[Lit::S("template")]), "use true"),
]);
const SSH_PUBLISH: Shape = Map(&Fields {
    fields: &[("enabled", Bool), ("blacklist", STRINGS)],
    required: &[],
    open: false,
});
const SSH_CONSOLE: Shape = Map(&Fields {
    fields: &[("emit_keys_to_console", Bool)],
    required: &["emit_keys_to_console"],
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
    ("hostname", Str),
    ("fqdn", Str),
    ("preserve_hostname", Bool),
    ("prefer_fqdn_over_hostname", Bool),
    ("create_hostname_file", Bool),
    ("manage_etc_hosts", MANAGE_ETC_HOSTS),
    ("ssh_keys", SSH_KEYS),
    ("ssh_authorized_keys", STRINGS1),
    ("ssh_deletekeys", Bool),
    ("ssh_genkeytypes", list(&Lit(SSH_KEY_TYPES), 1)),
    ("disable_root", Bool),
    ("disable_root_opts", Str),
    ("allow_public_ssh_keys", Bool),
    ("ssh_quiet_keygen", Bool),
    ("ssh_publish_hostkeys", SSH_PUBLISH),
    ("ssh", SSH_CONSOLE),
    ("ssh_key_console_blacklist", STRINGS),
    ("ssh_fp_console_blacklist", STRINGS),
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
    ("packages", list(&PACKAGE, 1)),
    ("package_update", Bool),
    ("package_upgrade", Bool),
    ("package_reboot_if_required", Bool),
    ("apt_update", PACKAGE_FLAG_OLD),
    ("apt_upgrade", PACKAGE_FLAG_OLD),
    ("apt_reboot_if_required", PACKAGE_FLAG_OLD),
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

/// Keys of mappings whose key names follow a rule: `ssh_keys`' `<type>_<part>`.
pub fn key_name_ok(top: &str, name: &str) -> Option<&'static str> {
    match top {
        "ssh_keys" if !ssh_key_name(name) => {
            Some("unknown key: expected <dsa|ecdsa|ed25519|rsa>_<public|private|certificate>")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_and_key_names() {
        assert!(super::size_text("512M") && super::size_text("1.5G") && super::size_text(".5T"));
        assert!(!super::size_text("512") && !super::size_text("M") && !super::size_text("1.G"));
        assert!(super::ssh_key_name("rsa_private") && !super::ssh_key_name("rsa_secret"));
        let keys: Vec<&str> = super::TOP.iter().map(|(k, _)| *k).collect();
        assert!(
            keys.iter().all(|k| crate::config::known_keys::is_known(k)),
            "{keys:?}"
        );
    }
}
