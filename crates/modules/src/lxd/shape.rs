//! The declarative shape of `lxd` (`ember schema` checks it before the typed reader), after
//! cloud-init's schema: `init`'s keys and backends, `bridge` with its required `mode`, and
//! `preseed` as text.

use crate::config::shape::{Fields, Lit, Shape};
use Shape::*;

const INIT: Fields = Fields {
    fields: &[
        ("network_address", Str),
        ("network_port", Int),
        (
            "storage_backend",
            Lit(&[Lit::S("zfs"), Lit::S("dir"), Lit::S("lvm"), Lit::S("btrfs")]),
        ),
        ("storage_create_device", Str),
        ("storage_create_loop", Int),
        ("storage_pool", Str),
        ("trust_password", Str),
    ],
    required: &[],
    open: false,
};

const BRIDGE: Fields = Fields {
    fields: &[
        (
            "mode",
            Lit(&[Lit::S("none"), Lit::S("existing"), Lit::S("new")]),
        ),
        ("name", Str),
        ("mtu", Int),
        ("ipv4_address", Str),
        ("ipv4_netmask", Int),
        ("ipv4_dhcp_first", Str),
        ("ipv4_dhcp_last", Str),
        ("ipv4_dhcp_leases", Int),
        ("ipv4_nat", Bool),
        ("ipv6_address", Str),
        ("ipv6_netmask", Int),
        ("ipv6_nat", Bool),
        ("domain", Str),
    ],
    required: &["mode"],
    open: false,
};

const LXD: Fields = Fields {
    fields: &[
        ("init", Map(&INIT)),
        ("bridge", Map(&BRIDGE)),
        ("preseed", Str),
    ],
    required: &[],
    open: false,
};

pub const SHAPES: &[(&str, Shape)] = &[("lxd", Map(&LXD))];
