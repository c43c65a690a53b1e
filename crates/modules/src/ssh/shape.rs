//! The declarative shapes of the ssh module's keys (`ember schema` checks them before the typed
//! reader in `settings`), after cloud-init's schema. The boot reads some more loosely, as
//! cloud-init's module does: a single string for `ssh_genkeytypes`, `yes`/`no` for booleans.

use crate::config::shape::{list, Fields, Lit, Shape};
use Shape::*;

const STRINGS: Shape = list(&Str, 0);

const KEY_TYPES: &[Lit] = &[
    Lit::S("dsa"),
    Lit::S("ecdsa"),
    Lit::S("ed25519"),
    Lit::S("rsa"),
];

/// `ssh_keys`' names: `<type>_{public,private,certificate}`.
fn key_name(name: &str) -> bool {
    let Some((kind, what)) = name.rsplit_once('_') else {
        return false;
    };
    ["dsa", "ecdsa", "ed25519", "rsa"].contains(&kind)
        && ["public", "private", "certificate"].contains(&what)
}

const PUBLISH: Shape = Map(&Fields {
    fields: &[("enabled", Bool), ("blacklist", STRINGS)],
    required: &[],
    open: false,
});

pub const SHAPES: &[(&str, Shape)] = &[
    (
        "ssh_keys",
        NamedKeys(
            key_name,
            "<dsa|ecdsa|ed25519|rsa>_<public|private|certificate>",
            &Str,
        ),
    ),
    ("ssh_authorized_keys", list(&Str, 1)),
    ("ssh_deletekeys", Bool),
    ("ssh_genkeytypes", list(&Lit(KEY_TYPES), 1)),
    ("disable_root", Bool),
    ("disable_root_opts", Str),
    ("allow_public_ssh_keys", Bool),
    ("ssh_quiet_keygen", Bool),
    ("ssh_publish_hostkeys", PUBLISH),
    // cloud-init's set_passwords owns it; ember applies it here, with the sshd config.
    (
        "ssh_pwauth",
        OneOf(&[Bool, Deprecated(&Str, "use true or false")]),
    ),
];

#[cfg(test)]
mod tests {
    #[test]
    fn key_names() {
        assert!(super::key_name("rsa_private") && super::key_name("ed25519_certificate"));
        assert!(!super::key_name("rsa_secret") && !super::key_name("rsa"));
    }
}
