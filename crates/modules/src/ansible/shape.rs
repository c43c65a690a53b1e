//! The declarative shape of `ansible` (`ember schema` checks it before the typed reader),
//! after cloud-init's schema: `pull` is one mapping or, since 25.2, a list of them.
//! JSON-schema `number` fields (`timeout`, `forks`, ...) are `Any` here; the reader checks them.

use crate::config::shape::{list, Fields, Lit, Shape};
use Shape::*;

const PULL: Shape = Map(&Fields {
    fields: &[
        ("accept_host_key", Bool),
        ("clean", Bool),
        ("full", Bool),
        ("diff", Bool),
        ("ssh_common_args", Str),
        ("scp_extra_args", Str),
        ("sftp_extra_args", Str),
        ("private_key", Str),
        ("checkout", Str),
        ("module_path", Str),
        ("timeout", Str),
        ("url", Str),
        ("connection", Str),
        ("vault_id", Str),
        ("vault_password_file", Str),
        ("verify_commit", Bool),
        ("inventory", Str),
        ("module_name", Str),
        ("sleep", Str),
        ("tags", Str),
        ("skip_tags", Str),
        ("playbook_name", Str),
        ("playbook_names", list(&Str, 1)),
    ],
    required: &["url"],
    open: false,
});

const REPOSITORY: Shape = Map(&Fields {
    fields: &[("path", Str), ("source", Str)],
    required: &["path", "source"],
    open: false,
});

/// `run_ansible` items: cloud-init lists these keys but accepts others too.
const RUN_ANSIBLE: Shape = Map(&Fields {
    fields: &[
        ("playbook_name", Str),
        ("playbook_dir", Str),
        ("become_password_file", Str),
        ("connection_password_file", Str),
        ("list_hosts", Bool),
        ("syntax_check", Bool),
        ("timeout", Any),
        ("vault_id", Str),
        ("vault_password_file", Str),
        ("background", Any),
        ("check", Bool),
        ("diff", Bool),
        ("module_path", Str),
        ("poll", Any),
        ("args", Str),
        ("extra_vars", Str),
        ("forks", Any),
        ("inventory", Str),
        ("scp_extra_args", Str),
        ("sftp_extra_args", Str),
        ("private_key", Str),
        ("connection", Str),
        ("module_name", Str),
        ("sleep", Str),
        ("tags", Str),
        ("skip_tags", Str),
    ],
    required: &[],
    open: true,
});

const ANSIBLE: Shape = Map(&Fields {
    fields: &[
        ("install_method", Lit(&[Lit::S("distro"), Lit::S("pip")])),
        ("run_user", Str),
        ("ansible_config", Str),
        (
            "setup_controller",
            Map(&Fields {
                fields: &[
                    ("repositories", list(&REPOSITORY, 0)),
                    ("run_ansible", list(&RUN_ANSIBLE, 0)),
                ],
                required: &[],
                open: false,
            }),
        ),
        (
            "galaxy",
            Map(&Fields {
                fields: &[("actions", list(&list(&Str, 0), 0))],
                required: &["actions"],
                open: false,
            }),
        ),
        ("package_name", Str),
        ("pull", OneOf(&[PULL, list(&PULL, 0)])),
    ],
    required: &[],
    open: false,
});

pub const SHAPES: &[(&str, Shape)] = &[("ansible", ANSIBLE)];
