//! Tests of `user_path`: the boundary with both resolvers, for every writer and for reads.

use super::super::Resolver;
use super::*;
use std::os::unix::fs::{lchown, symlink, PermissionsExt};

fn tree(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ember-user-path-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    for sub in ["etc", "tmp", "home/ann/.ssh", "home/bob"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    std::fs::set_permissions(d.join("tmp"), std::fs::Permissions::from_mode(0o1777)).unwrap();
    std::fs::write(d.join("etc/shadow"), "root-only\n").unwrap();
    d
}

fn roots(d: &Path) -> Vec<Root> {
    [Resolver::Kernel, Resolver::Walker]
        .into_iter()
        .filter_map(|r| Root::open_with(d, r).ok())
        .collect()
}

use std::path::Path;

/// Every writer of `Root`, not only the user-path API: a link in a directory others can
/// write is refused, one in root's own directories (the image's layout) still followed.
#[test]
fn links_in_directories_others_can_write_are_not_followed_by_any_writer() {
    if !rustix::process::geteuid().is_root() {
        return eprintln!("SKIP: needs root to give a link to another user");
    }
    let d = tree("writers");
    symlink("/etc", d.join("tmp/x")).unwrap();
    lchown(d.join("tmp/x"), Some(1001), Some(1001)).unwrap();
    symlink("/etc", d.join("img")).unwrap();
    for root in roots(&d) {
        let spec = FileSpec::mode(0o600);
        let e = root
            .write_file("/tmp/x/shadow", b"evil", &spec)
            .unwrap_err();
        assert!(e.is_link() && e.to_string().contains("/tmp/x "), "{e}");
        assert!(root.append_file("/tmp/x/shadow", b"evil", &spec).is_err());
        assert!(root.create_dir_all("/tmp/x/new", &FileSpec::DIR).is_err());
        assert!(root.symlink("/", "/tmp/x/shadow").is_err());
        assert!(root.remove_file("/tmp/x/shadow").is_err());
        assert_eq!(
            std::fs::read_to_string(d.join("etc/shadow")).unwrap(),
            "root-only\n"
        );
        assert!(!d.join("etc/new").exists());
        root.write_file("/img/hostname", b"h\n", &spec).unwrap();
        assert_eq!(std::fs::read(d.join("etc/hostname")).unwrap(), b"h\n");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Reads for a user: a link, a FIFO, another user's file or home, a file over budget are
/// refused at once and by name; the user's own file is read.
#[test]
fn user_files_that_are_links_fifos_others_or_too_large_are_refused() {
    if !rustix::process::geteuid().is_root() {
        return eprintln!("SKIP: needs root to give files to other users");
    }
    let d = tree("reads");
    let ssh = d.join("home/ann/.ssh");
    std::fs::write(ssh.join("mine"), "key\n").unwrap();
    std::fs::write(ssh.join("big"), "x".repeat(100)).unwrap();
    std::fs::write(ssh.join("bobs"), "key\n").unwrap();
    symlink("/etc/shadow", ssh.join("link")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ssh.join("fifo"),
        FileType::Fifo,
        Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    for p in [
        "home/ann",
        "home/ann/.ssh",
        "home/ann/.ssh/mine",
        "home/ann/.ssh/big",
    ] {
        lchown(d.join(p), Some(1000), Some(1000)).unwrap();
    }
    lchown(ssh.join("bobs"), Some(1001), Some(1001)).unwrap();
    lchown(d.join("home/bob"), Some(1001), Some(1001)).unwrap();
    std::fs::create_dir_all(d.join("home/bob/.ssh")).unwrap();
    for root in roots(&d) {
        let read = |f: &str, uid| root.read_user_file(f, "/home/ann", uid, 50);
        assert_eq!(
            read("/home/ann/.ssh/mine", 1000).unwrap().unwrap(),
            b"key\n"
        );
        assert_eq!(read("/home/ann/.ssh/none", 1000).unwrap(), None);
        for (f, why) in [
            ("link", LINK),
            ("fifo", "is a FIFO, socket or device"),
            ("bobs", OTHERS),
        ] {
            let e = read(&format!("/home/ann/.ssh/{f}"), 1000).unwrap_err();
            assert!(e.to_string().ends_with(why), "{f}: {e}");
        }
        let e = read("/home/ann/.ssh/big", 1000).unwrap_err();
        assert_eq!(e.code(), crate::reason::Reason::BudgetExceeded);
        // bob's home, listed as ann's: refused at the home itself.
        let e = root
            .read_user_file("/home/bob/.ssh/k", "/home/bob", 1000, 50)
            .unwrap_err();
        assert!(
            e.to_string().contains("/home/bob is owned by another user"),
            "{e}"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}
