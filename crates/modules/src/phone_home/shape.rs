//! The declarative shape of `phone_home` (`ember schema` checks it before the typed reader),
//! after cloud-init's schema.

use crate::config::shape::{list, Fields, Lit, Shape};
use Shape::*;

/// What `post` may name (cloud-init dropped DSA keys, and `pub_key_dsa` with them).
const PHONE_HOME_FIELDS: &[Lit] = &[
    Lit::S("pub_key_rsa"),
    Lit::S("pub_key_ecdsa"),
    Lit::S("pub_key_ed25519"),
    Lit::S("instance_id"),
    Lit::S("hostname"),
    Lit::S("fqdn"),
];
pub const PHONE_HOME: Shape = Map(&Fields {
    fields: &[
        ("url", Str),
        (
            "post",
            OneOf(&[Lit(&[Lit::S("all")]), list(&Lit(PHONE_HOME_FIELDS), 0)]),
        ),
        // cloud-init's module takes int() of it: digits in a string too (its schema does not);
        // other text is refused, as its schema does.
        ("tries", OneOf(&[Int, Pattern(all_digits, "an integer")])),
    ],
    required: &["url"],
    open: false,
});

fn all_digits(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}
