//! cloud-init's device names in `mounts` (`sdb`, `vdb1`, `ephemeral0.1`, an alias) turned
//! into this machine's block devices, or left as written (`LABEL=`, `UUID=`, network shares).

use crate::disk_setup::Aliases;
use crate::ModuleCtx;

pub(super) enum Spec {
    /// A block device of this machine, as its /dev path.
    Device(String),
    /// `LABEL=`, `UUID=`, `server:/path`, a path: written as given.
    AsWritten,
    Missing,
}

/// cloud-init's device names: `sdb`, `vdb1`, `ephemeral0.1` (partition 1), aliases from
/// `device_aliases`; a disk with partitions stands for its first. Names the datasource would
/// map (`ephemeral0`, `swap`) and no alias covers are missing.
pub(super) fn device_spec(ctx: &ModuleCtx, aliases: &Aliases, spec: &str) -> Spec {
    if spec.contains('=') || (spec.contains(':') && !spec.starts_with('/')) {
        return Spec::AsWritten;
    }
    let spec = if spec == "ephemeral" {
        "ephemeral0"
    } else {
        spec
    };
    let (name, part) = match spec.rsplit_once('.') {
        Some((n, p)) if !n.is_empty() && p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() => {
            (n, Some(p))
        }
        _ => (spec, None),
    };
    let aliased = aliases.get(name).map_or(name, String::as_str);
    let path = if aliased.starts_with('/') {
        aliased.to_string()
    } else if is_meta_name(aliased) {
        return Spec::Missing; // the datasource names none of these yet
    } else if is_short_device_name(aliased) {
        format!("/dev/{aliased}")
    } else {
        return Spec::AsWritten;
    };
    if !path.starts_with("/dev/") {
        return Spec::AsWritten; // a file (a swap file, a loop image): the admin's business
    }
    let n = part.unwrap_or("1");
    let partition = ["", "p", "-part"]
        .iter()
        .map(|sep| format!("{path}{sep}{n}"))
        .find(|p| ctx.host.path(p).exists());
    match (partition, part) {
        (Some(p), _) => Spec::Device(p),
        (None, Some(_)) => Spec::Missing,
        (None, None) if ctx.host.path(&path).exists() => Spec::Device(path),
        (None, None) => Spec::Missing,
    }
}

fn is_meta_name(name: &str) -> bool {
    matches!(name, "ami" | "root" | "swap")
        || ["ephemeral", "ebs"]
            .iter()
            .any(|p| name.starts_with(p) && !name.contains(':'))
}

/// `sda`, `xvdb1`, `vdc`, `hda`, `sr0`.
fn is_short_device_name(name: &str) -> bool {
    let rest = name.strip_prefix('x').unwrap_or(name);
    let b = rest.as_bytes();
    let disk = b.len() >= 3
        && matches!(b[0], b's' | b'h' | b'v')
        && b[1] == b'd'
        && b[2].is_ascii_lowercase()
        && b[3..].iter().all(u8::is_ascii_digit);
    disk || name
        .strip_prefix("sr")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}
