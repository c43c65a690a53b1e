use super::*;
use crate::handoff::ModuleCall;
use serde_json::json;

fn names(cfg: &Value) -> (Vec<(&'static str, Stage, &'static str)>, Vec<Diag>) {
    let mut diags = Vec::new();
    let planned = modules(cfg, &mut diags)
        .into_iter()
        .map(|p| (p.spec.name, p.stage, p.frequency.cloud_init_name()))
        .collect();
    (planned, diags)
}

#[test]
fn default_lists_carry_their_keys() {
    let cfg = json!({"runcmd": ["ls"], "final_message": "bye"});
    let calls = runner_modules(&cfg);
    let runcmd = calls.iter().find(|c| c.name == "runcmd").unwrap();
    assert_eq!(runcmd.stage, "config");
    let as_read: ModuleCall = serde_json::from_value(json!(runcmd)).unwrap();
    assert_eq!(as_read.config, json!({"runcmd": ["ls"]}));
    assert_eq!(as_read.stage, "config");
    let fm = calls.iter().find(|c| c.name == "final_message").unwrap();
    assert_eq!((fm.stage, fm.frequency.as_str()), ("final", "always"));
}

/// With no lists, the modules ember has of cloud-init's default lists, in their order.
#[test]
fn defaults_are_cloud_inits_lists() {
    let (planned, diags) = names(&json!({}));
    assert!(diags.is_empty());
    let local: Vec<_> = planned.iter().filter(|p| p.1 == Stage::Local).collect();
    assert_eq!(local.first().map(|p| p.0), Some("seed_random"));
    assert_eq!(local.last().map(|p| p.0), Some("set_passwords"));
    assert!(planned.contains(&("growpart", Stage::Local, "always")));
    assert!(planned.contains(&("bootcmd", Stage::Init, "always")));
    assert!(planned.contains(&("runcmd", Stage::Config, "once-per-instance")));
    assert!(planned.contains(&("scripts_user", Stage::Final, "once-per-instance")));
}

#[test]
fn image_lists_override_with_frequencies() {
    let cfg = json!({"cloud_config_modules": ["runcmd", ["timezone", "always"], {"name": "ntp", "frequency": "once"}, 7], "cloud_final_modules": []});
    let calls = runner_modules(&cfg);
    let names: Vec<_> = calls
        .iter()
        .map(|c| (c.name.as_str(), c.stage, c.frequency.as_str()))
        .collect();
    // No cloud_init_modules: cloud-init's default list (bootcmd, ca_certs, rsyslog) for the
    // early unit.
    assert_eq!(
        names,
        [
            ("bootcmd", "init", "always"),
            ("ca_certs", "init", "once-per-instance"),
            ("rsyslog", "init", "once-per-instance"),
            ("runcmd", "config", "once-per-instance"),
            ("timezone", "config", "always"),
            ("ntp", "config", "once")
        ]
    );
}

/// A module left out of the lists does not run; order and frequencies are the lists'; the
/// initramfs's modules stay there, a runner module goes to the stage of its list.
#[test]
fn lists_decide_what_runs_in_which_order() {
    let cfg = json!({
        "cloud_init_modules": ["ssh", "cc_write-files", ["users-groups", "always"], "runcmd"],
        "cloud_config_modules": ["set_passwords", "locale"],
        "cloud_final_modules": null
    });
    let (planned, diags) = names(&cfg);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        planned,
        [
            ("ssh", Stage::Local, "once-per-instance"),
            ("write_files", Stage::Local, "once-per-instance"),
            ("users_groups", Stage::Local, "always"),
            ("runcmd", Stage::Init, "once-per-instance"),
            ("set_passwords", Stage::Local, "once-per-instance"),
            ("locale", Stage::Config, "once-per-instance"),
        ]
    );
}

/// Unknown names, unknown frequencies and unreadable items: a warning naming the item, the
/// rest of the list kept; a list that is no list: a warning, and the default list. Modules
/// cloud-init dropped, which older images' lists name, are skipped quietly.
#[test]
fn bad_items_are_warnings_naming_the_item() {
    let cfg = json!({
        "cloud_init_modules": ["growpart", "no_such_module", ["resizefs", "weekly"], 5, {"frequency": "always"}, "", null, [], "migrator", "rightscale-userdata"],
        "cloud_final_modules": "final_message"
    });
    let (planned, diags) = names(&cfg);
    let got: Vec<_> = diags
        .iter()
        .map(|d| (d.code.as_str(), d.key.as_deref().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("module-unknown", "cloud_init_modules.1"),
            ("frequency-unknown", "cloud_init_modules.2.1"),
            ("wrong-type", "cloud_init_modules.3"),
            ("wrong-type", "cloud_init_modules.4"),
            ("wrong-type", "cloud_final_modules"),
        ]
    );
    assert!(diags[0].message.contains("no_such_module"));
    assert!(diags.iter().all(|d| !d.is_error()));
    let init: Vec<_> = planned
        .iter()
        .filter(|p| p.1 == Stage::Local || p.1 == Stage::Init)
        .collect();
    assert_eq!(
        init,
        [
            &("growpart", Stage::Local, "always"),
            &("resizefs", Stage::Local, "always")
        ]
    );
    assert!(planned.contains(&("scripts_user", Stage::Final, "once-per-instance")));
}

/// A module named twice runs once, as its first entry says.
#[test]
fn a_module_named_twice_runs_once() {
    let cfg = json!({"cloud_config_modules": [["runcmd", "always"], "runcmd"], "cloud_final_modules": ["runcmd"]});
    let calls = runner_modules(&cfg);
    let runcmd: Vec<_> = calls.iter().filter(|c| c.name == "runcmd").collect();
    assert_eq!(runcmd.len(), 1);
    assert_eq!(
        (runcmd[0].stage, runcmd[0].frequency.as_str()),
        ("config", "always")
    );
}

/// `unverified_modules` reaches the runner, which runs those modules on any distribution.
#[test]
fn unverified_modules_are_marked_for_the_runner() {
    let cfg = json!({
        "cloud_config_modules": ["apt_pipelining", "runcmd"],
        "unverified_modules": ["cc_apt_pipelining", "no_such"]
    });
    let calls = runner_modules(&cfg);
    let marked: Vec<_> = calls
        .iter()
        .filter(|c| c.unverified)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(marked, ["apt_pipelining"]);
}
