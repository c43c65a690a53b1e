use super::*;
use serde_json::json;

fn keys(diags: &[Diag]) -> Vec<(&str, &str)> {
    diags
        .iter()
        .map(|d| (d.code.as_str(), d.key.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn absent_or_not_a_mapping() {
    let mut d = Vec::new();
    assert_eq!(read(&json!({}), &mut d), None);
    assert!(d.is_empty());
    assert_eq!(read(&json!({"ansible": [1]}), &mut d), None);
    assert_eq!(keys(&d), [("wrong-type", "ansible")]);
}

#[test]
fn pull_flags_as_cloud_init_builds_them() {
    let mut d = Vec::new();
    let cfg = json!({"ansible": {"install_method": "distro", "package_name": "ansible-core",
        "pull": {"url": "https://example.com/p.git", "playbook_name": "a.yml b.yml",
                 "accept_host_key": true, "clean": false, "diff": true,
                 "vault_password_file": "/root/.vault", "timeout": "10"}}});
    let s = read(&cfg, &mut d).unwrap();
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s.install_method.as_deref(), Some("distro"));
    assert_eq!(s.package_name.as_deref(), Some("ansible-core"));
    let p = &s.pulls[0];
    assert_eq!(p.key, "ansible.pull");
    assert_eq!(p.playbooks, ["a.yml", "b.yml"]);
    assert!(p.diff);
    // Keys in the mapping's (sorted) order; false left out, true a bare flag.
    assert_eq!(
        p.flags,
        [
            "--accept-host-key",
            "--diff",
            "--timeout=10",
            "--url=https://example.com/p.git",
            "--vault-password-file=/root/.vault"
        ]
    );
}

#[test]
fn pull_as_a_list_with_playbook_names() {
    let mut d = Vec::new();
    let cfg = json!({"ansible": {"pull": [
        {"url": "u1", "playbook_names": ["x.yml", "y.yml"]},
        {"url": "u2"},
        "nonsense",
    ]}});
    let s = read(&cfg, &mut d).unwrap();
    assert_eq!(s.pulls.len(), 2);
    assert_eq!(s.pulls[0].playbooks, ["x.yml", "y.yml"]);
    assert_eq!(s.pulls[0].flags, ["--url=u1"]);
    assert_eq!(s.pulls[1].key, "ansible.pull.1");
    assert_eq!(
        keys(&d),
        [
            ("missing-key", "ansible.pull.1"),
            ("wrong-type", "ansible.pull.2")
        ]
    );
}

#[test]
fn wrong_values_name_their_keys() {
    let mut d = Vec::new();
    let cfg = json!({"ansible": {"install_method": "snap", "run_user": 5,
        "galaxy": {"actions": [["ansible-galaxy", "install", "x"], "oops"]},
        "pull": {"url": "u", "playbook_name": "p", "clean": "yes", "checkout": 3}}});
    let s = read(&cfg, &mut d).unwrap();
    assert_eq!(s.galaxy.unwrap(), [["ansible-galaxy", "install", "x"]]);
    assert_eq!(
        keys(&d),
        [
            ("bad-value", "ansible.install_method"),
            ("wrong-type", "ansible.galaxy.actions.1"),
            ("wrong-type", "ansible.run_user"),
            ("wrong-type", "ansible.pull.checkout"),
            ("wrong-type", "ansible.pull.clean"),
        ]
    );
    // cloud-init passes such values on as written.
    assert_eq!(s.pulls[0].flags, ["--checkout=3", "--clean=yes", "--url=u"]);
}

#[test]
fn controller_entries() {
    let mut d = Vec::new();
    let cfg = json!({"ansible": {"setup_controller": {
        "repositories": [{"source": "git@h:r.git", "path": "/home/a/r"}, {"path": "/x"}],
        "run_ansible": [{"playbook_dir": "/home/a/r", "playbook_name": "site.yml",
                         "timeout": 120, "check": true, "diff": false, "forks": -1}]}}});
    let s = read(&cfg, &mut d).unwrap();
    let c = s.controller.unwrap();
    assert_eq!(
        c.repositories,
        [("git@h:r.git".to_string(), "/home/a/r".to_string())]
    );
    let r = &c.run_ansible[0];
    assert_eq!(r.playbook_dir.as_deref(), Some("/home/a/r"));
    assert_eq!(r.flags, ["--check=True", "--forks=-1", "--timeout=120"]);
    assert_eq!(
        keys(&d),
        [
            ("missing-key", "ansible.setup_controller.repositories.1"),
            ("wrong-type", "ansible.setup_controller.run_ansible.0.forks")
        ]
    );
}
