//! Jinja user-data as Cluster API's kubeadm bootstrap and similar tools publish it: Python
//! string and dict methods over instance data, rendered at boot and read as cloud-config.

use crate::common;
use common::{stderr, Machine};

const SEED_DIR: &str = "var/lib/cloud/seed/nocloud";

/// A worker's join config, in the shape kubeadm bootstrap templates take (written for this
/// test): the node is named after the short host name, lower-cased, with labels from the
/// instance data and a step only on some clouds.
const KUBEADM_JOIN: &str = r#"## template: jinja
#cloud-config
hostname: "{{ ds.meta_data.local_hostname.split('.')[0] }}"
fqdn: "{{ ds.meta_data.local_hostname.lower() }}"
write_files:
  - path: /run/kubeadm/kubeadm-join-config.yaml
    owner: root:root
    permissions: '0640'
    content: |
      apiVersion: kubeadm.k8s.io/v1beta3
      kind: JoinConfiguration
      nodeRegistration:
        name: "{{ ds.meta_data.local_hostname.split('.')[0].lower() }}"
        kubeletExtraArgs:
          node-labels: "pool={{ ds.meta_data.get('pool', 'default') }},cloud={{ v1.cloud_name.upper() }}"
          provider-id: "{{ 'nocloud://' ~ v1.instance_id.replace('i-', '') }}"
runcmd:
{% if v1.cloud_name.startswith('no') and not ds.meta_data.local_hostname.endswith('.local') %}
  - echo "domain {{ '.'.join(ds.meta_data.local_hostname.split('.')[1:]) }}"
{% endif %}
  - kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml
"#;

/// Expected: the template renders at boot with no diagnostic; the merged config has the short
/// host name, the join config names the node with it lower-cased, and the conditional step
/// is there.
#[test]
fn kubeadm_join_template_with_python_methods_renders() {
    let m = Machine::new("tmpl-kubeadm");
    let meta = "instance-id: i-capi42\nlocal-hostname: Worker-MD-0-7F9.cluster.example.com\n";
    m.write(&m.target, &format!("{SEED_DIR}/meta-data"), meta.as_bytes());
    m.write(
        &m.target,
        &format!("{SEED_DIR}/user-data"),
        KUBEADM_JOIN.as_bytes(),
    );
    let out = m.initrd("all");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(m.diags().is_empty(), "{:#?}", m.diags());
    // v1.local_hostname is the first label, as cloud-init's get_hostname gives it.
    let data = m.json("cloud-init/instance-data.json");
    assert_eq!(data["v1"]["local_hostname"], "Worker-MD-0-7F9");
    let cfg = m.json("cloud-init/combined-cloud-config.json");
    assert_eq!(cfg["hostname"], "Worker-MD-0-7F9");
    assert_eq!(cfg["fqdn"], "worker-md-0-7f9.cluster.example.com");
    let join = cfg["write_files"][0]["content"].as_str().unwrap();
    assert!(join.contains("  name: \"worker-md-0-7f9\"\n"), "{join}");
    assert!(
        join.contains("node-labels: \"pool=default,cloud=NOCLOUD\""),
        "{join}"
    );
    assert!(join.contains("provider-id: \"nocloud://capi42\""), "{join}");
    assert_eq!(
        cfg["runcmd"],
        serde_json::json!([
            "echo \"domain cluster.example.com\"",
            "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml"
        ])
    );
}
