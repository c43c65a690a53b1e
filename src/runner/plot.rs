//! `ember analyze plot`: one boot as an SVG timeline, the picture `systemd-analyze plot` draws:
//! a seconds axis from the kernel's start, a bar per stage and per step (coloured by where the
//! stage runs and by outcome), and markers for the kernel's start, the pivot and sshd's start
//! when it is known. Only recorded times are drawn; nothing is estimated. The SVG is written
//! with `write!` into a String: the runner links no XML crate.

use crate::status::StageStatus;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// The stages ember-initrd runs before the pivot; the others run in the booted system.
const INITRAMFS: [&str; 3] = ["detect", "fetch", "local"];

/// Pixels: margin left of the kernel's start, the header (title and axis labels), one row.
const LEFT: f64 = 20.0;
const TOP: f64 = 58.0;
const ROW: f64 = 18.0;
/// The axis is this wide whatever the boot's length: a 3 s boot and a 300 s one both fit.
const AXIS_W: f64 = 1000.0;
/// A generous width of one 11 px sans-serif character, so labels never run off the canvas.
pub const CHAR_W: f64 = 7.0;
/// The legend's row under the markers: each colour and what it means.
const LEGEND_H: f64 = 22.0;
const LEGEND: [(&str, &str); 7] = [
    ("si", "initramfs stage"),
    ("ti", "its step"),
    ("sr", "runner stage"),
    ("tr", "its step"),
    ("f", "failed"),
    ("k", "skipped"),
    ("p", "pivot: initramfs end to runner start"),
];
/// Gridline spacings in seconds: the first that gives at most 20 lines (50 px apart, room
/// for a label like `13200s`) is used.
const GRID: [u32; 11] = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/// sshd's start, when a source gave it: seconds since the kernel started and where it is from.
pub type Sshd = Result<(f64, &'static str), &'static str>;

#[derive(Debug, PartialEq)]
pub struct Row {
    pub label: String,
    /// Left end of the bar (or of the label when there is no bar), pixels.
    pub x: f64,
    /// Bar width in pixels; `None` for a step that did not run or a stage with no end yet.
    pub w: Option<f64>,
    /// CSS class: `si`/`sr` stage in the initramfs/runner, `ti`/`tr` their steps, `f` failed,
    /// `k` skipped.
    pub class: &'static str,
    /// A stage's row (its label is bold), not a step's.
    pub stage: bool,
}

#[derive(Debug, PartialEq)]
pub struct Marker {
    pub at: f64,
    pub label: String,
}

#[derive(Debug)]
pub struct Layout {
    pub title: String,
    pub rows: Vec<Row>,
    /// Pixels per second.
    pub scale: f64,
    /// Whole seconds the axis covers, and the spacing of its gridlines.
    pub axis_end: u32,
    pub grid: u32,
    pub markers: Vec<Marker>,
    /// The gap between the initramfs's last stage and the runner's first, when both are known.
    pub pivot: Option<(f64, f64)>,
    /// Why there is no sshd marker, or where its time is from: said in an XML comment.
    pub sshd_note: String,
    pub width: f64,
    pub height: f64,
}

/// sshd's unit names (Debian and Ubuntu's, then Fedora and Arch's) and what the SVG says of
/// the time systemd gives for them.
const SSHD_UNITS: [(&str, &str); 2] = [
    (
        "ssh.service",
        "ExecMainStartTimestampMonotonic of ssh.service from systemctl show",
    ),
    (
        "sshd.service",
        "ExecMainStartTimestampMonotonic of sshd.service from systemctl show",
    ),
];

/// sshd's start on the running system, from systemd: its unit's main process start in
/// CLOCK_MONOTONIC microseconds, which equals status.json's CLOCK_BOOTTIME unless the machine
/// slept before sshd started. Asked only where systemd runs (`<run>/systemd/system`, the test
/// sd_booted makes).
pub fn sshd_start(run: &Path) -> Sshd {
    if !run.join("systemd/system").is_dir() {
        return Err("this system does not run systemd");
    }
    for (unit, source) in SSHD_UNITS {
        let out = Command::new("systemctl")
            .args([
                "show",
                "--value",
                "--property=ExecMainStartTimestampMonotonic",
                unit,
            ])
            .output();
        if let Some(us) = out.ok().and_then(|o| main_start_us(&o.stdout)) {
            return Ok((secs(us), source));
        }
    }
    Err("systemd records no start of ssh.service or sshd.service")
}

/// The value `systemctl show --value` printed; 0 (never started, or no such unit) is none.
pub fn main_start_us(stdout: &[u8]) -> Option<u64> {
    let us: u64 = std::str::from_utf8(stdout).ok()?.trim().parse().ok()?;
    (us > 0).then_some(us)
}

fn secs(us: u64) -> f64 {
    us as f64 / 1e6
}

/// `12.3ms` or `1.23s`, as systemd-analyze writes durations.
pub fn duration(s: f64) -> String {
    if s < 1.0 {
        format!("{:.1}ms", s * 1e3)
    } else {
        format!("{s:.2}s")
    }
}

/// When the stage ended, if that was recorded.
fn stage_end(s: &StageStatus) -> Option<f64> {
    s.duration_us.map(|us| s.start + secs(us)).or(s.finished)
}

pub fn layout(title: String, stages: &[(&str, &StageStatus)], sshd: Sshd) -> Layout {
    let in_initramfs = |name: &str| INITRAMFS.contains(&name);
    // The axis ends at the last recorded time, rounded up to a whole second.
    let mut end: f64 = 1.0;
    for (_, s) in stages {
        end = end.max(stage_end(s).unwrap_or(s.start));
        for st in &s.steps {
            end = end.max(st.start.map_or(0.0, |t| t + secs(st.duration_us)));
        }
    }
    if let Ok((at, _)) = sshd {
        end = end.max(at);
    }
    let axis_end = end.ceil() as u32;
    let grid = *GRID
        .iter()
        .find(|g| axis_end / **g <= 20)
        .unwrap_or(&GRID[GRID.len() - 1]);
    let axis_end = axis_end.div_ceil(grid) * grid;
    let scale = AXIS_W / f64::from(axis_end);
    let x = |t: f64| LEFT + t * scale;

    let mut rows = Vec::new();
    for (name, s) in stages {
        let (stage, step) = if in_initramfs(name) {
            ("si", "ti")
        } else {
            ("sr", "tr")
        };
        let end = stage_end(s);
        let mut label = match end {
            Some(e) => format!("{name} {}", duration(e - s.start)),
            None => format!("{name}: started, no end recorded"),
        };
        match s.errors.len() {
            0 => {}
            1 => label.push_str(" (1 error)"),
            n => {
                let _ = write!(label, " ({n} errors)");
            }
        }
        rows.push(Row {
            label,
            x: x(s.start),
            w: end.map(|e| (e - s.start) * scale),
            class: if s.errors.is_empty() { stage } else { "f" },
            stage: true,
        });
        for st in &s.steps {
            // Results carry details: `ok (4 reads)`, `skipped (no config)`.
            let class = match st.result.split(' ').next() {
                Some("error") => "f",
                Some("skipped") => "k",
                _ => step,
            };
            rows.push(match st.start {
                Some(t) => Row {
                    label: format!(
                        "{} {} ({})",
                        st.name,
                        duration(secs(st.duration_us)),
                        st.result
                    ),
                    x: x(t),
                    w: Some(secs(st.duration_us) * scale),
                    class,
                    stage: false,
                },
                // No start: it did not run. The label sits at its stage's start, no bar.
                None => Row {
                    label: format!("{}: not run, {}", st.name, st.result),
                    x: x(s.start),
                    w: None,
                    class,
                    stage: false,
                },
            });
        }
    }

    let mut markers = vec![Marker {
        at: 0.0,
        label: "kernel started 0s".into(),
    }];
    let initramfs_end = stages
        .iter()
        .filter(|(n, _)| in_initramfs(n))
        .filter_map(|(_, s)| stage_end(s))
        .reduce(f64::max);
    let runner_start = stages
        .iter()
        .filter(|(n, _)| !in_initramfs(n))
        .map(|(_, s)| s.start)
        .reduce(f64::min);
    let pivot = initramfs_end.zip(runner_start).filter(|(a, b)| a <= b);
    if let Some(at) = initramfs_end {
        markers.push(Marker {
            at,
            label: format!("pivot: the initramfs stages ended {at:.3}s"),
        });
    }
    if let Some(at) = runner_start {
        markers.push(Marker {
            at,
            label: format!("pivot: the runner started {at:.3}s"),
        });
    }
    let sshd_note = match sshd {
        Ok((at, source)) => {
            markers.push(Marker {
                at,
                label: format!("sshd started {at:.3}s"),
            });
            format!("sshd's start: {source}")
        }
        Err(why) => format!("no sshd marker: its start is unknown ({why})"),
    };

    // Marker labels stack under the rows, the rightmost marker's first: each dashed line then
    // ends above its own label without crossing the labels of the markers right of it.
    markers.sort_by(|a, b| b.at.total_cmp(&a.at));
    let bottom = TOP + rows.len() as f64 * ROW + 10.0;
    // The title's font is 14 px, the labels' 11.
    let mut width = (LEFT + AXIS_W + 40.0).max(LEFT + label_w(&title) * 14.0 / 11.0 + 10.0);
    let mut fit = |left: f64, text: &str| width = width.max(left + label_w(text) + 10.0);
    for r in &rows {
        fit(label_x(r), &r.label);
    }
    for m in &markers {
        fit(x(m.at) + 3.0, &m.label);
    }
    Layout {
        height: bottom + markers.len() as f64 * 14.0 + 10.0 + LEGEND_H,
        title,
        rows,
        scale,
        axis_end,
        grid,
        markers,
        pivot,
        sshd_note,
        width: width.ceil(),
    }
}

pub fn label_w(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_W
}

/// Labels sit right of their bar, as systemd-analyze's do.
pub fn label_x(r: &Row) -> f64 {
    r.x + r.w.unwrap_or(0.0) + 4.0
}

/// XML text and attribute escaping; characters XML 1.0 cannot carry at all (most control
/// characters) become U+FFFD, so a module name from user data never breaks the document.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

pub fn svg(l: &Layout) -> String {
    let (w, h) = (l.width, l.height);
    let bottom = TOP + l.rows.len() as f64 * ROW;
    let x = |t: f64| LEFT + t * l.scale;
    let mut s = String::with_capacity(256 + l.rows.len() * 160);
    let _ = write!(
        s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
font-family=\"sans-serif\" font-size=\"11\">\n\
<!-- ember analyze plot: times are CLOCK_BOOTTIME seconds since the kernel started, \
as status.json records them. {} -->\n\
<style>.g{{stroke:#ddd}}.m{{stroke:#333;stroke-dasharray:4 3}}.si{{fill:#4a7ebb}}\
.sr{{fill:#3c9a5f}}.ti{{fill:#9dbde3}}.tr{{fill:#9fd4b2}}.f{{fill:#d9362b}}.k{{fill:#bbb}}\
.p{{fill:#fff3c4}}.n{{fill:#888}}rect{{shape-rendering:crispEdges}}</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n\
<text x=\"{LEFT}\" y=\"20\" font-size=\"14\">{}</text>\n",
        // A comment takes any text but `--` (no entities: they would show as written).
        l.sshd_note.replace("--", "- -"),
        escape(&l.title)
    );
    if let Some((a, b)) = l.pivot {
        let _ = writeln!(
            s,
            "<rect class=\"p\" x=\"{:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{:.1}\"/>",
            x(a),
            (b - a) * l.scale,
            bottom - TOP
        );
    }
    for k in (0..=l.axis_end).step_by(l.grid as usize) {
        let gx = x(f64::from(k));
        let _ = writeln!(
            s,
            "<line class=\"g\" x1=\"{gx:.1}\" y1=\"{:.1}\" x2=\"{gx:.1}\" y2=\"{bottom:.1}\"/>\
<text x=\"{gx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{k}s</text>",
            TOP - 14.0,
            TOP - 18.0
        );
    }
    // Marker lines before the rows, so the row labels are drawn over them.
    for (i, m) in l.markers.iter().enumerate() {
        let mx = x(m.at);
        let _ = writeln!(
            s,
            "<line class=\"m\" x1=\"{mx:.1}\" y1=\"{:.1}\" x2=\"{mx:.1}\" y2=\"{:.1}\"/>\
<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            TOP - 14.0,
            bottom + 10.0 + i as f64 * 14.0,
            mx + 3.0,
            bottom + 20.0 + i as f64 * 14.0,
            escape(&m.label)
        );
    }
    for (i, r) in l.rows.iter().enumerate() {
        let y = TOP + i as f64 * ROW;
        if let Some(bw) = r.w {
            // At least a pixel, so a step of microseconds still shows where it ran.
            let _ = write!(
                s,
                "<rect class=\"{}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
                r.class,
                r.x,
                y + 2.0,
                bw.max(1.0),
                ROW - 4.0
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\"{}>{}</text>",
            label_x(r),
            y + ROW - 5.0,
            match (r.stage, r.w) {
                (true, _) => " font-weight=\"bold\"",
                (false, None) => " class=\"n\"",
                _ => "",
            },
            escape(&r.label)
        );
    }
    let ly = h - LEGEND_H + 4.0;
    let mut lx = LEFT;
    for (class, what) in LEGEND {
        let _ = writeln!(
            s,
            "<rect class=\"{class}\" x=\"{lx}\" y=\"{ly}\" width=\"12\" height=\"10\"/>\
<text x=\"{}\" y=\"{}\">{what}</text>",
            lx + 16.0,
            ly + 9.0
        );
        lx += 16.0 + label_w(what) + 14.0;
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
#[path = "plot_tests.rs"]
mod tests;
