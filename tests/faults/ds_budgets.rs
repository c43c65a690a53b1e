//! Fault suite, datasource budgets (RELIABILITY.md rule 9): what a datasource builds from its
//! answers must stay within a budget, not only each answer. Variables that expand other
//! variables stop at the context's budget, and everything one datasource fetches in a boot
//! stops at one total budget; each names the budget that stopped it, never a value, and the
//! rest of the boot goes on.

#![cfg(any(feature = "ds-opennebula", feature = "ds-lxd"))]

use crate::common;
use common::{stderr, Machine};

/// Expected: a context.sh of about 300 bytes whose variables each hold ten copies of the one
/// before (`A7` alone would be 10^8 bytes) keeps its expansions within the context's budget
/// (`file_bytes`): the variable that passes it is left out with an error naming the file,
/// the variable and the budget, never its value; the variables before it and the rest of the
/// context (the hostname) are used, and the boot costs little memory.
#[test]
#[cfg(feature = "ds-opennebula")]
fn shell_variables_that_expand_each_other_stop_at_the_context_budget() {
    let m = Machine::new("dsb-one-expand");
    let mut text = String::from("SET_HOSTNAME='one-expand'\nA0='xxxxxxxxxx'\n");
    for i in 1..8 {
        let prev = format!("$A{}", i - 1);
        text.push_str(&format!("A{i}=\"{}\"\n", prev.repeat(10)));
    }
    text.push_str("AFTER='used'\n");
    assert!(text.len() < 400, "{} bytes", text.len());
    m.write(
        &m.target,
        "etc/cloud/cloud.cfg",
        b"ember:\n  limits:\n    file_bytes: 4194304\n",
    );
    m.seed_files(
        &m.target,
        "var/lib/cloud/seed/opennebula",
        &[("context.sh", &text)],
    );
    let (out, rss) =
        common::faults::run_measured(&mut common::faults::initrd_command(&m, &["all"]));
    eprintln!("peak RSS {rss} KiB");
    assert_eq!(m.status()["datasource"], "opennebula", "{}", stderr(&out));
    let over: Vec<serde_json::Value> = m
        .errors()
        .into_iter()
        .filter(|d| d["budget"] == "file_bytes")
        .collect();
    assert!(!over.is_empty(), "no budget error: {:#?}", m.diags());
    // 10^6 bytes fit in 4 MiB with what came before; 10^7 does not.
    assert_eq!(over[0]["key"], "A6", "{:#?}", over);
    assert_eq!(
        over[0]["file"], "/var/lib/cloud/seed/opennebula/context.sh",
        "{:#?}",
        over
    );
    assert!(!over[0].to_string().contains("xxxxxxxxxx"), "{}", over[0]);
    assert_eq!(m.target_file("etc/hostname").trim(), "one-expand");
    let md = std::fs::read_to_string(m.run.join("cloud-init/instance-data.json")).unwrap();
    assert!(md.contains("\"AFTER\""), "the rest of the context is used");
    assert!(rss < 64 * 1024, "peak RSS {rss} KiB");
}

/// Expected: a container whose LXD lists 48 `user.*` keys of 4 MiB each (192 MiB, each key
/// within its own budget) reads at most `datasource_bytes` (16 MiB here) from the socket in
/// all: the keys past it are left out, each with an error naming the route, the key and the
/// budget; the meta-data and the user-data read before them still provision the container;
/// fetched.json on /run stays within the budget, and memory follows the budget, not the
/// answers.
#[test]
#[cfg(feature = "ds-lxd")]
fn many_answers_each_within_its_budget_stop_at_the_datasource_total() {
    use common::emulator::lxd;
    let m = Machine::new("dsb-lxd-total");
    let server = lxd::start(&m.host.join("dev/lxd/sock"));
    let cfg = "ember:\n  limits:\n    request_timeout_ms: 5000\n    datasource_timeout_ms: 60000\n    datasource_bytes: 16777216\n";
    m.write(&m.target, "etc/cloud/cloud.cfg", cfg.as_bytes());
    let mut keys = lxd::config();
    let big = "x".repeat(4 << 20);
    for i in 0..48 {
        keys.insert(format!("user.k{i:02}"), big.clone());
    }
    server.set_config(keys);
    let (out, rss) =
        common::faults::run_measured(&mut common::faults::initrd_command(&m, &["all"]));
    eprintln!("peak RSS {rss} KiB");
    assert_eq!(m.status()["datasource"], "lxd", "{}", stderr(&out));
    assert_eq!(m.target_file("etc/hostname").trim(), "c1");
    assert_eq!(
        m.target_file("etc/lxd-secret").trim(),
        "lxd-user-data-secret-91ac"
    );
    let over: Vec<serde_json::Value> = m
        .errors()
        .into_iter()
        .filter(|d| d["budget"] == "datasource_bytes")
        .collect();
    assert!(!over.is_empty(), "no budget error: {:#?}", m.diags());
    let first = &over[0];
    assert_eq!(first["code"], "budget-exceeded", "{first}");
    assert!(
        first["file"]
            .as_str()
            .is_some_and(|f| f.starts_with("/dev/lxd/sock: /1.0/config/user.k")),
        "{first}"
    );
    assert!(
        first["key"]
            .as_str()
            .is_some_and(|k| k.starts_with("user.k")),
        "{first}"
    );
    // Three keys fit beside the meta-data and the user-data; the 45 others are named.
    assert_eq!(over.len(), 45, "{over:#?}");
    let fetched = std::fs::metadata(m.run.join("ember/fetched.json"))
        .unwrap()
        .len();
    assert!(
        (12 << 20..=16 << 20).contains(&fetched),
        "fetched.json: {fetched} bytes"
    );
    assert!(rss < 160 * 1024, "peak RSS {rss} KiB");
}
