//! cloud-init's `mounts`, `mount_default_fields` and `swap` (per instance): /etc/fstab lines
//! tagged `comment=cloudconfig`, so a later run replaces only its own; mount points made in
//! the target; a swap file made in the initramfs. Unlike cloud-init, a device that does not
//! exist or holds no filesystem gets no fstab line (a warning says so), and nothing is
//! mounted here: the booted system mounts its fstab itself.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#mounts>

mod devices;
mod read;
mod shape;
mod swap_file;

pub use read::{read, Mount, Settings, Swap, SwapSize};

use super::{Module, ModuleCtx};
use crate::conf_lang::fstab;
use crate::config::reader::Reader;
use crate::disk;
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use devices::{device_spec, Spec};

pub struct Mounts;

const FSTAB: &str = "/etc/fstab";
const TAG: &str = "comment=cloudconfig";
/// The devices are set up in the initramfs, before systemd reads fstab: no ordering after a
/// unit of ember's is needed, and `nofail` keeps a missing disk from stopping the boot.
const DEFAULT_OPTIONS: &str = "defaults,nofail";

/// An fstab line's fields: `[spec, file, type, options, freq, passno]`.
type Fields = [Option<String>; 6];

/// Its keys' shapes and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: shape::SHAPES,
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl Module for Mounts {
    fn name(&self) -> &'static str {
        "mounts"
    }

    fn reader(&self) -> Option<&'static Reader> {
        Some(&READER)
    }
    fn run(&self, ctx: &ModuleCtx, diags: &mut Vec<Diag>) {
        let settings = read(ctx.cfg, diags);
        let fstab = match ctx.root.read_file(FSTAB, 1 << 20) {
            Ok(f) => String::from_utf8_lossy(&f.unwrap_or_default()).into_owned(),
            Err(e) => return diags.push(Diag::error(e.code(), e.to_string()).file(FSTAB)),
        };
        let kept: Vec<&str> = fstab.lines().filter(|l| !l.contains(TAG)).collect();
        // A device the admin's own lines mount, decoded as fstab's readers decode it (a
        // `\040` there is the space in a `mounts` entry's device).
        let taken: Vec<String> = kept
            .iter()
            .filter_map(|l| l.split_whitespace().next())
            .map(fstab::unescape)
            .collect();

        let mut entries: Vec<Fields> = settings
            .mounts
            .iter()
            .filter_map(|m| on_this_machine(ctx, &settings, m, diags))
            .collect();
        add_default_mounts(ctx, &settings, &mut entries, &taken);
        let mut lines = without_removed(entries, &taken);
        let swap = settings.swap.as_ref();
        if let Some(file) = swap.and_then(|s| swap_file::swap_file(ctx, s, diags)) {
            lines.push([
                file,
                "none".into(),
                "swap".into(),
                "sw".into(),
                "0".into(),
                "0".into(),
            ]);
        }
        if lines.is_empty() && kept.len() == fstab.lines().count() {
            return; // nothing asked, nothing of ours to take out
        }
        make_mount_points(ctx, &lines, diags);
        let mut text: String = kept.iter().map(|l| format!("{l}\n")).collect();
        // Each field through fstab's one writer (blanks and line breaks escaped); the given
        // ones were checked when read, so a refusal here is of a field ember made.
        for l in &lines {
            match l
                .iter()
                .map(|f| fstab::field(f))
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(fields) => {
                    text.push_str(&fields.join("\t"));
                    text.push('\n');
                }
                Err(why) => {
                    let msg = format!("a field {why}: line not written");
                    diags.push(Diag::error(Reason::BadValue, msg).file(FSTAB));
                }
            }
        }
        if let Err(e) = ctx
            .root
            .write_file(FSTAB, text.as_bytes(), &FileSpec::mode(0o644))
        {
            diags.push(Diag::error(e.code(), e.to_string()).file(FSTAB));
        }
    }
}

fn make_mount_points(ctx: &ModuleCtx, lines: &[[String; 6]], diags: &mut Vec<Diag>) {
    for l in lines {
        if l[1].starts_with('/') {
            // cloud-init logs a mount point it cannot make (logexc, a warning) and goes on.
            if let Err(e) = ctx.root.create_dir_all(&l[1], &FileSpec::DIR) {
                diags.push(Diag::warning(e.code(), e.to_string()).file(l[1].clone()));
            }
        }
    }
}

/// A `mounts` entry with its device as this machine names it; `None` (with a warning unless
/// it is a removal) when the device is missing or holds no filesystem to mount.
fn on_this_machine(
    ctx: &ModuleCtx,
    settings: &Settings,
    m: &Mount,
    diags: &mut Vec<Diag>,
) -> Option<Fields> {
    let key = format!("mounts.{}.0", m.index);
    let spec = match device_spec(ctx, &settings.aliases, &m.spec) {
        Spec::Device(dev) => {
            if m.file.is_some() && !m.is_swap() && !disk::has_filesystem(&ctx.host.path(&dev)) {
                let msg = "the device holds no filesystem: no fstab line for it";
                diags.push(Diag::warning(Reason::MountNoFilesystem, msg).key(key));
                return None;
            }
            dev
        }
        Spec::AsWritten => m.spec.clone(),
        Spec::Missing => {
            if m.file.is_some() {
                let msg = "the device does not exist: no fstab line for it";
                diags.push(Diag::warning(Reason::MountNoDevice, msg).key(key));
            }
            return None;
        }
    };
    Some([
        Some(spec),
        m.file.clone(),
        m.fstype.clone(),
        m.options.clone(),
        m.freq.clone(),
        m.passno.clone(),
    ])
}

/// cloud-init's defaults: the ephemeral disk on /mnt and the swap device, where they exist
/// and nothing else names them.
fn add_default_mounts(
    ctx: &ModuleCtx,
    settings: &Settings,
    entries: &mut Vec<Fields>,
    taken: &[String],
) {
    let defaults = [
        ["ephemeral0", "/mnt", "auto", DEFAULT_OPTIONS, "0", "2"],
        ["swap", "none", "swap", "sw", "0", "0"],
    ];
    for d in defaults {
        let Spec::Device(dev) = device_spec(ctx, &settings.aliases, d[0]) else {
            continue;
        };
        if taken.contains(&dev) || entries.iter().any(|e| e[0].as_deref() == Some(&dev)) {
            continue;
        }
        if d[2] != "swap" && !disk::has_filesystem(&ctx.host.path(&dev)) {
            continue;
        }
        let mut e: Fields = d.map(|s| Some(s.to_string()));
        e[0] = Some(dev);
        entries.push(e);
    }
}

/// Drops removals (a null mount point takes out that device's earlier lines too) and lines
/// for devices the admin's own fstab lines already name; tags the rest.
fn without_removed(entries: Vec<Fields>, taken: &[String]) -> Vec<[String; 6]> {
    let mut removed: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for e in entries.into_iter().rev() {
        let spec = e[0].clone().unwrap_or_default();
        if e[1].is_none() || removed.contains(&spec) {
            removed.push(spec);
            continue;
        }
        if taken.contains(&spec) {
            continue;
        }
        let [s, f, t, o, q, p] = e.map(Option::unwrap_or_default);
        out.push([s, f, t, format!("{o},{TAG}"), q, p]);
    }
    out.reverse();
    out
}
