//! Per-instance state in the target root: the instance id (untrusted input, so checked and
//! encoded before it names a directory), first-boot detection, module semaphores, and the
//! `#include-once` cache (`urlcache`). ember's own state lives under /var/lib/ember;
//! cloud-init's layout under its cloud dir (`crate::paths`, /var/lib/cloud) is kept too,
//! because tools read it.

pub mod instance_cache;
pub mod md5;
pub mod urlcache;

use crate::error::Diag;
use crate::reason::Reason;
use crate::root::{FileSpec, ReadOnly, Root, RootError};

pub const EMBER_LIB: &str = "/var/lib/ember";

/// Longest instance id accepted; real ones are under 100 bytes.
pub const MAX_INSTANCE_ID: usize = 1024;

/// Why an instance id was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum BadInstanceId {
    Empty,
    TooLong(usize),
    ControlCharacter,
}

impl std::fmt::Display for BadInstanceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadInstanceId::Empty => f.write_str("instance id is empty"),
            BadInstanceId::TooLong(n) => {
                write!(f, "instance id is {n} bytes, more than {MAX_INSTANCE_ID}")
            }
            BadInstanceId::ControlCharacter => {
                f.write_str("instance id contains a control character (NUL, newline, ...)")
            }
        }
    }
}

/// Refuses ids that cannot be written safely into one-line state files.
pub fn check_instance_id(id: &str) -> Result<(), BadInstanceId> {
    if id.is_empty() {
        return Err(BadInstanceId::Empty);
    }
    if id.len() > MAX_INSTANCE_ID {
        return Err(BadInstanceId::TooLong(id.len()));
    }
    if id.chars().any(char::is_control) {
        return Err(BadInstanceId::ControlCharacter);
    }
    Ok(())
}

/// The id as one safe path component: bytes outside `[A-Za-z0-9._:-]` become `%XX`, a leading
/// `.` too (so never `.`, `..` or hidden), and a long result is cut and suffixed with a hash so
/// it stays unique and under the 255-byte name limit.
pub fn encode_instance_id(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for (i, b) in id.bytes().enumerate() {
        let plain = b.is_ascii_alphanumeric() || b"_:-".contains(&b) || (b == b'.' && i > 0);
        if plain {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.len() > 200 {
        out.truncate(180);
        out.push_str(&format!("~{:016x}", fnv1a(id.as_bytes())));
    }
    out
}

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

/// How often a module runs, as cloud-init names frequencies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frequency {
    PerInstance,
    PerBoot,
    PerOnce,
}

impl Frequency {
    pub fn cloud_init_name(self) -> &'static str {
        match self {
            Frequency::PerInstance => "once-per-instance",
            Frequency::PerBoot => "always",
            Frequency::PerOnce => "once",
        }
    }
    pub fn parse(name: &str) -> Option<Frequency> {
        match name {
            "once-per-instance" | "instance" | "per-instance" => Some(Frequency::PerInstance),
            "always" | "per-boot" | "boot" => Some(Frequency::PerBoot),
            "once" | "per-once" => Some(Frequency::PerOnce),
            _ => None,
        }
    }
}

/// Semaphores: a module is recorded done only after it finished (RELIABILITY rule 11).
/// Per-instance ones live in the instance directory, per-once ones beside it, and per-boot
/// ones carry the boot id, so a new boot finds none.
pub struct Semaphores<'a> {
    root: &'a Root,
    instance_dir: String,
    boot_id: String,
}

impl<'a> Semaphores<'a> {
    pub fn new(root: &'a Root, encoded_id: &str, boot_id: &str) -> Semaphores<'a> {
        Semaphores {
            root,
            instance_dir: format!("{EMBER_LIB}/instances/{encoded_id}"),
            boot_id: boot_id.to_string(),
        }
    }

    fn path(&self, module: &str, freq: Frequency) -> String {
        match freq {
            Frequency::PerInstance => format!("{}/sem/{module}", self.instance_dir),
            Frequency::PerOnce => format!("{EMBER_LIB}/sem/{module}.once"),
            Frequency::PerBoot => format!("{}/sem/{module}.boot", self.instance_dir),
        }
    }

    /// Whether the module's semaphore says it ran. `Err` when something stands at its name
    /// that is not a regular file reached without a link (a directory, a FIFO, a link, dangling
    /// or not, there or in a directory above it below ember's state directory), or it is too
    /// large: whether it ran is unknown, and the caller must not run it, since running a module
    /// twice is what semaphores exist to prevent. The error names the path and what is there.
    pub fn done(&self, module: &str, freq: Frequency) -> Result<bool, Diag> {
        let path = self.path(module, freq);
        let below = path.strip_prefix(EMBER_LIB).unwrap_or(&path);
        match self.root.read_file_beneath(EMBER_LIB, below, 4096) {
            Ok(None) => Ok(false),
            Ok(Some(content)) => {
                Ok(freq != Frequency::PerBoot || content == self.boot_id.as_bytes())
            }
            Err(e) => Err(Diag::error(
                Reason::SemaphoreUnreadable,
                format!("{e}: not run, since it may have run already (remove it to run again)"),
            )
            .file(format!("module {module}"))),
        }
    }

    /// Why `module` does not run now, as its step's result: its semaphore says it ran in this
    /// period, or the semaphore cannot be read (that error goes to `unreadable`). `None`: it
    /// may run. The one decision every stage and `ember single` make before a module runs.
    pub fn skip(
        &self,
        module: &str,
        freq: Frequency,
        unreadable: impl FnOnce(Diag),
    ) -> Option<String> {
        match self.done(module, freq) {
            Ok(false) => None,
            Ok(true) => Some(format!("skipped ({} done)", freq.cloud_init_name())),
            Err(d) => {
                unreadable(d);
                Some("skipped (semaphore unreadable)".to_string())
            }
        }
    }

    /// Syncs the module's outputs first, so "done" is never recorded ahead of them.
    pub fn mark_done(&self, module: &str, freq: Frequency) -> Result<(), RootError> {
        self.mark_all_done(&[(module, freq)])
    }

    /// Several modules at once, behind one sync of everything they wrote: a power cut before
    /// the sync leaves none marked, so all of them replay (they are idempotent).
    pub fn mark_all_done(&self, modules: &[(&str, Frequency)]) -> Result<(), RootError> {
        if modules.is_empty() {
            return Ok(());
        }
        self.root.sync()?;
        self.mark_synced(modules)
    }

    /// Marks modules whose outputs the caller has already synced, with the rest of its stage,
    /// at the stage's one durable point (`Root::sync`). Each mark replaces its file atomically;
    /// a mark lost to a power cut after the sync makes its module replay, never skip.
    pub fn mark_synced(&self, modules: &[(&str, Frequency)]) -> Result<(), RootError> {
        for (module, freq) in modules {
            self.write_mark(module, *freq)?;
        }
        Ok(())
    }

    /// Marks that an at-most-once module is about to run (`<name>.started`). The caller makes
    /// it durable before the module's first command (`Exec::flush_before_commands`): a module
    /// that runs none needs no flush for it.
    pub fn mark_started(&self, started: &str, freq: Frequency) -> Result<(), RootError> {
        self.write_mark(started, freq)
    }

    /// A marker is incidental: the next sync is for outputs, not for it.
    fn write_mark(&self, module: &str, freq: Frequency) -> Result<(), RootError> {
        let content = match freq {
            Frequency::PerBoot => self.boot_id.clone(),
            _ => String::new(),
        };
        let path = self.path(module, freq);
        self.root.incidental(|| {
            self.root
                .write_file(&path, content.as_bytes(), &FileSpec::mode(0o644))
        })
    }
}

/// Semaphores a module asks for besides its own, to be marked with the stage's (ssh's
/// `ssh-hostkeys`, kept even when the rest of the module fails and replays).
#[derive(Debug, Default)]
pub struct ExtraMarks(std::cell::RefCell<Vec<(&'static str, Frequency)>>);

impl ExtraMarks {
    pub fn add(&self, name: &'static str, freq: Frequency) {
        self.0.borrow_mut().push((name, freq));
    }
    pub fn take(&self) -> Vec<(&'static str, Frequency)> {
        self.0.take()
    }
}

/// The instance id of the previous boot, from ember's state or, on an image that ran
/// cloud-init before, from cloud-init's.
pub fn previous_instance_id(root: ReadOnly) -> Option<String> {
    [
        format!("{EMBER_LIB}/data/instance-id"),
        format!("{}/data/instance-id", crate::paths::system().cloud_dir),
    ]
    .iter()
    .find_map(|p| {
        let data = root.read_file(p, MAX_INSTANCE_ID as u64 + 1).ok()??;
        let id = String::from_utf8(data)
            .ok()?
            .trim_end_matches('\n')
            .to_string();
        check_instance_id(&id).ok().map(|_| id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semaphores_by_frequency() {
        let dir = std::env::temp_dir().join(format!("ember-sem-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = Root::open_deferred(&dir).unwrap();
        let boot1 = Semaphores::new(&root, "i-1", "boot-a");
        for freq in [
            Frequency::PerInstance,
            Frequency::PerBoot,
            Frequency::PerOnce,
        ] {
            assert!(!boot1.done("runcmd", freq).unwrap());
            boot1.mark_done("runcmd", freq).unwrap();
            assert!(boot1.done("runcmd", freq).unwrap());
        }
        // A new boot of the same instance: only the per-boot one runs again.
        let boot2 = Semaphores::new(&root, "i-1", "boot-b");
        assert!(boot2.done("runcmd", Frequency::PerInstance).unwrap());
        assert!(!boot2.done("runcmd", Frequency::PerBoot).unwrap());
        assert!(boot2.done("runcmd", Frequency::PerOnce).unwrap());
        // A new instance: per-instance runs again, per-once never.
        let other = Semaphores::new(&root, "i-2", "boot-b");
        assert!(!other.done("runcmd", Frequency::PerInstance).unwrap());
        assert!(other.done("runcmd", Frequency::PerOnce).unwrap());
        // A semaphore that is a directory: unknown, so an error, never "not done".
        std::fs::create_dir_all(dir.join("var/lib/ember/instances/i-2/sem/ntp")).unwrap();
        let err = other.done("ntp", Frequency::PerInstance).unwrap_err();
        assert_eq!(err.code, "semaphore-unreadable");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn previous_id_falls_back_to_cloud_init_state() {
        let dir = std::env::temp_dir().join(format!("ember-prev-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = Root::open_deferred(&dir).unwrap();
        assert_eq!(previous_instance_id(ReadOnly::new(&root)), None);
        let spec = FileSpec::mode(0o644);
        root.write_file("/var/lib/cloud/data/instance-id", b"i-ci\n", &spec)
            .unwrap();
        assert_eq!(
            previous_instance_id(ReadOnly::new(&root)).as_deref(),
            Some("i-ci")
        );
        root.write_file("/var/lib/ember/data/instance-id", b"i-ember\n", &spec)
            .unwrap();
        assert_eq!(
            previous_instance_id(ReadOnly::new(&root)).as_deref(),
            Some("i-ember")
        );
        root.write_file("/var/lib/ember/data/instance-id", b"bad\0id\n", &spec)
            .unwrap();
        assert_eq!(
            previous_instance_id(ReadOnly::new(&root)).as_deref(),
            Some("i-ci")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn hostile_ids_are_refused_or_encoded() {
        assert_eq!(check_instance_id(""), Err(BadInstanceId::Empty));
        assert_eq!(
            check_instance_id("a\nb"),
            Err(BadInstanceId::ControlCharacter)
        );
        assert_eq!(
            check_instance_id("a\0b"),
            Err(BadInstanceId::ControlCharacter)
        );
        assert_eq!(
            check_instance_id(&"x".repeat(4096)),
            Err(BadInstanceId::TooLong(4096))
        );
        assert!(check_instance_id("i-0123456789abcdef0").is_ok());

        let cases = [
            ("i-0123abc", "i-0123abc"),
            ("..", "%2E."),
            (".", "%2E"),
            ("../../etc", "%2E.%2F..%2Fetc"),
            ("a/b", "a%2Fb"),
            ("iid-local01", "iid-local01"),
            ("ä", "%C3%A4"),
        ];
        for (id, want) in cases {
            assert_eq!(encode_instance_id(id), want, "{id:?}");
        }
        let long = encode_instance_id(&"/".repeat(1000));
        assert!(long.len() <= 200 && !long.contains('/'));
        assert_ne!(long, encode_instance_id(&"/".repeat(999)));
    }
}
