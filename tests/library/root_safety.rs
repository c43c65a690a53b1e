//! `ember::root::Root` against temporary trees: atomic writes and modes, and every way a planted
//! symlink or `..` could send a write outside the root or into its /proc, /sys, /dev. Each case
//! runs with the kernel's openat2 resolver and with the walker used on kernels before 5.6.

use ember::root::{FileSpec, Owner, Resolver, Root, RootError};
use std::fs;
use std::io::Write;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A scratch tree: `<base>/root` (with proc, sys, dev like a real image) and `<base>/outside`,
/// which no case may change.
struct Env {
    base: PathBuf,
    root: PathBuf,
    outside: PathBuf,
}

impl Env {
    fn new(test: &str, resolver: Resolver) -> Env {
        let base = std::env::temp_dir().join(format!(
            "ember-root-safety-{}-{test}-{resolver:?}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&base);
        let (root, outside) = (base.join("root"), base.join("outside"));
        for d in ["proc", "sys", "dev/shm"] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("hostname"), "outside").unwrap();
        Env {
            base,
            root,
            outside,
        }
    }

    fn at(&self, rel: &str) -> PathBuf {
        self.root.join(rel.trim_start_matches('/'))
    }

    /// Where an absolute path outside the root lands when clamped into the root.
    fn clamped(&self, outside_path: &Path) -> PathBuf {
        self.root.join(outside_path.strip_prefix("/").unwrap())
    }

    fn assert_outside_untouched(&self) {
        let names: Vec<_> = fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["hostname"], "outside dir changed");
        assert_eq!(
            fs::read_to_string(self.outside.join("hostname")).unwrap(),
            "outside"
        );
        let above: Vec<_> = fs::read_dir(&self.base)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            above.len(),
            2,
            "something was created beside the root: {above:?}"
        );
    }

    fn assert_no_temp_files(&self) {
        fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
            for e in fs::read_dir(dir).unwrap() {
                let e = e.unwrap();
                if e.file_name().to_string_lossy().contains(".ember-tmp") {
                    found.push(e.path());
                }
                if e.file_type().unwrap().is_dir() {
                    walk(&e.path(), found);
                }
            }
        }
        let mut found = Vec::new();
        walk(&self.base, &mut found);
        assert!(found.is_empty(), "temp files left: {found:?}");
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

/// Runs `case` once per resolver available here; an unavailable kernel resolver says SKIP.
fn each(test: &str, case: impl Fn(&Env, &Root)) {
    // A strict umask shows that modes come from the spec, not from the process.
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    for resolver in [Resolver::Kernel, Resolver::Walker] {
        let env = Env::new(test, resolver);
        let root = match Root::open_with(&env.root, resolver) {
            Ok(root) => root,
            Err(e) if resolver == Resolver::Kernel => {
                // Written to the stream itself: libtest would capture eprintln!.
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIP {test} with the kernel resolver: {e}"
                );
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        case(&env, &root);
        env.assert_outside_untouched();
        env.assert_no_temp_files();
    }
}

fn mode(p: &Path) -> u32 {
    fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

fn refused(r: Result<(), RootError>) {
    match r {
        Err(e @ RootError::Refused { .. }) => assert_eq!(e.code(), "write-refused"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn open_picks_a_resolver_and_names_a_missing_root() {
    let env = Env::new("open", Resolver::Walker);
    assert_eq!(Root::open(&env.root).unwrap().path(), env.root);
    let e = Root::open(&env.base.join("missing")).unwrap_err();
    assert_eq!(e.code(), "root-open");
    assert!(e.to_string().contains("missing"), "{e}");
}

#[test]
fn write_replace_and_modes() {
    each("modes", |env, root| {
        root.write_file("/etc/hostname", b"one", &FileSpec::mode(0o644))
            .unwrap();
        root.write_file("etc/hostname", b"two", &FileSpec::mode(0o644))
            .unwrap();
        assert_eq!(fs::read(env.at("etc/hostname")).unwrap(), b"two");
        assert_eq!(mode(&env.at("etc/hostname")), 0o644);
        assert_eq!(
            mode(&env.at("etc")),
            0o755,
            "parents are 0755 whatever the umask"
        );

        root.write_file("/etc/shadow-like", b"s", &FileSpec::mode(0o600))
            .unwrap();
        assert_eq!(mode(&env.at("etc/shadow-like")), 0o600);
        root.write_file("/tmp/open", b"", &FileSpec::mode(0o666))
            .unwrap();
        assert_eq!(mode(&env.at("tmp/open")), 0o666);
        // Replacing changes the mode too: the new file is a new inode.
        root.write_file("/etc/hostname", b"3", &FileSpec::mode(0o640))
            .unwrap();
        assert_eq!(mode(&env.at("etc/hostname")), 0o640);
        root.write_file("a/./b//c/d", b"deep", &FileSpec::mode(0o600))
            .unwrap();
        assert_eq!(fs::read(env.at("a/b/c/d")).unwrap(), b"deep");
    });
}

#[test]
fn owner_applied_only_when_given() {
    if !rustix::process::geteuid().is_root() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIP owner_applied_only_when_given: needs root to chown"
        );
        return;
    }
    each("owner", |env, root| {
        let owner = Owner {
            uid: 1234,
            gid: 2345,
        };
        root.write_file(
            "/home/u/.ssh/authorized_keys",
            b"k",
            &FileSpec::mode(0o600).with_owner(owner),
        )
        .unwrap();
        let m = fs::metadata(env.at("home/u/.ssh/authorized_keys")).unwrap();
        assert_eq!((m.uid(), m.gid(), m.mode() & 0o7777), (1234, 2345, 0o600));
        root.create_dir_all("/home/v", &FileSpec::mode(0o700).with_owner(owner))
            .unwrap();
        let m = fs::metadata(env.at("home/v")).unwrap();
        assert_eq!((m.uid(), m.gid(), m.mode() & 0o7777), (1234, 2345, 0o700));
        let parent = fs::metadata(env.at("home")).unwrap();
        assert_eq!((parent.uid(), parent.mode() & 0o7777), (0, 0o755));
        root.write_file("/etc/plain", b"p", &FileSpec::mode(0o644))
            .unwrap();
        assert_eq!(fs::metadata(env.at("etc/plain")).unwrap().uid(), 0);
    });
}

#[test]
fn create_dir_all_leaves_existing_dirs_alone() {
    each("mkdir", |env, root| {
        root.create_dir_all("/run/ember/secret", &FileSpec::mode(0o700))
            .unwrap();
        assert_eq!(mode(&env.at("run/ember/secret")), 0o700);
        assert_eq!(mode(&env.at("run/ember")), 0o755);
        fs::set_permissions(env.at("run/ember"), fs::Permissions::from_mode(0o711)).unwrap();
        root.create_dir_all("/run/ember", &FileSpec::mode(0o700))
            .unwrap();
        assert_eq!(mode(&env.at("run/ember")), 0o711);
        root.create_dir_all("/", &FileSpec::mode(0o700)).unwrap();
    });
}

#[test]
fn absolute_symlinked_parent_is_clamped_into_the_root() {
    each("abs-parent", |env, root| {
        symlink(&env.outside, env.at("etc")).unwrap();
        // The link's target does not exist inside the root: the write fails, nothing escapes.
        assert!(root
            .write_file("/etc/hostname", b"x", &FileSpec::mode(0o644))
            .is_err());
        // Once the clamped target exists inside the root, the write lands there.
        fs::create_dir_all(env.clamped(&env.outside)).unwrap();
        root.write_file("/etc/hostname", b"in", &FileSpec::mode(0o644))
            .unwrap();
        assert_eq!(
            fs::read(env.clamped(&env.outside).join("hostname")).unwrap(),
            b"in"
        );
    });
}

#[test]
fn relative_symlink_and_dotdot_cannot_climb_out() {
    each("rel-parent", |env, root| {
        symlink("../../../../../../..", env.at("etc")).unwrap();
        root.write_file("/etc/hostname", b"a", &FileSpec::mode(0o644))
            .unwrap();
        assert_eq!(fs::read(env.at("hostname")).unwrap(), b"a");
        root.write_file("/../../../outside/hostname", b"b", &FileSpec::mode(0o644))
            .unwrap();
        assert_eq!(fs::read(env.at("outside/hostname")).unwrap(), b"b");
        root.write_file("x/../../../y", b"c", &FileSpec::mode(0o644))
            .unwrap();
        assert_eq!(fs::read(env.at("y")).unwrap(), b"c");
    });
}

#[test]
fn final_symlink_is_replaced_not_followed() {
    each("final-link", |env, root| {
        fs::create_dir_all(env.at("etc")).unwrap();
        let abs = env.outside.join("hostname");
        symlink(&abs, env.at("etc/hostname")).unwrap();
        symlink("../../outside/hostname", env.at("etc/rel")).unwrap();
        for rel in ["/etc/hostname", "/etc/rel"] {
            root.write_file(rel, b"inside", &FileSpec::mode(0o600))
                .unwrap();
            let m = fs::symlink_metadata(env.at(rel)).unwrap();
            assert!(m.file_type().is_file(), "{rel} is still a link");
            assert_eq!(fs::read(env.at(rel)).unwrap(), b"inside");
        }
        // Appending must not follow it either.
        symlink(&abs, env.at("etc/log")).unwrap();
        assert!(root
            .append_file("/etc/log", b"x", &FileSpec::mode(0o640))
            .is_err());
    });
}

#[test]
fn proc_sys_dev_refused_however_reached() {
    each("guard", |env, root| {
        let spec = FileSpec::mode(0o644);
        fs::create_dir_all(env.at("x")).unwrap();
        symlink("/proc", env.at("p")).unwrap();
        symlink("../../../../sys", env.at("x/s")).unwrap();
        fs::write(env.at("proc/existing"), "k").unwrap();
        for rel in [
            "/proc/foo",
            "proc",
            "/sys/kernel/new/x",
            "/dev/shm/x",
            "/dev/null",
            "x/../proc/foo",
            "/../../proc/foo",
            "p/foo",
            "x/s/foo",
        ] {
            refused(root.write_file(rel, b"x", &spec));
            refused(root.symlink("/target", rel));
            refused(root.append_file(rel, b"x", &spec));
        }
        refused(root.create_dir_all("/dev/net", &spec));
        refused(root.create_dir_all("p/sub", &spec));
        refused(root.create_dir_all("/sys", &spec));
        refused(root.remove_file("p/existing"));
        assert_eq!(fs::read(env.at("proc/existing")).unwrap(), b"k");
        assert!(!env.at("sys/kernel").exists() && !env.at("dev/net").exists());
        assert_eq!(fs::read_dir(env.at("proc")).unwrap().count(), 1);
        // Reading stays allowed: it cannot harm the target.
        assert_eq!(root.read_file("p/existing", 10).unwrap().unwrap(), b"k");
    });
}

#[test]
fn guard_holds_when_the_image_lacks_or_relinks_proc() {
    each("guard-missing", |env, root| {
        fs::remove_dir_all(env.at("proc")).unwrap();
        refused(root.write_file("/proc/foo", b"x", &FileSpec::mode(0o644)));
        assert!(
            !env.at("proc").exists(),
            "/proc was created before the refusal"
        );
        // proc pointing elsewhere guards where it points, as the target's kernel would mount there.
        fs::create_dir_all(env.at("var/fakeproc")).unwrap();
        symlink("/var/fakeproc", env.at("proc")).unwrap();
        // The guarded directories are learnt once per Root (the image does not change under a
        // running ember), so the relinked image is opened afresh.
        let root = Root::open_with(root.path(), root.resolver()).unwrap();
        refused(root.write_file("/var/fakeproc/x", b"x", &FileSpec::mode(0o644)));
        root.write_file("/var/other", b"ok", &FileSpec::mode(0o644))
            .unwrap();
    });
}

#[test]
fn reads_resolve_inside_the_root() {
    each("read", |env, root| {
        fs::create_dir_all(env.at("etc")).unwrap();
        fs::write(env.at("etc/hostname"), "inside").unwrap();
        symlink("/etc/hostname", env.at("abs")).unwrap();
        symlink("../../../../etc/hostname", env.at("etc/rel")).unwrap();
        symlink("/", env.at("top")).unwrap();
        symlink(env.outside.join("hostname"), env.at("out")).unwrap();
        for rel in [
            "/etc/hostname",
            "abs",
            "etc/rel",
            "top/top/etc/hostname",
            "/../etc/hostname",
        ] {
            assert_eq!(
                root.read_file(rel, 100).unwrap().unwrap(),
                b"inside",
                "{rel}"
            );
            assert!(root.exists(rel), "{rel}");
        }
        assert_eq!(root.read_file("out", 100).unwrap(), None);
        assert!(!root.exists("out"));
        assert_eq!(root.read_file("/etc/missing", 100).unwrap(), None);
        assert_eq!(
            root.read_file("/etc/hostname", 6).unwrap().unwrap(),
            b"inside"
        );
        let e = root.read_file("/etc/hostname", 5).unwrap_err();
        assert!(
            matches!(e, RootError::TooLarge { max_bytes: 5, .. }) && e.code() == "budget-exceeded"
        );
        // A FIFO planted in the image is refused, not waited on.
        let fifo = rustix::fs::FileType::Fifo;
        rustix::fs::mknodat(
            rustix::fs::CWD,
            env.at("fifo"),
            fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(
            root.read_file("fifo", 100).unwrap_err().code(),
            "read-failed"
        );
        assert_eq!(root.list_dir("top/etc").unwrap(), ["hostname", "rel"]);
        assert!(root.list_dir("nowhere").unwrap().is_empty());
    });
}

#[test]
fn nul_is_refused() {
    each("nul", |_env, root| {
        refused(root.write_file("etc/a\0b", b"x", &FileSpec::mode(0o644)));
        refused(root.symlink("a\0b", "etc/l"));
        assert!(matches!(
            root.read_file("a\0", 1),
            Err(RootError::Refused { .. })
        ));
        assert!(!root.exists("etc\0"));
        refused(root.write_file("/", b"x", &FileSpec::mode(0o644)));
        refused(root.write_file("etc/..", b"x", &FileSpec::mode(0o644)));
    });
}

#[test]
fn failures_leave_no_temp_files() {
    each("fail-clean", |env, root| {
        fs::write(env.at("file"), "f").unwrap();
        let e = root
            .write_file("/file/x", b"x", &FileSpec::mode(0o644))
            .unwrap_err();
        assert_eq!(e.code(), "write-failed");
        assert!(e.to_string().contains("/file/x"), "{e}");
        // Rename fails after the temp file exists: the target is a non-empty directory.
        fs::create_dir_all(env.at("full/d")).unwrap();
        assert!(root
            .write_file("/full", b"x", &FileSpec::mode(0o644))
            .is_err());
        assert!(root.symlink("t", "/full").is_err());
        assert!(env.at("full/d").is_dir());
        // An owner id of -1 ("unchanged" to the kernel) is refused after the temp file exists.
        let bad = FileSpec::mode(0o600).with_owner(Owner {
            uid: u32::MAX,
            gid: 0,
        });
        refused(root.write_file("/etc/bad", b"x", &bad));
        assert!(!root.exists("/etc/bad"));
    });
}

#[test]
fn symlinks_remove_and_append() {
    each("links", |env, root| {
        root.symlink("../usr/share/zoneinfo/UTC", "/etc/localtime")
            .unwrap();
        assert_eq!(
            fs::read_link(env.at("etc/localtime")).unwrap(),
            Path::new("../usr/share/zoneinfo/UTC")
        );
        root.symlink("/usr/share/zoneinfo/Europe/Paris", "/etc/localtime")
            .unwrap();
        assert_eq!(
            fs::read_link(env.at("etc/localtime")).unwrap(),
            Path::new("/usr/share/zoneinfo/Europe/Paris")
        );
        root.write_file("/etc/regular", b"r", &FileSpec::mode(0o644))
            .unwrap();
        root.symlink("elsewhere", "/etc/regular").unwrap();
        assert!(fs::symlink_metadata(env.at("etc/regular"))
            .unwrap()
            .file_type()
            .is_symlink());

        symlink(env.outside.join("hostname"), env.at("etc/out")).unwrap();
        root.remove_file("/etc/out").unwrap();
        assert!(fs::symlink_metadata(env.at("etc/out")).is_err());
        root.remove_file("/etc/out").unwrap();
        root.remove_file("/no/such/dir/file").unwrap();

        root.append_file("/var/log/ember.log", b"one\n", &FileSpec::mode(0o640))
            .unwrap();
        root.append_file("/var/log/ember.log", b"two\n", &FileSpec::mode(0o600))
            .unwrap();
        assert_eq!(
            fs::read(env.at("var/log/ember.log")).unwrap(),
            b"one\ntwo\n"
        );
        assert_eq!(
            mode(&env.at("var/log/ember.log")),
            0o640,
            "an existing file keeps its mode"
        );
    });
}

/// Directories resolved for one write serve the next (a cache); what could move them makes
/// the next write resolve again: ember removing a tree, and a command run in the root, which
/// here replaces a directory with a link out of the root.
#[test]
fn resolved_directories_are_forgotten_when_they_may_have_moved() {
    each("dir-cache", |env, root| {
        let spec = FileSpec::mode(0o644);
        root.write_file("/var/lib/app/one", b"1", &spec).unwrap();
        root.remove_tree("/var/lib").unwrap();
        root.write_file("/var/lib/app/two", b"2", &spec).unwrap();
        assert_eq!(fs::read(env.at("var/lib/app/two")).unwrap(), b"2");
        assert!(!env.at("var/lib/app/one").exists());

        fs::rename(env.at("var/lib/app"), env.at("var/lib/moved")).unwrap();
        symlink(&env.outside, env.at("var/lib/app")).unwrap();
        root.commands_ran();
        // Resolved again: the link is clamped into the root, whose copy does not exist.
        assert!(root.write_file("/var/lib/app/three", b"3", &spec).is_err());
        assert!(!env.at("var/lib/moved/three").exists());
    });
}
