//! Test support: builds real seed images with the Debian tools (xorriso, mkfs.vfat + mtools,
//! mke2fs) in a unique temp directory. A missing tool prints SKIP and yields `None`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// A Rock Ridge name too long for one directory record, so it needs NM parts or a CE area.
pub(super) fn long_rr_name() -> String {
    format!("{}.txt", "rock-ridge-name-".repeat(15))
}

pub(super) const LFN_NAME: &str = "a-very-long-file-name-for-lfn-entries.txt";

/// The seed's files: user-data spans several 2 KiB blocks/clusters, vendor-data is empty.
pub(super) fn seed_files() -> Vec<(String, Vec<u8>)> {
    let mut user = b"#cloud-config\nwrite_files:\n".to_vec();
    for i in 0..300 {
        user.extend(format!("  - path: /etc/example-{i:03}\n    content: line {i}\n").bytes());
    }
    vec![
        (
            "meta-data".into(),
            b"instance-id: iid-seed-01\nlocal-hostname: seed\n".to_vec(),
        ),
        ("user-data".into(), user),
        ("vendor-data".into(), Vec::new()),
        (
            "network-config".into(),
            b"version: 2\nethernets: {}\n".to_vec(),
        ),
        (
            "openstack/latest/meta_data.json".into(),
            br#"{"uuid": "0f2c"}"#.to_vec(),
        ),
        (LFN_NAME.into(), b"long file name contents\n".to_vec()),
    ]
}

/// A directory removed (with its contents) on drop.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    pub(super) fn new(tag: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "ember-seedfs-{tag}-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Finds a tool on PATH or in the sbin directories (mkfs tools live there, often off PATH).
pub(super) fn tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .or_else(|| {
            println!("SKIP: {name} not installed");
            None
        })
}

fn run(prog: &Path, args: &[&str]) {
    let out = Command::new(prog)
        .args(args)
        .env("MTOOLS_SKIP_CHECK", "1")
        .output()
        .expect("spawn tool");
    assert!(
        out.status.success(),
        "{} {args:?} failed: {}",
        prog.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn write_tree(root: &Path, files: &[(String, Vec<u8>)]) {
    for (name, data) in files {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, data).expect("write seed file");
    }
}

/// `xorriso -as mkisofs <args> -o img tree`; with `long_rr`, adds the long Rock Ridge name.
pub(super) fn iso(args: &[&str], long_rr: bool) -> Option<Vec<u8>> {
    let xorriso = tool("xorriso")?;
    let tmp = TempDir::new("iso");
    let tree = tmp.0.join("tree");
    let mut files = seed_files();
    if long_rr {
        files.push((long_rr_name(), b"continued name\n".to_vec()));
    }
    write_tree(&tree, &files);
    let img = tmp.0.join("seed.iso");
    let (img_s, tree_s) = (img.to_str()?, tree.to_str()?);
    let mut all = vec!["-as", "mkisofs", "-quiet", "-o", img_s];
    all.extend(args);
    all.push(tree_s);
    run(&xorriso, &all);
    std::fs::read(img).ok()
}

/// `mkfs.vfat -F bits -n CIDATA` on a `kib`-sized image, then the seed files copied in.
pub(super) fn fat(bits: &str, kib: &str, extra: &[&str]) -> Option<Vec<u8>> {
    let mkfs = tool("mkfs.vfat")?;
    let (mcopy, mmd) = (tool("mcopy")?, tool("mmd")?);
    let tmp = TempDir::new("fat");
    let img = tmp.0.join("seed.img");
    let img_s = img.to_str()?;
    let mut args = vec!["-C", "-F", bits, "-n", "CIDATA"];
    args.extend(extra);
    args.extend([img_s, kib]);
    run(&mkfs, &args);
    run(&mmd, &["-i", img_s, "::openstack", "::openstack/latest"]);
    for (name, data) in seed_files() {
        let src = tmp.0.join("src");
        std::fs::write(&src, data).expect("write seed file");
        run(&mcopy, &["-i", img_s, src.to_str()?, &format!("::{name}")]);
    }
    std::fs::read(img).ok()
}

/// `mke2fs -t ext4 -L cidata` on a 1 MiB file.
pub(super) fn ext4() -> Option<Vec<u8>> {
    let mke2fs = tool("mke2fs")?;
    let tmp = TempDir::new("ext");
    let img = tmp.0.join("seed.img");
    run(
        &mke2fs,
        &[
            "-q",
            "-t",
            "ext4",
            "-L",
            "cidata",
            "-F",
            img.to_str()?,
            "1024",
        ],
    );
    std::fs::read(img).ok()
}
