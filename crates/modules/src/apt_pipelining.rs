//! `apt_pipelining`: apt's `Acquire::http::Pipeline-Depth` in
//! `/etc/apt/apt.conf.d/90cloud-init-pipelining`, read as cloud-init reads it (the value's
//! text, lowercased): `false` writes depth 0, a number 0 to 5 writes that depth, `os` (and the
//! deprecated `none`, `unchanged`, or an empty value) leaves apt's own default. Anything else,
//! `true` included, is a warning and writes nothing, as in cloud-init.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#apt-pipelining>

use super::{ModCtx, RunnerModule};
use crate::config::reader::Reader;
use crate::config::shape::{Lit, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::Value;

pub const FILE: &str = "/etc/apt/apt.conf.d/90cloud-init-pipelining";

pub struct AptPipelining;

/// What the value asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Depth {
    /// Write this depth (`0` to `5`).
    Set(u8),
    /// Leave apt's default.
    Os,
    /// Not a value cloud-init takes: a warning, nothing written.
    Invalid,
}

/// cloud-init's reading: `str(value).lower().strip()`, so `true` is the word `true`, a
/// missing or null value `none`, `3.0` not a depth.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Depth {
    let text = match cfg.get("apt_pipelining") {
        None => "os".to_string(),
        Some(Value::Null) => "none".to_string(),
        Some(Value::String(s)) => s.to_lowercase().trim().to_string(),
        Some(other) => other.to_string().to_lowercase(),
    };
    let depth = match text.as_str() {
        "false" => Depth::Set(0),
        "none" | "unchanged" | "os" => Depth::Os,
        d => match d.parse::<u8>() {
            Ok(n) if n <= 5 && d.len() == 1 => Depth::Set(n),
            _ => Depth::Invalid,
        },
    };
    if depth == Depth::Invalid {
        let msg = "not false, os or a depth from 0 to 5: apt's pipelining left as it is";
        diags.push(Diag::warning(Reason::BadValue, msg).key("apt_pipelining"));
    }
    depth
}

/// The file's text for `depth`.
pub fn text(depth: u8) -> String {
    format!(
        "//Written by cloud-init per 'apt_pipelining'\nAcquire::http::Pipeline-Depth \"{depth}\";\n"
    )
}

/// After cloud-init's schema: an integer, a boolean, or `os` (`none` and `unchanged`
/// deprecated since 22.4).
const SHAPES: &[(&str, Shape)] = &[(
    "apt_pipelining",
    Shape::OneOf(&[
        Shape::Int,
        Shape::Bool,
        Shape::Lit(&[Lit::S("os")]),
        Shape::Deprecated(
            &Shape::Lit(&[Lit::S("none"), Lit::S("unchanged")]),
            "use os (cloud-init 22.4 deprecated none and unchanged)",
        ),
    ]),
)];

pub static READER: Reader = Reader {
    shapes: SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for AptPipelining {
    fn name(&self) -> &'static str {
        "apt_pipelining"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let Depth::Set(depth) = read(cfg, diags) else {
            return;
        };
        match ctx
            .root
            .write_file(FILE, text(depth).as_bytes(), &FileSpec::mode(0o644))
        {
            Ok(()) => ctx.exec.say(&format!(
                "apt_pipelining: wrote {FILE} with pipeline depth {depth}"
            )),
            Err(e) => diags.push(Diag::error(e.code(), e.to_string()).key("apt_pipelining")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_as_cloud_init_reads_them() {
        let cases = [
            (json!(false), Depth::Set(0)),
            (json!("False"), Depth::Set(0)),
            (json!(3), Depth::Set(3)),
            (json!(" 5 "), Depth::Set(5)),
            (json!("os"), Depth::Os),
            (json!("None"), Depth::Os),
            (json!("unchanged"), Depth::Os),
            (json!(null), Depth::Os),
            (json!(true), Depth::Invalid),
            (json!(6), Depth::Invalid),
            (json!(3.0), Depth::Invalid),
            (json!(-1), Depth::Invalid),
            (json!("fast"), Depth::Invalid),
        ];
        for (v, want) in cases {
            let mut d = Vec::new();
            assert_eq!(read(&json!({ "apt_pipelining": v }), &mut d), want, "{v}");
            assert_eq!(d.len(), usize::from(want == Depth::Invalid), "{v}");
        }
        assert_eq!(read(&json!({}), &mut Vec::new()), Depth::Os);
        assert_eq!(
            text(0),
            "//Written by cloud-init per 'apt_pipelining'\nAcquire::http::Pipeline-Depth \"0\";\n"
        );
    }
}
