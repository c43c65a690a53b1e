//! The declarative shape of `write_files` (`ember schema` checks it before the typed reader),
//! after cloud-init's schema.

use crate::config::shape::{Fields, Lit, Shape};
use Shape::*;

pub const WRITE_FILE: Shape = Map(&Fields {
    fields: &[
        ("path", Str),
        ("content", Str),
        // ember's source fetch, and cloud-init's since 23.1 (22.4's schema lacks it).
        ("source", Map(&SOURCE)),
        ("owner", Str),
        // cloud-init's schema wants a string; its module (and ember's) also takes a number.
        (
            "permissions",
            Named(&Str, "a quoted octal string such as '0644'"),
        ),
        (
            "encoding",
            Lit(&[
                Lit::S("gz"),
                Lit::S("gzip"),
                Lit::S("gz+base64"),
                Lit::S("gzip+base64"),
                Lit::S("gz+b64"),
                Lit::S("gzip+b64"),
                Lit::S("b64"),
                Lit::S("base64"),
                Lit::S("text/plain"),
            ]),
        ),
        ("append", Bool),
        ("defer", Bool),
    ],
    required: &["path"],
    open: false,
});
const SOURCE: Fields = Fields {
    fields: &[("uri", Str), ("headers", Dict(&OneOf(&[Str, Int])))],
    required: &["uri"],
    open: false,
};
