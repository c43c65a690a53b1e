//! cloud-init's integration tests (`tests/integration_tests/`): each scenario is the
//! user-data of one upstream test (or test class), provisioned by `ember-initrd all` from a
//! NoCloud seed in the target and then by the runner's stages chrooted into it (a static
//! busybox stands for the target's userland), once per boot the upstream test makes. Each row
//! is one upstream assertion, checked on the target root. An assertion that needs a real
//! machine (a package installed, a service's state) is a row that says why it is not checked.

mod apt;
mod bugs;
mod combined;
mod frequencies;
mod hostname;
mod jinja;
mod keysfile;
mod nocloud;
mod others;
mod ssh;
mod users;
mod write_files;

use crate::common::chroot::cannot_chroot;
use crate::common::target::Accounts;
use crate::common::{run, stderr, Machine, EMBER};
use crate::differences;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::process::Command;

/// One upstream test's instance: its user-data, what the image holds before it boots, and
/// how many times it boots.
#[derive(Clone, Copy)]
pub struct Scenario {
    pub user_data: &'static str,
    /// The seed's meta-data.
    pub meta_data: &'static str,
    /// The seed directory under /var/lib/cloud/seed/ (`nocloud`, `nocloud-net`); empty for
    /// none (the seed is elsewhere: `image`, `dmi_serial`).
    pub seed_dir: &'static str,
    /// The SMBIOS system serial (`ds=nocloud;s=…` seeds), empty for none.
    pub dmi_serial: &'static str,
    /// Files of the image (absolute path in the target, content).
    pub image: &'static [(&'static str, &'static str)],
    /// 1, or 2 where the upstream test restarts the instance.
    pub boots: u32,
    /// Files the upstream test changes before it restarts the instance.
    pub before_restart: &'static [(&'static str, &'static str)],
    pub rows: &'static [Row],
}

pub const SCENARIO: Scenario = Scenario {
    user_data: "",
    meta_data: "instance-id: i-conformance\nlocal-hostname: conformance\n",
    seed_dir: "nocloud",
    dmi_serial: "",
    image: &[],
    boots: 1,
    before_restart: &[],
    rows: &[],
};

/// One upstream assertion.
#[derive(Clone, Copy)]
pub struct Row {
    /// `modules/test_write_files.py::TestWriteFiles::test_write_files[file_b64]`.
    pub upstream: &'static str,
    pub checks: &'static [Check],
    /// Where ember deliberately differs: a phrase of the manual's entry (docs/src/differences.md); `checks` are then
    /// ember's outcome.
    pub differs: Option<&'static str>,
    /// The boot after which the checks hold (1-based); 0 for the scenario's last.
    pub after: u32,
}

pub const ROW: Row = Row {
    upstream: "",
    checks: &[],
    differs: None,
    after: 0,
};

/// A fact about the target after the last boot. Paths are absolute in the target.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// The file holds this text.
    Has(&'static str, &'static str),
    /// One of the file's lines is exactly this.
    Line(&'static str, &'static str),
    /// The file does not hold this text (or does not exist).
    Lacks(&'static str, &'static str),
    /// The file is exactly this text.
    Is(&'static str, &'static str),
    /// The text occurs this many times in the file.
    Count(&'static str, &'static str, usize),
    /// The file's MD5, as the upstream test's `md5sum`.
    Md5(&'static str, &'static str),
    Mode(&'static str, u32),
    /// Owner and group by name, through the target's passwd and group files.
    Owner(&'static str, &'static str, &'static str),
    Exists(&'static str),
    Absent(&'static str),
    /// A line of /etc/shadow's field 2 (the password) for a user, exactly.
    Password(&'static str, &'static str),
    /// The password field starts with this text.
    PasswordStarts(&'static str, &'static str),
    /// The two users' password fields differ.
    PasswordsDiffer(&'static str, &'static str),
    /// Field N (0-based) of the line of `name` in a colon-separated file (passwd, group,
    /// shadow) is exactly this.
    Field(&'static str, &'static str, usize, &'static str),
    /// That field, a comma-separated list (a group's members), holds this item.
    Member(&'static str, &'static str, &'static str),
    /// That field is a number of this many digits (`[0-9]{4}` upstream).
    FieldDigits(&'static str, &'static str, usize, usize),
    /// No name has two lines in a colon-separated file.
    NoDuplicates(&'static str),
    /// A diagnostic (of any severity) names this key path.
    Said(&'static str),
    /// A file of the run directory (`/run`) holds this text.
    RunHas(&'static str, &'static str),
    /// A link of the run directory points at this (`/run/…`: the run directory's own path).
    RunLink(&'static str, &'static str),
    /// No stage recorded an error.
    NoErrors,
    /// Not checkable on a target root: why (what the upstream test needs).
    NotCheckable(&'static str),
}

/// A target with a busybox userland, root and the image's files, seeded with `user_data`.
fn machine(s: &Scenario) -> Machine {
    let m = Machine::new("conformance-mod");
    let t = &m.target;
    for d in [
        "bin", "usr/bin", "var/tmp", "tmp", "home", "root", "etc/ssh",
    ] {
        std::fs::create_dir_all(t.join(d)).unwrap();
    }
    // root's home as images have it.
    std::fs::set_permissions(t.join("root"), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::copy("/bin/busybox", t.join("bin/busybox")).unwrap();
    for applet in [
        "sh", "echo", "id", "cat", "touch", "date", "tee", "md5sum", "ls",
    ] {
        symlink("busybox", t.join("bin").join(applet)).unwrap();
    }
    // busybox has no bash: the upstream scripts' `#!/bin/bash` gets its shell.
    m.write(t, "bin/bash", b"#!/bin/sh\nexec /bin/sh \"$@\"\n");
    std::fs::set_permissions(t.join("bin/bash"), std::fs::Permissions::from_mode(0o755)).unwrap();
    Accounts::root().shell("/bin/sh").shadow().write(t);
    m.write(t, "etc/default/locale", b"LANG=C.UTF-8\n");
    for (path, content) in s.image {
        m.write(t, path, content.as_bytes());
        if path.contains("bin/") {
            let mode = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(t.join(path.trim_start_matches('/')), mode).unwrap();
        }
    }
    if !s.dmi_serial.is_empty() {
        m.dmi("product_serial", s.dmi_serial);
    }
    if s.seed_dir.is_empty() {
        return m;
    }
    m.seed_files(
        t,
        &format!("var/lib/cloud/seed/{}", s.seed_dir),
        &[("meta-data", s.meta_data), ("user-data", s.user_data)],
    );
    m
}

/// One boot: /run empty (the initramfs's and the target's) and the target's /tmp too, as
/// tmpfs leaves them, the boot id `boot-N`, ember-initrd, then init, config and final.
fn boot(m: &Machine, n: u32) -> String {
    let _ = std::fs::remove_dir_all(&m.run);
    for tmpfs in ["run", "tmp"] {
        let _ = std::fs::remove_dir_all(m.target.join(tmpfs));
        std::fs::create_dir_all(m.target.join(tmpfs)).unwrap();
    }
    let boot_id = format!("boot-{n}\n");
    m.write(
        &m.host,
        "proc/sys/kernel/random/boot_id",
        boot_id.as_bytes(),
    );
    let mut log = String::new();
    let out = m.initrd("all");
    log.push_str(&format!(
        "boot {n} ember-initrd all: {:?}\n{}",
        out.status,
        stderr(&out)
    ));
    for args in [
        &["init"][..],
        &["modules", "--mode", "config"],
        &["modules", "--mode", "final"],
    ] {
        let out = run(Command::new(EMBER)
            .arg("--target")
            .arg(&m.target)
            .arg("--run")
            .arg(&m.run)
            .arg("--host")
            .arg(&m.host)
            .args(args));
        log.push_str(&format!(
            "boot {n} {args:?}: {:?}\n{}",
            out.status,
            stderr(&out)
        ));
    }
    for d in m.diags() {
        log.push_str(&format!("boot {n} diagnostic: {d}\n"));
    }
    log
}

fn read(m: &Machine, path: &str) -> Option<Vec<u8>> {
    std::fs::read(m.target.join(path.trim_start_matches('/'))).ok()
}

fn text(m: &Machine, path: &str) -> String {
    String::from_utf8_lossy(&read(m, path).unwrap_or_default()).into_owned()
}

/// The name of id `id` in the target's `file` (passwd or group).
fn name_of(m: &Machine, file: &str, id: u32) -> String {
    let db = text(m, file);
    let line = db
        .lines()
        .find(|l| l.split(':').nth(2) == Some(&id.to_string()));
    line.and_then(|l| l.split(':').next())
        .unwrap_or("?")
        .to_string()
}

fn password(m: &Machine, user: &str) -> Option<String> {
    field(m, "/etc/shadow", user, 1)
}

/// Field `i` of `name`'s line in the colon-separated `file`.
fn field(m: &Machine, file: &str, name: &str, i: usize) -> Option<String> {
    let db = text(m, file);
    let line = db.lines().find(|l| l.split(':').next() == Some(name))?;
    line.split(':').nth(i).map(str::to_string)
}

/// Why `check` does not hold, or `None` when it does.
fn failure(m: &Machine, check: &Check) -> Option<String> {
    let ok = |holds: bool, what: String| (!holds).then_some(what);
    match *check {
        Check::Has(p, t) => ok(
            text(m, p).contains(t),
            format!("{p} lacks {t:?}:\n{}", text(m, p)),
        ),
        Check::Lacks(p, t) => ok(
            !text(m, p).contains(t),
            format!("{p} holds {t:?}:\n{}", text(m, p)),
        ),
        Check::Is(p, t) => ok(
            text(m, p) == t,
            format!("{p} is {:?}, not {t:?}", text(m, p)),
        ),
        Check::Count(p, t, n) => {
            let got = text(m, p).matches(t).count();
            ok(
                got == n,
                format!("{p} holds {t:?} {got} times, not {n}:\n{}", text(m, p)),
            )
        }
        Check::Md5(p, sum) => {
            let got = read(m, p).map(|d| ember::state::md5::hex(&d));
            ok(
                got.as_deref() == Some(sum),
                format!("{p}: md5 {got:?}, not {sum}"),
            )
        }
        Check::Mode(p, mode) => {
            let got = std::fs::metadata(m.target.join(p.trim_start_matches('/')))
                .map(|md| md.mode() & 0o7777);
            let shown = got
                .as_ref()
                .map(|g| format!("{g:o}"))
                .map_err(|e| e.to_string());
            ok(
                got.ok() == Some(mode),
                format!("{p}: mode {shown:?}, not {mode:o}"),
            )
        }
        Check::Owner(p, user, group) => {
            let md = std::fs::metadata(m.target.join(p.trim_start_matches('/'))).ok()?;
            let got = (
                name_of(m, "/etc/passwd", md.uid()),
                name_of(m, "/etc/group", md.gid()),
            );
            ok(
                got == (user.into(), group.into()),
                format!("{p}: owner {got:?}, not {user}:{group}"),
            )
        }
        Check::Exists(p) => ok(
            read(m, p).is_some() || m.target.join(p.trim_start_matches('/')).exists(),
            format!("{p} missing"),
        ),
        Check::Absent(p) => ok(
            !m.target.join(p.trim_start_matches('/')).exists(),
            format!("{p} exists"),
        ),
        Check::Password(u, want) => {
            let got = password(m, u);
            ok(
                got.as_deref() == Some(want),
                format!("{u}'s password field {got:?}, not {want:?}"),
            )
        }
        Check::PasswordStarts(u, want) => {
            let got = password(m, u);
            ok(
                got.as_deref().is_some_and(|g| g.starts_with(want)),
                format!("{u}'s password field {got:?} does not start with {want:?}"),
            )
        }
        Check::PasswordsDiffer(a, b) => ok(
            password(m, a) != password(m, b),
            format!("{a} and {b} have the same password field"),
        ),
        Check::Line(p, line) => ok(
            text(m, p).lines().any(|l| l == line),
            format!("{p} has no line {line:?}:\n{}", text(m, p)),
        ),
        Check::Field(p, name, i, want) => {
            let got = field(m, p, name, i);
            ok(
                got.as_deref() == Some(want),
                format!("{p}: {name}'s field {i} is {got:?}, not {want:?}"),
            )
        }
        Check::Member(p, name, item) => {
            let got = field(m, p, name, 3).unwrap_or_default();
            ok(
                got.split(',').any(|x| x == item),
                format!("{p}: {name}'s members {got:?} lack {item}"),
            )
        }
        Check::FieldDigits(p, name, i, n) => {
            let got = field(m, p, name, i);
            let digits = got
                .as_deref()
                .is_some_and(|g| g.len() == n && g.bytes().all(|b| b.is_ascii_digit()));
            ok(
                digits,
                format!("{p}: {name}'s field {i} is {got:?}, not {n} digits"),
            )
        }
        Check::NoDuplicates(p) => {
            let db = text(m, p);
            let names: Vec<&str> = db.lines().filter_map(|l| l.split(':').next()).collect();
            let twice: Vec<&&str> = names
                .iter()
                .filter(|n| names.iter().filter(|o| o == n).count() > 1)
                .collect();
            ok(twice.is_empty(), format!("{p}: names twice: {twice:?}"))
        }
        Check::Said(key) => {
            let diags = m.diags();
            ok(
                diags.iter().any(|d| d["key"] == key),
                format!("no diagnostic names {key}: {diags:?}"),
            )
        }
        Check::RunHas(p, t) => {
            let got = std::fs::read_to_string(m.run.join(p.trim_start_matches("/run/")))
                .unwrap_or_default();
            ok(got.contains(t), format!("{p} lacks {t:?}:\n{got}"))
        }
        Check::RunLink(p, to) => {
            let got = std::fs::read_link(m.run.join(p.trim_start_matches("/run/")));
            // An absolute target under /run is the run directory's, wherever the test put it.
            let want = match to.strip_prefix("/run/") {
                Some(rest) => m.run.join(rest),
                None => to.into(),
            };
            ok(
                got.as_ref().is_ok_and(|g| *g == want),
                format!("{p} links to {got:?}, not {to}"),
            )
        }
        Check::NoErrors => {
            let errors = m.errors();
            ok(errors.is_empty(), format!("errors: {errors:?}"))
        }
        Check::NotCheckable(_) => None,
    }
}

/// Boots each scenario and checks every row; all failures are reported together.
pub fn check_all(scenarios: &[Scenario]) {
    if cannot_chroot() {
        return;
    }
    let mut failures = Vec::new();
    for s in scenarios {
        let untestable = |r: &Row| r.checks.iter().all(|c| matches!(c, Check::NotCheckable(_)));
        if s.rows.iter().all(untestable) {
            continue;
        }
        let m = machine(s);
        let mut log = String::new();
        let before = failures.len();
        for n in 1..=s.boots {
            if n > 1 {
                for (path, content) in s.before_restart {
                    m.write(&m.target, path, content.as_bytes());
                }
            }
            log.push_str(&boot(&m, n));
            let now = |r: &&Row| r.after == n || (r.after == 0 && n == s.boots);
            for row in s.rows.iter().filter(now) {
                if let Some(phrase) = row.differs {
                    differences::assert_listed(row.upstream, phrase);
                }
                for check in row.checks {
                    if let Some(why) = failure(&m, check) {
                        failures.push(format!("{} (boot {n}): {check:?}: {why}", row.upstream));
                    }
                }
            }
        }
        if failures.len() > before {
            failures.push(format!("(its boots)\n{log}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Rows and the count of them not checkable on a root, for the report.
#[test]
fn rows_name_their_upstream_test() {
    let all = [
        apt::SCENARIOS,
        bugs::SCENARIOS,
        combined::SCENARIOS,
        frequencies::SCENARIOS,
        hostname::SCENARIOS,
        jinja::SCENARIOS,
        keysfile::SCENARIOS,
        nocloud::SCENARIOS,
        others::SCENARIOS,
        ssh::SCENARIOS,
        users::SCENARIOS,
        write_files::SCENARIOS,
    ];
    let (mut rows, mut untestable, mut differing) = (0, 0, 0);
    for scenarios in all {
        for s in scenarios {
            for row in s.rows {
                rows += 1;
                differing += usize::from(row.differs.is_some());
                assert!(row.upstream.contains(".py::"), "{}", row.upstream);
                assert!(!row.checks.is_empty(), "{}", row.upstream);
                let reasons: Vec<&str> = row
                    .checks
                    .iter()
                    .filter_map(|c| match c {
                        Check::NotCheckable(why) => Some(*why),
                        _ => None,
                    })
                    .collect();
                // A row is checked, or says (alone) what it would need.
                assert!(
                    reasons.is_empty() || row.checks.len() == 1,
                    "{}",
                    row.upstream
                );
                assert!(reasons.iter().all(|r| !r.is_empty()), "{}", row.upstream);
                untestable += reasons.len();
            }
        }
    }
    // Said on the real stderr (libtest captures `eprintln!`), for whoever counts the rows.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "modules: {rows} rows, {untestable} not checkable on a root, {differing} deliberate differences"
    );
}

/// The part of Ubuntu's /etc/cloud/cloud.cfg the upstream tests rely on: its default user.
pub const UBUNTU_CLOUD_CFG: (&str, &str) = (
    "/etc/cloud/cloud.cfg",
    "system_info:
  distro: ubuntu
  default_user:
    name: ubuntu
    lock_passwd: true
    gecos: Ubuntu
    groups: [adm, sudo]
    sudo: [\"ALL=(ALL) NOPASSWD:ALL\"]
    shell: /bin/bash
",
);

/// An sshd_config that includes its drop-in directory, as Debian's and Ubuntu's do.
pub const SSHD_CONFIG: (&str, &str) = (
    "/etc/ssh/sshd_config",
    "Include /etc/ssh/sshd_config.d/*.conf\nKbdInteractiveAuthentication no\n",
);
