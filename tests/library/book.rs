//! The manual's module pages (docs/src/modules/NAME.md) begin with facts generated from the
//! module table (`ember_core::module_specs`), and the book's contents list every module, so the
//! pages cannot drift from what ember runs. The datasource pages begin with the dispatch
//! table's facts (`ember::datasource::DATASOURCES`) the same way. Each page's generated block sits between markers;
//! what follows them is written by hand (what ember does, examples, differences). A page that
//! is missing or stale fails here; `EMBER_BLESS=1 cargo test --test library book` writes the
//! blocks (a new page gets the support table's row as its first text).

use ember::datasource::{Datasource, DATASOURCES};
use ember_core::module_specs::{Spec, Stage, MODULES};
use ember_core::state::Frequency;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- generated from crates/core/src/module_specs.rs: EMBER_BLESS=1 cargo test --test library book -->";
const DS_BEGIN: &str =
    "<!-- generated from src/datasource/table.rs: EMBER_BLESS=1 cargo test --test library book -->";
const END: &str = "<!-- generated:end -->";

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src")
}

fn bless() -> bool {
    std::env::var_os("EMBER_BLESS").is_some_and(|v| v == "1")
}

fn stage(s: Stage) -> &'static str {
    match s {
        Stage::Local => "the initramfs (ember-initrd's local stage, before the pivot)",
        Stage::Init => {
            "the booted system, early (`ember init`, before sshd: cloud-init's init stage)"
        }
        Stage::Config => {
            "the booted system (`ember modules --mode config`: cloud-init's config stage)"
        }
        Stage::Final => {
            "the booted system (`ember modules --mode final`: cloud-init's final stage)"
        }
    }
}

fn frequency(f: Frequency) -> &'static str {
    match f {
        Frequency::PerInstance => "once per instance (`once-per-instance`)",
        Frequency::PerBoot => "every boot (`always`)",
        Frequency::PerOnce => "once (`once`)",
    }
}

fn list(items: &[&str], none: &str) -> String {
    if items.is_empty() {
        return none.to_string();
    }
    let quoted: Vec<String> = items.iter().map(|k| format!("`{k}`")).collect();
    quoted.join(", ")
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The facts block of one module's page.
fn facts(m: &Spec) -> String {
    let ember = if m.ember {
        "runs it"
    } else {
        "does not have it yet: its keys are a warning naming the key, its part and its line"
    };
    let rows = [
        ("ember", ember.to_string()),
        ("where", stage(m.stage).to_string()),
        ("frequency", frequency(m.frequency).to_string()),
        ("keys", list(m.keys, "none")),
        ("distributions", list(m.distros, "all")),
        (
            "in cloud-init's default module lists",
            yes(m.listed).to_string(),
        ),
        (
            "runs when none of its keys is given",
            yes(m.without_keys).to_string(),
        ),
    ];
    let mut out = format!("{BEGIN}\n\n| | |\n|---|---|\n");
    for (k, v) in rows {
        out.push_str(&format!("| {k} | {v} |\n"));
    }
    out.push('\n');
    out.push_str(END);
    out
}

/// The support table's row that names `name` in its first cell: its last cell.
fn support(index: &str, name: &str) -> Option<String> {
    index
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .find(|l| {
            let first = l.split(" | ").next().unwrap_or_default();
            first.split(", ").any(|n| n.trim() == name)
        })
        .and_then(|l| l.trim_end_matches(" |").rsplit(" | ").next())
        .map(str::to_string)
}

/// The page as it should be: the title, the facts, then what the page has after them.
fn page(m: &Spec, old: Option<&str>, index: &str) -> String {
    let rest = match old.and_then(|o| o.split_once(END)) {
        Some((_, rest)) => rest.to_string(),
        None => {
            let row = support(index, m.name)
                .unwrap_or_else(|| "see the table in [Modules](index.md).".into());
            let mut chars = row.chars();
            let first = chars.next().map(|c| c.to_uppercase().to_string());
            let row = first.unwrap_or_default() + chars.as_str();
            format!("\n\n## What ember does\n\n{row}\n")
        }
    };
    format!("# {}\n\n{}{rest}", m.name, facts(m))
}

#[test]
fn every_module_has_a_page_whose_facts_are_the_tables() {
    let dir = docs().join("modules");
    let index = std::fs::read_to_string(dir.join("index.md")).unwrap();
    let mut stale = Vec::new();
    for m in MODULES {
        let path = dir.join(format!("{}.md", m.name));
        let old = std::fs::read_to_string(&path).ok();
        let want = page(m, old.as_deref(), &index);
        if old.as_deref() != Some(want.as_str()) {
            if bless() {
                std::fs::write(&path, &want).unwrap();
            } else {
                stale.push(m.name);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "module pages missing or stale (EMBER_BLESS=1 cargo test --test library book): {stale:?}"
    );
}

#[test]
fn the_contents_list_every_module_page() {
    let summary = std::fs::read_to_string(docs().join("SUMMARY.md")).unwrap();
    let missing: Vec<&str> = MODULES
        .iter()
        .map(|m| m.name)
        .filter(|n| !summary.contains(&format!("(modules/{n}.md)")))
        .collect();
    assert!(missing.is_empty(), "SUMMARY.md lacks: {missing:?}");
}

/// The manual's page for a datasource: several share one (ConfigDrive is on OpenStack's,
/// OVF on VMware's); None has none.
fn ds_page(ds: &dyn Datasource) -> Option<String> {
    let slug = match ds.cloud_init_name() {
        "None" => return None,
        "ConfigDrive" => "openstack".into(),
        "OVF" => "vmware".into(),
        "IBMCloud" => "ibm-cloud".into(),
        other => other.to_lowercase(),
    };
    Some(slug)
}

/// Text for the page's Markdown, where `<version>` would be taken for an HTML tag.
fn html_text(s: &str) -> String {
    s.replace('<', "&lt;").replace('>', "&gt;")
}

fn events(list: &[ember::datasource::events::Event]) -> String {
    let names: Vec<&str> = list.iter().map(|e| e.name()).collect();
    list_of(&names)
}

fn list_of(items: &[&str]) -> String {
    list(items, "none")
}

/// The datasources on one page, with their places in the dispatch table.
type OnPage = Vec<(usize, &'static dyn Datasource)>;

/// The facts of the datasources on one page.
fn ds_facts(on_page: &OnPage) -> String {
    let mut out = format!("{DS_BEGIN}\n\n");
    for (place, ds) in on_page {
        let rows = [
            (
                "name in `datasource_list` and `ds=`",
                format!("`{}`", ds.cloud_init_name()),
            ),
            (
                "ember's name (status.json's `datasource`)",
                format!("`{}`", ds.name()),
            ),
            (
                "tried",
                format!(
                    "{} of {} (cloud-init's default order)",
                    place + 1,
                    DATASOURCES.len()
                ),
            ),
            (
                "evidence it needs of its own",
                html_text(ds.evidence_wanted()),
            ),
            (
                "network rendered again on",
                events(ds.default_update_events()),
            ),
            ("events it supports", events(ds.supported_update_events())),
        ];
        out.push_str("| | |\n|---|---|\n");
        for (k, v) in rows {
            out.push_str(&format!("| {k} | {v} |\n"));
        }
        out.push('\n');
    }
    out.push_str(END);
    out
}

#[test]
fn every_datasource_page_begins_with_the_tables_facts() {
    let dir = docs().join("datasources");
    let mut pages: Vec<(String, OnPage)> = Vec::new();
    for (place, ds) in DATASOURCES.iter().copied().enumerate() {
        let Some(slug) = ds_page(ds) else { continue };
        match pages.iter_mut().find(|(s, _)| *s == slug) {
            Some((_, list)) => list.push((place, ds)),
            None => pages.push((slug, vec![(place, ds)])),
        }
    }
    let mut stale = Vec::new();
    for (slug, on_page) in &pages {
        let path = dir.join(format!("{slug}.md"));
        let Ok(old) = std::fs::read_to_string(&path) else {
            stale.push(format!("{slug}: no page"));
            continue;
        };
        let (title, rest) = old.split_once('\n').unwrap_or((&old, ""));
        let body = match rest.split_once(END) {
            Some((_, after)) => after.to_string(),
            None => format!("\n\n## What ember does\n{rest}"),
        };
        let want = format!("{title}\n\n{}{body}", ds_facts(on_page));
        if old != want {
            if bless() {
                std::fs::write(&path, &want).unwrap();
            } else {
                stale.push(slug.clone());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "datasource pages missing or stale (EMBER_BLESS=1 cargo test --test library book): {stale:?}"
    );
}

const DIFFERENCES: &str = "## Differences from cloud-init";
/// How a page says it has no difference of its own (the differences page need not link it).
const NONE_OF_ITS_OWN: &str = "No difference of its own";

#[test]
fn every_module_and_datasource_page_says_how_it_differs_and_the_differences_page_links_it() {
    let index = std::fs::read_to_string(docs().join("differences.md")).unwrap();
    let mut wrong = Vec::new();
    for dir in ["modules", "datasources"] {
        for entry in std::fs::read_dir(docs().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name == "index.md" {
                continue;
            }
            let page = std::fs::read_to_string(&path).unwrap();
            let Some((_, section)) = page.split_once(DIFFERENCES) else {
                wrong.push(format!("{dir}/{name}: no \"{DIFFERENCES}\""));
                continue;
            };
            let own = !section.trim_start().starts_with(NONE_OF_ITS_OWN);
            let link = format!("({dir}/{name}#differences-from-cloud-init)");
            if own != index.contains(&link) {
                wrong.push(format!(
                    "{dir}/{name}: has differences {own}, linked {}",
                    !own
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
