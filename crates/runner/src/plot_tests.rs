//! The plot's layout (rows, bar widths, canvas size, markers) and its SVG: well-formed XML
//! whatever the names hold.

use super::*;
use crate::error::Diag;
use crate::reason::Reason;
use crate::status::{StageState, Step};

fn stage(start: f64, secs: Option<f64>, steps: Vec<Step>) -> StageStatus {
    let mut s = StageStatus::started(start, 1_700_000_000.0 + start, 1);
    if let Some(d) = secs {
        s.state = StageState::Done;
        s.finished = Some(start + d);
        s.duration_us = Some((d * 1e6).round() as u64);
    }
    s.steps = steps;
    s
}

fn step(name: &str, start: Option<f64>, us: u64, result: &str) -> Step {
    Step {
        name: name.into(),
        start,
        duration_us: us,
        result: result.into(),
    }
}

/// A boot of 5.3 s (binary-exact times): detect and local in the initramfs (local's second step failed, its third
/// did not run), then config in the booted system.
fn boot() -> Vec<(&'static str, StageStatus)> {
    vec![
        (
            "detect",
            stage(
                1.2,
                Some(0.01),
                vec![step("detect nocloud", Some(1.2), 5_000, "ok")],
            ),
        ),
        (
            "local",
            stage(
                1.25,
                Some(1.5),
                vec![
                    step("module growpart", Some(1.25), 800_000, "ok"),
                    step("module write_files", Some(2.2), 3_000, "error (exit 1)"),
                    step("module disk_setup", None, 0, "skipped"),
                ],
            ),
        ),
        (
            "config",
            stage(
                4.3,
                Some(1.0),
                vec![step("module runcmd", Some(4.4), 500_000, "ok")],
            ),
        ),
    ]
}

fn refs<'a>(v: &'a [(&'static str, StageStatus)]) -> Vec<(&'static str, &'a StageStatus)> {
    v.iter().map(|(n, s)| (*n, s)).collect()
}

fn plot(v: &[(&'static str, StageStatus)], sshd: Sshd) -> Layout {
    layout("boot".into(), &refs(v), sshd)
}

#[test]
fn a_row_per_stage_and_step_in_order_with_its_class() {
    let l = plot(&boot(), Err("test"));
    let rows: Vec<(&str, &str, bool)> = l
        .rows
        .iter()
        .map(|r| (r.label.as_str(), r.class, r.w.is_some()))
        .collect();
    assert_eq!(
        rows,
        [
            ("detect 10.0ms", "si", true),
            ("detect nocloud 5.0ms (ok)", "ti", true),
            ("local 1.50s", "si", true),
            ("module growpart 800.0ms (ok)", "ti", true),
            ("module write_files 3.0ms (error (exit 1))", "f", true),
            ("module disk_setup: not run, skipped", "k", false),
            ("config 1.00s", "sr", true),
            ("module runcmd 500.0ms (ok)", "tr", true),
        ]
    );
    assert_eq!(
        l.rows.iter().filter(|r| r.stage).count(),
        3,
        "one stage row each"
    );
}

#[test]
fn bars_start_and_span_their_recorded_times() {
    let l = plot(&boot(), Err("test"));
    // 5.3 s rounds up to a 6 s axis with a gridline every second, over 1000 px.
    assert_eq!((l.axis_end, l.grid), (6, 1));
    assert!((l.scale - 1000.0 / 6.0).abs() < 1e-9);
    let growpart = &l.rows[3];
    assert!((growpart.x - (LEFT + 1.25 * l.scale)).abs() < 1e-9);
    assert!((growpart.w.unwrap() - 0.8 * l.scale).abs() < 1e-9);
    // The step that did not run has no bar: its label sits at its stage's start.
    assert_eq!(l.rows[5].x, l.rows[2].x);
}

#[test]
fn the_canvas_holds_the_longest_label_and_the_axis() {
    let mut v = boot();
    let long = "module ".to_string() + &"x".repeat(300);
    v[2].1.steps[0].name = long.clone();
    let l = plot(&v, Err("test"));
    let r = &l.rows[7];
    assert!(r.label.starts_with(&long));
    assert!(l.width >= label_x(r) + label_w(&r.label), "{}", l.width);
    assert!(l.width >= LEFT + 1000.0);
    // Short labels: the axis sets the width.
    assert_eq!(plot(&boot(), Err("test")).width, LEFT + 1000.0 + 40.0);
    // Rows, marker lines and the legend are all inside the height.
    let l = plot(&boot(), Err("test"));
    assert_eq!(
        l.height,
        TOP + 8.0 * ROW + 10.0 + l.markers.len() as f64 * 14.0 + 10.0 + LEGEND_H
    );
}

#[test]
fn the_gridline_spacing_keeps_the_axis_readable() {
    for (end, axis, grid) in [
        (0.2, 1, 1),
        (20.0, 20, 1),
        (21.0, 22, 2),
        (90.0, 90, 5),
        (13_000.0, 14_400, 1800),
        (30.0 * 86_400.0, 2_592_000, 129_600),
    ] {
        let v = vec![("config", stage(0.0, Some(end), vec![]))];
        let l = plot(&v, Err("test"));
        assert_eq!((l.axis_end, l.grid), (axis, grid), "{end}");
    }
    let v = vec![("config", stage(0.0, Some(601.0), vec![]))];
    assert_eq!(
        plot(&v, Err("test")).axis_end,
        630,
        "a whole number of 30 s steps"
    );
}

#[test]
fn markers_for_kernel_pivot_and_sshd_rightmost_first() {
    let l = plot(&boot(), Ok((5.9, "the unit's start")));
    let at: Vec<f64> = l.markers.iter().map(|m| m.at).collect();
    assert_eq!(at, [5.9, 4.3, 2.75, 0.0]);
    assert_eq!(l.markers[0].label, "sshd started 5.900s");
    assert_eq!(l.pivot, Some((2.75, 4.3)));
    assert_eq!(l.axis_end, 6);
    assert!(svg(&l).contains("<!-- ember analyze plot: times are CLOCK_BOOTTIME"));
    assert!(svg(&l).contains("sshd's start: the unit's start -->"));

    // Unknown: no marker, and the SVG says why.
    let l = plot(&boot(), Err("no unit"));
    assert!(!l.markers.iter().any(|m| m.label.contains("sshd")));
    assert!(svg(&l).contains("no sshd marker: its start is unknown (no unit) -->"));
}

#[test]
fn a_stage_without_an_end_or_with_errors_is_drawn_as_recorded() {
    let mut v = boot();
    v[2].1 = stage(4.3, None, vec![]);
    let diag = Diag::error(Reason::ModuleUnknown, "x");
    v[1].1.errors = vec![diag.clone(), diag];
    let l = plot(&v, Err("test"));
    assert_eq!(l.rows[2].label, "local 1.50s (2 errors)");
    assert_eq!(l.rows[2].class, "f");
    let config = l.rows.last().unwrap();
    assert_eq!(config.label, "config: started, no end recorded");
    assert_eq!(config.w, None);
    // The pivot is still the runner's recorded start.
    assert_eq!(l.pivot, Some((2.75, 4.3)));
}

#[test]
fn names_from_user_data_are_escaped_and_the_svg_is_well_formed() {
    assert_eq!(
        escape("a<b>&\"c'\u{1}\td\u{ffff}"),
        "a&lt;b&gt;&amp;&quot;c&apos;\u{fffd}\td\u{fffd}"
    );
    let mut v = boot();
    let hostile = "part <script>alert(1)</script> & \"x\" -- \u{7}";
    v[0].1.steps[0].name = hostile.into();
    let text = svg(&layout(
        format!("instance {hostile}"),
        &refs(&v),
        Err("a -- b"),
    ));
    assert!(!text.contains("<script>"));
    let doc = roxmltree::Document::parse(&text).expect("well-formed");
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    let want = "part <script>alert(1)</script> & \"x\" -- \u{fffd} 5.0ms (ok)";
    assert!(labels.contains(&want), "{labels:?}");
    let comment = text
        .split("<!--")
        .nth(1)
        .unwrap()
        .split("-->")
        .next()
        .unwrap();
    assert!(comment.contains("(a - - b)"), "{comment}");
    let root = doc.root_element();
    let l = layout(format!("instance {hostile}"), &refs(&v), Err("t"));
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some(l.width.to_string().as_str()));
    assert_eq!(
        root.attribute("height"),
        Some(l.height.to_string().as_str())
    );
}

#[test]
fn an_empty_status_still_draws_the_axis_and_kernel_marker() {
    let l = layout("none".into(), &[], Err("test"));
    assert!(l.rows.is_empty());
    assert_eq!(l.markers.len(), 1);
    assert_eq!((l.axis_end, l.pivot), (1, None));
    roxmltree::Document::parse(&svg(&l)).expect("well-formed");

    // A hand-edited record with an absurd time: no overflow, still a document.
    let v = vec![("final", stage(1e12, Some(1.0), vec![]))];
    let l = plot(&v, Err("test"));
    assert_eq!(l.axis_end, u32::MAX);
    assert!(l.axis_end / l.grid <= 20, "{}", l.grid);
    let text = svg(&l);
    assert!(text.len() < 10_000, "{} bytes", text.len());
    roxmltree::Document::parse(&text).expect("well-formed");
}

#[test]
fn systemctl_show_values() {
    for (out, want) in [
        ("2345678\n", Some(2_345_678)),
        ("0\n", None),
        ("", None),
        ("[not set]\n", None),
    ] {
        assert_eq!(main_start_us(out.as_bytes()), want, "{out:?}");
    }
}
