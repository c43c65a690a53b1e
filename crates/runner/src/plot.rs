//! `ember analyze plot`: one boot as an SVG timeline, the picture `systemd-analyze plot` draws:
//! a seconds axis from the kernel's start, a bar per stage and per step (coloured by where the
//! stage runs and by outcome), and markers for the kernel's start, the pivot and sshd's start
//! when it is known. Only recorded times are drawn; nothing is estimated. The SVG is written
//! with `write!` into a String: the runner links no XML crate.

use crate::status::StageStatus;
pub use crate::xml::escape;
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
/// for a label like `13200s`) is used, else whole hours.
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
        "ExecMainStartTimestampMonotonic of ssh.service from systemctl show (a restart moves it)",
    ),
    (
        "sshd.service",
        "ExecMainStartTimestampMonotonic of sshd.service from systemctl show (a restart moves it)",
    ),
];

/// sshd's start on the running system, from systemd: its unit's main process's latest start
/// in CLOCK_MONOTONIC microseconds, which equals status.json's CLOCK_BOOTTIME unless the
/// machine slept before sshd started. Asked only where systemd runs (`<run>/systemd/system`,
/// the test sd_booted makes).
pub fn sshd_start(run: &Path) -> Sshd {
    if !run.join("systemd/system").is_dir() {
        return Err("this system does not run systemd");
    }
    for (unit, source) in SSHD_UNITS {
        let mut cmd = Command::new("systemctl");
        cmd.args([
            "show",
            "--value",
            "--property=ExecMainStartTimestampMonotonic",
            unit,
        ]);
        // A systemd that does not answer (a hung D-Bus) ends the question, not the command.
        let bounds = crate::child::Bounds {
            deadline: ember_core::bounds::PLOT_TOOL,
            max_output: 4096,
        };
        let out = crate::child::output(&mut cmd, bounds);
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
    let axis_end = ceil(end);
    // Past 20 hours (a stage run by hand days after the boot): whole hours, 20 lines.
    let grid = GRID
        .into_iter()
        .find(|g| axis_end / g <= 20)
        .unwrap_or_else(|| axis_end.div_ceil(20 * 3600) * 3600);
    // Saturating: a status.json edited by hand may hold any number.
    let axis_end = axis_end.div_ceil(grid).saturating_mul(grid);
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

    let initramfs_end = stages
        .iter()
        .filter(|(n, _)| in_initramfs(n))
        .filter_map(|(_, s)| stage_end(s))
        .reduce(f64::max);
    let runner_start = stages
        .iter()
        .filter(|(n, _)| !in_initramfs(n))
        .map(|(_, s)| s.start)
        .reduce(|a, b| if b < a { b } else { a });
    let pivot = initramfs_end.zip(runner_start).filter(|(a, b)| a <= b);
    // Marker labels stack under the rows, the rightmost marker's first: each dashed line then
    // ends above its own label without crossing the labels of the markers right of it. (An
    // insertion, not a sort: a sort's code costs the runner kilobytes.)
    let mut markers: Vec<Marker> = Vec::new();
    let mut add = |at: f64, label: String| {
        let i = markers.iter().take_while(|m| m.at >= at).count();
        markers.insert(i, Marker { at, label });
    };
    add(0.0, "kernel started 0s".into());
    if let Some(at) = initramfs_end {
        add(at, format!("pivot: the initramfs stages ended {at:.3}s"));
    }
    if let Some(at) = runner_start {
        add(at, format!("pivot: the runner started {at:.3}s"));
    }
    let sshd_note = match sshd {
        Ok((at, source)) => {
            add(at, format!("sshd started {at:.3}s"));
            format!("sshd's start: {source}")
        }
        Err(why) => format!("no sshd marker: its start is unknown ({why})"),
    };

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
        width: f64::from(ceil(width)),
    }
}

/// Rounded up, for a positive `v` (by hand: `f64::ceil` links libm's for two uses).
fn ceil(v: f64) -> u32 {
    let whole = v as u32;
    whole.saturating_add(u32::from(v > f64::from(whole)))
}

pub fn label_w(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_W
}

/// Labels sit right of their bar, as systemd-analyze's do.
pub fn label_x(r: &Row) -> f64 {
    r.x + r.w.unwrap_or(0.0) + 4.0
}

/// Whole pixels (all coordinates are positive): crispEdges snaps bars to them anyway, and an
/// integer costs the runner less code to format than a float with a precision.
fn px(v: f64) -> i64 {
    (v + 0.5) as i64
}

pub fn svg(l: &Layout) -> String {
    let (w, h) = (px(l.width), px(l.height));
    let (top, bottom) = (px(TOP), px(TOP + l.rows.len() as f64 * ROW));
    let x = |t: f64| px(LEFT + t * l.scale);
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
.p{{fill:#fff3c4}}.n{{fill:#888}}rect{{shape-rendering:crispEdges}}</style>\n\
<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n\
<text x=\"{}\" y=\"20\" font-size=\"14\">{}</text>\n",
        // A comment takes any text but `--` (no entities: they would show as written).
        l.sshd_note.replace("--", "- -"),
        px(LEFT),
        escape(&l.title)
    );
    if let Some((a, b)) = l.pivot {
        let (a, b) = (x(a), x(b));
        rect(&mut s, "p", a, top, b - a, bottom - top);
    }
    for k in (0..=l.axis_end).step_by(l.grid as usize) {
        let gx = x(f64::from(k));
        line(&mut s, "g", gx, top - 14, bottom);
        text(
            &mut s,
            gx,
            top - 18,
            " text-anchor=\"middle\"",
            &format!("{k}s"),
        );
    }
    // Marker lines before the rows, so the row labels are drawn over them.
    for (i, m) in (0..).zip(&l.markers) {
        let (mx, y) = (x(m.at), bottom + 20 + i * 14);
        line(&mut s, "m", mx, top - 14, y - 10);
        text(&mut s, mx + 3, y, "", &m.label);
    }
    for (i, r) in (0..).zip(&l.rows) {
        let y = top + i * px(ROW);
        if let Some(bw) = r.w {
            // At least a pixel, so a step of microseconds still shows where it ran.
            rect(&mut s, r.class, px(r.x), y + 2, px(bw).max(1), px(ROW) - 4);
        }
        let attrs = match (r.stage, r.w) {
            (true, _) => " font-weight=\"bold\"",
            (false, None) => " class=\"n\"",
            _ => "",
        };
        text(&mut s, px(label_x(r)), y + px(ROW) - 5, attrs, &r.label);
    }
    let (ly, mut lx) = (h - px(LEGEND_H) + 4, px(LEFT));
    for (class, what) in LEGEND {
        rect(&mut s, class, lx, ly, 12, 10);
        text(&mut s, lx + 16, ly + 9, "", what);
        lx += 30 + px(label_w(what));
    }
    s.push_str("</svg>\n");
    s
}

fn rect(s: &mut String, class: &str, x: i64, y: i64, w: i64, h: i64) {
    let _ = writeln!(
        s,
        "<rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"/>"
    );
}

/// A vertical line from `y1` down to `y2`.
fn line(s: &mut String, class: &str, x: i64, y1: i64, y2: i64) {
    let _ = writeln!(
        s,
        "<line class=\"{class}\" x1=\"{x}\" y1=\"{y1}\" x2=\"{x}\" y2=\"{y2}\"/>"
    );
}

fn text(s: &mut String, x: i64, y: i64, attrs: &str, what: &str) {
    let _ = writeln!(
        s,
        "<text x=\"{x}\" y=\"{y}\"{attrs}>{}</text>",
        escape(what)
    );
}

#[cfg(test)]
#[path = "plot_tests.rs"]
mod tests;
