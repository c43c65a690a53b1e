//! RELIABILITY rule 11 in the runner, counted with strace: a module's marker follows a flush of
//! what it wrote (its files, or anything a command it ran may have written); a module that wrote
//! nothing costs no flush; an at-most-once module's `started` marker is on the disk before its
//! first command runs. SKIP where strace is missing or cannot trace.

use crate::common;
use common::chroot::{cannot_chroot, Machine};
use common::{have, skip, text};
use serde_json::{json, Value};
use std::process::Command;

const APPLETS: &[&str] = &["sh", "echo", "cat", "true"];

fn call(name: &str, stage: &str, config: Value) -> Value {
    json!({"name": name, "stage": stage, "frequency": "once-per-instance", "config": config})
}

/// `ember modules --mode MODE` under strace: its syncs, renames and execs, in order.
fn traced(m: &Machine, mode: &str) -> Vec<String> {
    let trace = m.dir.join(format!("{mode}.strace"));
    let out = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-y",
            "-e",
            "trace=syncfs,renameat,renameat2,execve",
            "-o",
        ])
        .arg(&trace)
        .arg(common::EMBER)
        .arg("--target")
        .arg(&m.target)
        .arg("--run")
        .arg(&m.run)
        .arg("--host")
        .arg(common::boot_host(&m.dir, "boot-1"))
        .args(["modules", "--mode", mode])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    common::strace_lines(&trace)
}

#[test]
fn the_runner_flushes_for_what_was_written_and_before_guarded_commands() {
    if cannot_chroot() {
        return;
    }
    if !have("strace") {
        skip("no strace (scripts/setup installs it)");
        return;
    }
    let m = Machine::new("durable", APPLETS);
    let cfg = json!({"runcmd": ["echo ran >> /ran"]});
    m.boot_modules(json!([
        call("runcmd", "config", cfg.clone()),
        call("scripts_per_once", "final", json!({})),
        call("scripts_user", "final", cfg.clone()),
        call("final_message", "final", json!({})),
    ]));
    let config = traced(&m, "config");
    // runcmd writes its script: flushed, then marked.
    assert_eq!(
        events(&config),
        ["write scripts/runcmd", "flush", "mark runcmd"],
        "{config:#?}"
    );
    let fin = traced(&m, "final");
    assert_eq!(
        events(&fin),
        [
            // Nothing to run, nothing written: no flush.
            "mark scripts_per_once.started",
            "mark scripts_per_once",
            // The start on the disk before the script runs; the script's writes before done.
            "mark scripts_user.runcmd.started",
            "flush",
            "run runcmd",
            "flush",
            "mark scripts_user.runcmd",
            "mark final_message",
            // The results, flushed before the run directory's copy tells waiters.
            "write i-1/boot-finished",
            "write data/result.json",
            "flush",
        ],
        "{fin:#?}"
    );
    assert_eq!(m.read("/ran"), "ran\n");
}

/// The trace as events in the target: `flush`, `mark NAME` (a semaphore), `write DIR/NAME`
/// (the last directory and the file), `run NAME` (a program of the target executed).
fn events(trace: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for line in trace {
        if line.starts_with("syncfs(") {
            out.push("flush".to_string());
        } else if line.starts_with("renameat") {
            let dir = line.split_once('<').unwrap().1.split_once('>').unwrap().0;
            let name = line
                .rsplit_once(", \"")
                .unwrap()
                .1
                .split_once('"')
                .unwrap()
                .0;
            let parent = dir.rsplit('/').next().unwrap();
            if parent == "sem" {
                out.push(format!("mark {name}"));
            } else if dir.contains("/target/") {
                out.push(format!("write {parent}/{name}"));
            }
        } else if line.starts_with("execve(\"/var/lib/cloud/") && line.contains(") = 0") {
            let prog = line.split_once('"').unwrap().1.split_once('"').unwrap().0;
            out.push(format!("run {}", prog.rsplit('/').next().unwrap()));
        }
    }
    out
}
