//! cloud-init's launch-index filter (EC2's `ami-launch-index`): parts marked for another
//! instance of the same launch are dropped, whether the mark is a MIME `Launch-Index` header,
//! an archive item's `launch-index` or a cloud-config's own `launch-index` key.

use super::*;
use serde_json::json;

const PARTS: &str = "Content-Type: multipart/mixed; boundary=\"B\"\r
\r
--B\r
Content-Type: text/x-shellscript\r
Launch-Index: 0\r
\r
#!/bin/sh\r
echo zero\r
--B\r
Content-Type: text/x-shellscript\r
Launch-Index: 1\r
\r
#!/bin/sh\r
echo one\r
--B\r
Content-Type: text/x-shellscript\r
\r
#!/bin/sh\r
echo everyone\r
--B\r
Content-Type: text/cloud-config\r
\r
#cloud-config\r
{\"launch-index\": 0, \"runcmd\": [\"zero\"]}\r
--B\r
Content-Type: text/cloud-config\r
\r
#cloud-config\r
{\"launch-index\": \"1\", \"bootcmd\": [\"one\"]}\r
--B\r
Content-Type: text/cloud-config-archive\r
\r
#cloud-config-archive\r
[{\"content\": \"#!/bin/sh\\necho archived zero\", \"launch-index\": 0},\r
 {\"content\": \"#!/bin/sh\\necho archived one\", \"launch-index\": 1}]\r
--B--\r
";

fn processed(index: Option<&str>) -> Processed {
    let mut idata = instance_data();
    if let Some(i) = index {
        idata["ds"]["meta-data"]["ami-launch-index"] = json!(i);
    }
    let ctx = Context {
        limits: &Limits::default(),
        urls: &FakeUrls::default(),
        parse_yaml: &json_yaml,
        instance_data: &idata,
        once_cache: &NoOnceCache,
    };
    process(PARTS.as_bytes(), "user-data", &ctx)
}

fn scripts(p: &Processed) -> Vec<String> {
    p.scripts
        .iter()
        .map(|s| payload(s).lines().last().unwrap().to_string())
        .collect()
}

#[test]
fn parts_for_other_launch_indexes_are_dropped() {
    let one = processed(Some("1"));
    assert_eq!(
        scripts(&one),
        ["echo one", "echo everyone", "echo archived one"]
    );
    assert_eq!(one.cloud_config["bootcmd"], json!(["one"]));
    assert!(one.cloud_config.get("runcmd").is_none());
    assert!(one.diags.is_empty(), "{:?}", one.diags);

    let zero = processed(Some("0"));
    assert_eq!(
        scripts(&zero),
        ["echo zero", "echo everyone", "echo archived zero"]
    );
    assert_eq!(zero.cloud_config["runcmd"], json!(["zero"]));
    assert!(zero.cloud_config.get("bootcmd").is_none());
}

/// Where meta-data gives no launch index (every cloud but EC2), nothing is filtered.
#[test]
fn without_a_launch_index_every_part_is_kept() {
    let all = processed(None);
    assert_eq!(scripts(&all).len(), 5);
    assert_eq!(all.cloud_config["runcmd"], json!(["zero"]));
    assert_eq!(all.cloud_config["bootcmd"], json!(["one"]));
}
