//! Fault suite, write_files aimed through symlinks planted in the image (RELIABILITY.md rule
//! 8). Every path resolves as the booted system would see it, inside the target: a link to
//! `/` or a `..` climb is clamped at the target's root, never at the real one; a link whose
//! resolved parent does not exist inside the target is an error naming the item's key and
//! path. No write lands outside the target, and the other items are applied.

use crate::common;
use common::{stderr, Machine};
use std::os::unix::fs::symlink;
use std::path::Path;

const SEED_DIR: &str = "var/lib/cloud/seed/nocloud";

/// A name no other run shares, for files that would land in the real `/` on an escape.
fn unique(tag: &str) -> String {
    format!("ember-fault-{tag}-{}", std::process::id())
}

/// The image: planted links, and a directory outside the target that some of them name.
fn plant(m: &Machine) -> std::path::PathBuf {
    let t = &m.target;
    let outside = m.dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    for d in ["etc", "opt", "srv"] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    symlink("/", t.join("etc/x")).unwrap();
    symlink("/nonexistent/deep", t.join("etc/dangling")).unwrap();
    symlink(&outside, t.join("opt/app")).unwrap();
    symlink("../../../../../../..", t.join("srv/up")).unwrap();
    symlink(outside.join("final.conf"), t.join("etc/final.conf")).unwrap();
    outside
}

fn user_data() -> String {
    let items = [
        format!("/etc/x/{}", unique("root")),
        "/etc/dangling/file.conf".to_string(),
        format!("/etc/../../../../../{}", unique("dotdot")),
        "/opt/app/conf/app.conf".to_string(),
        format!("/srv/up/{}", unique("rel")),
        "/etc/final.conf".to_string(),
        "/etc/ok.conf".to_string(),
    ];
    let mut ud = String::from("#cloud-config\nwrite_files:\n");
    for (i, path) in items.iter().enumerate() {
        ud.push_str(&format!("  - path: {path}\n    content: item-{i}\n"));
    }
    ud
}

/// Nothing named like one of this run's files exists outside the target: not in the real
/// root, not beside the machine's directories.
fn assert_no_escape(m: &Machine, outside: &Path) {
    for tag in ["root", "dotdot", "rel"] {
        let name = unique(tag);
        for dir in [Path::new("/"), m.dir.as_path(), m.dir.parent().unwrap()] {
            let p = dir.join(&name);
            let escaped = p.exists();
            let _ = std::fs::remove_file(&p);
            assert!(!escaped, "escaped to {}", p.display());
        }
    }
    assert!(
        !Path::new("/nonexistent").exists(),
        "wrote in the real root"
    );
    let left: Vec<_> = std::fs::read_dir(outside).unwrap().flatten().collect();
    assert!(left.is_empty(), "wrote outside the target: {left:?}");
}

/// Expected, item by item: a link to `/` and the `..` climb and the relative escape are
/// clamped to the target's root (the files land at `<target>/<name>`); the dangling link and
/// the absolute link out of the image resolve to directories that are missing inside the
/// target, so those two are errors naming `write_files.N.path` and the path; the link at the
/// final component is replaced, not followed; the plain item is written.
#[test]
fn write_files_through_planted_symlinks_stays_in_the_target() {
    let m = Machine::new("wf-links");
    let outside = plant(&m);
    m.write(
        &m.target,
        &format!("{SEED_DIR}/meta-data"),
        b"instance-id: i-wf\n",
    );
    m.write(
        &m.target,
        &format!("{SEED_DIR}/user-data"),
        user_data().as_bytes(),
    );
    let out = m.initrd("all");
    assert_no_escape(&m, &outside);

    for (i, tag) in [(0, "root"), (2, "dotdot"), (4, "rel")] {
        let clamped = m.target_file(&unique(tag));
        assert_eq!(clamped, format!("item-{i}"), "{tag}: {}", stderr(&out));
    }
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let errors: Vec<_> = m
        .diags()
        .into_iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    for (d, (i, path)) in errors.iter().zip([
        (1, "/etc/dangling/file.conf"),
        (3, "/opt/app/conf/app.conf"),
    ]) {
        assert_eq!(d["key"], format!("write_files.{i}.path"), "{d}");
        assert!(d["message"].as_str().unwrap().contains(path), "{d}");
        assert!(
            !d.to_string().contains(&format!("item-{i}")),
            "content shown: {d}"
        );
    }
    let final_link = m.target.join("etc/final.conf");
    assert!(!final_link.is_symlink(), "the planted link was followed");
    assert_eq!(m.target_file("etc/final.conf"), "item-5");
    assert_eq!(m.target_file("etc/ok.conf"), "item-6");
    assert!(!m.target.join("nonexistent").exists());
}
