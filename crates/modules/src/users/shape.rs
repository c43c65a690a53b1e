//! The declarative shapes of `users`, `user` and `groups` (`ember schema` checks them before
//! the typed reader in `spec`), after cloud-init's `users_groups.user` and
//! `users_groups.groups_by_groupname` definitions.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#users-and-groups>

use crate::config::shape::{list, Fields, Shape};
use Shape::*;

const GROUP_NAMES: Shape = OneOf(&[Str, list(&Str, 1)]);

/// A user mapping: `name` (or `snapuser`) and the fields cloud-init knows.
pub const USER: Shape = OneOf(&[
    Map(&Fields {
        fields: USER_FIELDS,
        required: &["name"],
        open: false,
    }),
    Map(&Fields {
        fields: USER_FIELDS,
        required: &["snapuser"],
        open: false,
    }),
]);

const USER_FIELDS: &[(&str, Shape)] = &[
    ("name", Str),
    ("expiredate", Str),
    ("gecos", Str),
    (
        "groups",
        OneOf(&[
            Str,
            list(&Str, 1),
            Deprecated(
                &Dict(&Null),
                "use a list of group names or a comma-separated string",
            ),
        ]),
    ),
    ("homedir", Str),
    ("inactive", Str),
    ("lock_passwd", Bool),
    ("no_create_home", Bool),
    ("no_log_init", Bool),
    ("no_user_group", Bool),
    ("passwd", Str),
    ("hashed_passwd", Str),
    ("plain_text_passwd", Str),
    ("create_groups", Bool),
    ("primary_group", Str),
    ("selinux_user", Str),
    ("shell", Str),
    ("snapuser", Str),
    ("ssh_authorized_keys", list(&Str, 1)),
    ("ssh_import_id", list(&Str, 1)),
    ("ssh_redirect_user", Bool),
    ("system", Bool),
    // cloud-init 23.2's doas rules; ember's users module takes them (22.4's schema does not).
    ("doas", list(&Str, 0)),
    (
        "sudo",
        OneOf(&[
            Str,
            Null,
            list(&OneOf(&[Str, Null]), 0),
            Deprecated(&Bool, "use a sudo rule string, or leave sudo out"),
        ]),
    ),
    ("uid", OneOf(&[Int, Deprecated(&Str, "use an integer uid")])),
    // The old spellings cloud-init still reads (it turns every `-` of a user key into `_`),
    // deprecated since 18.3 (ssh-authorized-keys), 22.3 (lock-passwd) or 24.2 (the others).
    ("lock-passwd", Deprecated(&Bool, "use lock_passwd")),
    ("no-create-home", Deprecated(&Bool, "use no_create_home")),
    ("no-log-init", Deprecated(&Bool, "use no_log_init")),
    ("no-user-group", Deprecated(&Bool, "use no_user_group")),
    ("hashed-passwd", Deprecated(&Str, "use hashed_passwd")),
    (
        "plain-text-passwd",
        Deprecated(&Str, "use plain_text_passwd"),
    ),
    ("create-groups", Deprecated(&Bool, "use create_groups")),
    ("primary-group", Deprecated(&Str, "use primary_group")),
    ("selinux-user", Deprecated(&Str, "use selinux_user")),
    (
        "ssh-authorized-keys",
        Deprecated(&list(&Str, 1), "use ssh_authorized_keys"),
    ),
    (
        "ssh-import-id",
        Deprecated(&list(&Str, 1), "use ssh_import_id"),
    ),
    (
        "ssh-redirect-user",
        Deprecated(&Bool, "use ssh_redirect_user"),
    ),
];

/// `users`: a comma-separated string, a list of names, argv-like lists or mappings, or a
/// mapping of name to settings.
pub const USERS: Shape = OneOf(&[
    Str,
    // cloud-init 24.2+ documents `users: []` (no default user either).
    list(&OneOf(&[Str, list(&Str, 0), USER]), 0),
    Dict(&Any),
]);

/// `groups`: a name, `{group: members}`, or a list of names and `{group: members}` mappings.
const BY_NAME: Shape = Dict(&GROUP_NAMES);
pub const GROUPS: Shape = OneOf(&[Str, BY_NAME, list(&OneOf(&[Str, BY_NAME]), 1)]);
