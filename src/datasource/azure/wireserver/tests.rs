use super::*;

const GOAL_STATE: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fuzz/seeds/ovf_env/goalstate.xml"
));

fn goal() -> GoalState {
    parse_goal_state(GOAL_STATE).unwrap()
}

fn p(line: &str) -> Vec<String> {
    crate::cmdline::split(line)
}

#[test]
fn the_goal_state_gives_incarnation_container_and_instance() {
    assert_eq!(
        goal(),
        GoalState {
            incarnation: "1".into(),
            container_id: "2b9c0a3e-5c62-4d5b-a0f6-3d8e7c1b2a90".into(),
            instance_id: "c6d5e9a1-0b7f-4e36-9b1d-2f4a8c3e5d71.web-01".into(),
        }
    );
}

#[test]
fn a_goal_state_without_a_piece_is_an_error_naming_it() {
    let text = String::from_utf8(GOAL_STATE.to_vec()).unwrap();
    for (cut, key) in [
        ("<Incarnation>1</Incarnation>", "Incarnation"),
        (
            "<ContainerId>2b9c0a3e-5c62-4d5b-a0f6-3d8e7c1b2a90</ContainerId>",
            "Container.ContainerId",
        ),
        (
            "<InstanceId>c6d5e9a1-0b7f-4e36-9b1d-2f4a8c3e5d71.web-01</InstanceId>",
            "Container.RoleInstanceList.RoleInstance.InstanceId",
        ),
    ] {
        let e = parse_goal_state(text.replace(cut, "").as_bytes()).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.key.as_deref()),
            ("wireserver-goal-state", Some(key))
        );
    }
    let empty = text.replace(
        "<Incarnation>1</Incarnation>",
        "<Incarnation> </Incarnation>",
    );
    assert!(parse_goal_state(empty.as_bytes()).is_err());
    for garbage in [&b"not xml"[..], b"<GoalState>", b"\xff<a/>", b""] {
        assert_eq!(parse_goal_state(garbage).unwrap_err().code, "xml-syntax");
    }
}

#[test]
fn ready_repeats_the_goal_state() {
    let doc = health_document(&goal(), &Health::Ready);
    let parsed = roxmltree::Document::parse(&doc).unwrap();
    let text = |name: &str| {
        parsed
            .descendants()
            .find(|n| n.tag_name().name() == name)
            .and_then(|n| n.text())
            .map(str::to_string)
    };
    assert_eq!(text("GoalStateIncarnation").as_deref(), Some("1"));
    assert_eq!(text("ContainerId").unwrap(), goal().container_id);
    assert_eq!(text("InstanceId").unwrap(), goal().instance_id);
    assert_eq!(text("State").as_deref(), Some("Ready"));
    assert_eq!(text("SubStatus"), None);
}

#[test]
fn not_ready_escapes_and_trims_the_description() {
    let mut g = goal();
    g.container_id = "a<b>&\"c'".into();
    let description = format!("bad <UserName> & \"x\"\u{1}{}", "é".repeat(600));
    let doc = health_document(&g, &Health::NotReady { description });
    let parsed = roxmltree::Document::parse(&doc).expect("well-formed");
    let text = |name: &str| {
        parsed
            .descendants()
            .find(|n| n.tag_name().name() == name)
            .and_then(|n| n.text())
            .unwrap()
            .to_string()
    };
    assert_eq!(text("ContainerId"), "a<b>&\"c'");
    assert_eq!(text("State"), "NotReady");
    assert_eq!(text("SubStatus"), "ProvisioningFailed");
    let got = text("Description");
    assert!(got.starts_with("bad <UserName> & \"x\"\u{FFFD}é"), "{got}");
    assert_eq!(got.chars().count(), 512);
}

#[test]
fn the_base_url_comes_from_the_cmdline_then_dhcp_then_the_default() {
    let dhcp = Some(Ipv4Addr::new(10, 0, 0, 7));
    assert_eq!(base_url(&p("ro"), None), "http://168.63.129.16");
    assert_eq!(base_url(&p("ro"), dhcp), "http://10.0.0.7");
    for (arg, want) in [
        ("127.0.0.1", "http://127.0.0.1"),
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("fd00::8080", "http://[fd00::8080]"),
        ("[::1]:81", "http://[::1]:81"),
        ("http://127.0.0.1:9/", "http://127.0.0.1:9"),
        ("HTTPS://wire.example", "HTTPS://wire.example"),
    ] {
        let line = p(&format!("ro ember.azure.wireserver={arg}"));
        assert_eq!(base_url(&line, dhcp), want, "{arg}");
        assert_eq!(check_override(&line), None, "{arg}");
    }
    for bad in ["wire.example", "http://", "1.2.3.4:x", "ftp://h/"] {
        let line = p(&format!("ember.azure.wireserver={bad}"));
        assert_eq!(base_url(&line, dhcp), "http://10.0.0.7", "{bad}");
        let d = check_override(&line).expect(bad);
        assert_eq!(d.key.as_deref(), Some("ember.azure.wireserver"));
        assert!(!d.to_string().contains(bad), "{d}");
    }
    assert_eq!(check_override(&p("ro")), None);
}

#[test]
fn the_command_line_names_the_wireserver() {
    let p = crate::cmdline::split;
    let params = p("ro ember.azure.wireserver=127.0.0.1:8080 quiet");
    assert_eq!(cmdline_override(&params), Some("127.0.0.1:8080"));
    assert_eq!(cmdline_override(&p("ember.azure.wireserver=")), None);
    assert_eq!(cmdline_override(&p("ember.metadata-url=http://h/")), None);
}
