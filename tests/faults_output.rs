//! Fault suite, output (RELIABILITY.md rules 1 and 3, and the runner's own state): URLs with
//! passwords typed as people type them, key paths that are user input (escapes, megabytes),
//! and runner state that is hostile (a directory for a semaphore, a huge or NUL-laden handoff,
//! a 5000-digit delay). Nothing secret or raw reaches the console or status.json, output
//! stays bounded, and the runner reports each fault instead of panicking.

mod common;
use common::{assert_no_panic, stderr, Machine};

fn nocloud(m: &Machine, user_data: &str) {
    m.seed_files(
        &m.host,
        "seed",
        &[("meta-data", "instance-id: i-output\n"), ("user-data", user_data)],
    );
    m.cmdline("ro ds=nocloud;s=/seed/");
}

/// Expected: a password holding an unencoded `?`, `#` or `/` is cut out of every message with
/// the rest of the user info; the include's failure is still reported, naming the host.
#[test]
fn include_urls_with_unencoded_password_characters_never_show_the_password() {
    let m = Machine::new("out-userinfo");
    nocloud(
        &m,
        "#include\nhttp://ann:pA?s5#W0rd@127.0.0.1:9/ud\nhttp://bob:sE/cR?3t@127.0.0.1:9/ud2\n",
    );
    let out = m.initrd("all");
    assert_no_panic(&out);
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    for (what, text) in [("console", stderr(&out)), ("status.json", status)] {
        for secret in ["ann", "pA", "s5", "W0rd", "bob", "sE", "cR", "3t@"] {
            assert!(!text.contains(secret), "{secret} in the {what}:\n{text}");
        }
        assert!(text.contains("http://127.0.0.1:9/ud"), "{what}:\n{text}");
    }
}

/// Expected: an unknown key holding terminal escapes is shown with them replaced, and 230
/// unknown keys of 65 000 characters print a bounded report: each key cut, and past the
/// first hundred warnings one entry counting the rest. The boot's real work is still done.
#[test]
fn hostile_key_paths_reach_the_console_printable_and_bounded() {
    let m = Machine::new("out-keys");
    let mut ud = String::from("#cloud-config\n\"\\e]0;owned\\a\\e[2J\": 1\n");
    for i in 0..230 {
        ud.push_str(&format!("? k{i:03}{}\n: 1\n", "x".repeat(65_000)));
    }
    ud.push_str("write_files:\n  - path: /etc/kept\n    content: kept\n");
    nocloud(&m, &ud);
    let out = m.initrd("all");
    assert_no_panic(&out);
    assert_eq!(m.target_file("etc/kept"), "kept");
    let console = stderr(&out);
    let status = std::fs::read_to_string(m.run.join("ember/status.json")).unwrap();
    assert!(!console.contains('\u{1b}'), "an escape reached the console");
    assert!(!status.contains("\\u001b"), "an escape reached status.json");
    assert!(console.len() < 64 * 1024, "console: {} bytes", console.len());
    assert!(status.len() < 128 * 1024, "status.json: {} bytes", status.len());
    assert!(console.contains("more not listed"), "{console}");
}
