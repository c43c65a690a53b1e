//! Templates that call Python's str and dict methods, as Jinja2 templates written for
//! cloud-init do (Cluster API, kubeadm): each method, and the budgets still holding.

use super::*;
use crate::userdata::jinja::render;
use serde_json::json;

fn data() -> Value {
    json!({
        "v1": {
            "local_hostname": "ip-10-0-1-23.ec2.internal",
            "cloud_name": "aws",
            "region": "us-east-1",
            "availability_zone": "us-east-1a",
            "instance_id": "i-0abc",
        },
        "ds": {"meta-data": {
            "local-hostname": "Node-1.Cluster.Example.com",
            "tags": {"role": "worker", "pool": "gpu"},
        }},
    })
}

fn rendered(template: &str) -> String {
    match render(template, &data(), &Limits::default()) {
        Ok(r) => r.text,
        Err(e) => panic!("{template}: {e:?}"),
    }
}

#[test]
fn python_string_methods() {
    let cases = [
        ("{{ ds.meta_data.local_hostname.split('.')[0] }}", "Node-1"),
        ("{{ local_hostname.split('.', 1)[1] }}", "ec2.internal"),
        ("{{ v1.local_hostname.split('.') | length }}", "3"),
        (
            "{{ ds.meta_data.local_hostname.lower() }}",
            "node-1.cluster.example.com",
        ),
        ("{{ v1.region.upper() }}", "US-EAST-1"),
        (
            "{{ v1.local_hostname.replace('.', '-') }}",
            "ip-10-0-1-23-ec2-internal",
        ),
        ("{{ v1.cloud_name.startswith('aw') }}", "True"),
        (
            "{{ v1.local_hostname.endswith(('.internal', '.local')) }}",
            "True",
        ),
        ("{{ v1.local_hostname.endswith('.local') }}", "False"),
        ("[{{ '  x \n'.strip() }}]", "[x]"),
        ("{{ ','.join(['a', 'b', 'c']) }}", "a,b,c"),
        (
            "{{ '-'.join(v1.availability_zone.split('-')[:2]) }}",
            "us-east",
        ),
        ("{{ v1.availability_zone.rstrip('abcdef') }}", "us-east-1"),
        ("{{ v1.instance_id.find('abc') }}", "3"),
        ("{{ 'worker'.title() }}", "Worker"),
        ("{{ v1.instance_id.count('a') }}", "1"),
        (
            "{% if v1.cloud_name.lower() in ['aws', 'ec2'] %}aws{% endif %}",
            "aws",
        ),
    ];
    for (template, want) in cases {
        assert_eq!(rendered(template), want, "{template}");
    }
}

#[test]
fn python_dict_methods() {
    let cases = [
        ("{{ ds.meta_data.tags.get('role') }}", "worker"),
        ("{{ ds.meta_data.tags.get('zone', 'none') }}", "none"),
        ("{{ v1.get('region', 'x') }}", "us-east-1"),
        (
            "{% for k, v in ds.meta_data.tags.items() %}{{ k }}={{ v }};{% endfor %}",
            "pool=gpu;role=worker;",
        ),
        (
            "{{ ds.meta_data.tags.keys() | sort | join(',') }}",
            "pool,role",
        ),
        (
            "{{ ds.meta_data.tags.values() | sort | join(',') }}",
            "gpu,worker",
        ),
    ];
    for (template, want) in cases {
        assert_eq!(rendered(template), want, "{template}");
    }
}

/// A method minijinja-contrib does not have is still an error naming its line, and a method
/// that multiplies data still pays fuel, so the template budgets hold.
#[test]
fn unknown_methods_and_budgets() {
    let e = render(
        "ok\n{{ v1.region.swapcase() }}",
        &data(),
        &Limits::default(),
    )
    .err()
    .unwrap();
    assert_eq!((e.what.as_str(), e.line), ("unknown method", Some(2)));
    let limits = Limits {
        template_fuel: 10_000,
        ..Limits::default()
    };
    let bomb = "{{ ('x' * 5000).replace('x', 'y' * 5000) }}";
    let e = render(bomb, &data(), &limits).err().unwrap();
    assert_eq!(e.budget, Some("template_fuel"));
    // str.format pads to any width without paying: 4 GB before the engine could charge it.
    let bomb = "ok\n{{ '{:>4000000000}'.format('') }}";
    let e = render(bomb, &data(), &Limits::default()).err().unwrap();
    assert_eq!((e.what.as_str(), e.line), ("unknown method", Some(2)));
    // join paid only for separators: 100 000 copies of 100 kB made 10 GB before the charge.
    let bomb = "{{ ''.join([('x' * 100000)] * 100000) }}";
    let e = render(bomb, &data(), &Limits::default()).err().unwrap();
    assert_eq!(e.budget, Some("template_fuel"));
}

/// A kubeadm join config in the shape Cluster API's kubeadm bootstrap provider writes, with
/// the node named after the short host name: rendered, then read as cloud-config.
#[test]
fn kubeadm_style_user_data_renders() {
    let ud = "## template: jinja\n#cloud-config\n\
        {\"hostname\": \"{{ ds.meta_data.local_hostname.split('.')[0].lower() }}\",\n\
        \"write_files\": [{\"path\": \"/run/kubeadm/kubeadm-join-config.yaml\",\n\
        \"content\": \"nodeRegistration:\\n  name: {{ local_hostname.split('.')[0] }}\\n  \
        kubeletExtraArgs:\\n    provider-id: aws:///{{ v1.availability_zone }}/{{ v1.instance_id }}\\n\"}],\n\
        \"runcmd\": [{% if v1.cloud_name.startswith('aws') %}\"echo on-aws\", {% endif %}\
        \"kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml\"]}\n";
    let idata = data();
    let urls = FakeUrls::default();
    let ctx = Context {
        limits: &Limits::default(),
        urls: &urls,
        parse_yaml: &json_yaml,
        instance_data: &idata,
        once_cache: &NoOnceCache,
    };
    let p = process(ud.as_bytes(), "user-data", &ctx);
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    assert_eq!(p.cloud_config["hostname"], "node-1");
    let content = p.cloud_config["write_files"][0]["content"]
        .as_str()
        .unwrap();
    assert!(content.contains("name: ip-10-0-1-23\n"), "{content}");
    assert!(
        content.contains("provider-id: aws:///us-east-1a/i-0abc\n"),
        "{content}"
    );
    assert_eq!(p.cloud_config["runcmd"][0], "echo on-aws");
}
