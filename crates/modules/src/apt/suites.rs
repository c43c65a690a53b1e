//! `apt.disable_suites`: the suites named are commented out of the rendered default sources,
//! as cloud-init does: in one-line format the whole `deb` line; in deb822 the suite is taken
//! off its `Suites:` line (the original kept in a comment), and an entry left with no suite is
//! commented out whole. `updates`, `backports`, `security`, `proposed` and `release` stand for
//! `$RELEASE-updates` ... and `$RELEASE`; `$RELEASE` is the codename.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#apt-configure>

use super::template::{self, Error};
use crate::root::Root;

const REDACTED: &str = "# cloud-init disable_suites redacted: ";

/// cloud-init's short names.
fn known(suite: &str) -> &str {
    match suite {
        "updates" => "$RELEASE-updates",
        "backports" => "$RELEASE-backports",
        "security" => "$RELEASE-security",
        "proposed" => "$RELEASE-proposed",
        "release" => "$RELEASE",
        other => other,
    }
}

/// The suite names `disabled` stands for on `release`.
fn names(root: &Root, disabled: &[String], release: &str) -> Result<Vec<String>, Error> {
    let vars = serde_json::json!({ "RELEASE": release });
    disabled
        .iter()
        .map(|s| template::render(root, known(s), &vars))
        .collect()
}

/// cloud-init's test for deb822 content: no `deb `/`deb-src ` line and a line starting with
/// one of deb822's required fields. `None` when it is neither (cloud-init warns and takes
/// one-line).
pub fn looks_deb822(text: &str) -> Option<bool> {
    let starts = |prefixes: &[&str]| {
        text.lines()
            .any(|l| prefixes.iter().any(|p| l.starts_with(p)))
    };
    if starts(&["deb ", "deb-src "]) {
        return Some(false);
    }
    starts(&["Types: ", "Suites: ", "Components: ", "URIs: "]).then_some(true)
}

/// `src` with the `disabled` suites commented out.
pub fn disable(
    root: &Root,
    disabled: &[String],
    src: &str,
    release: &str,
) -> Result<String, Error> {
    if disabled.is_empty() {
        return Ok(src.to_string());
    }
    let names = names(root, disabled, release)?;
    if looks_deb822(src) == Some(true) {
        return Ok(deb822(&names, src));
    }
    let mut out = src.to_string();
    for name in &names {
        out = out
            .split_inclusive('\n')
            .map(|line| {
                if !line.starts_with('#') && suite_of(line) == Some(name.as_str()) {
                    format!("# suite disabled by cloud-init: {line}")
                } else {
                    line.to_string()
                }
            })
            .collect();
    }
    Ok(out)
}

/// The suite of a one-line entry: the third word, or the word after an `[ options ]` group.
fn suite_of(line: &str) -> Option<&str> {
    let cols: Vec<&str> = line.split_whitespace().collect();
    if cols.len() < 2 {
        return None;
    }
    let mut at = 2;
    if cols[1].starts_with('[') {
        for col in &cols[1..] {
            at += 1;
            if col.ends_with(']') {
                break;
            }
        }
    }
    cols.get(at).copied()
}

fn deb822(names: &[String], src: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut entry = String::new();
    for line in src.lines() {
        if line.starts_with('#') {
            if entry.is_empty() {
                out.push(line.to_string());
            } else {
                entry.push_str(line);
                entry.push('\n');
            }
            continue;
        }
        if line.trim().is_empty() {
            if !entry.is_empty() {
                out.push(close_entry(&entry));
                entry.clear();
            }
            out.push(line.to_string());
            continue;
        }
        let mut new_line = line.to_string();
        if line.starts_with("Suites:") {
            let orig: Vec<&str> = line.split_whitespace().skip(1).collect();
            let kept: Vec<&str> = orig
                .iter()
                .copied()
                .filter(|s| !names.iter().any(|n| n == s))
                .collect();
            if kept != orig {
                entry.push_str(&format!("{REDACTED}{line}\n"));
                new_line = format!("Suites: {}", kept.join(" "));
            }
        }
        entry.push_str(&new_line);
        entry.push('\n');
    }
    if !entry.is_empty() {
        out.push(close_entry(&entry));
    }
    out.join("\n")
}

/// An entry with no suite left is commented out whole, its original `Suites:` line restored.
fn close_entry(entry: &str) -> String {
    // cloud-init's test: a `Suites:` line after a newline, with a suite on it.
    let has_suite = entry.match_indices("\nSuites:").any(|(at, _)| {
        let rest = &entry[at + "\nSuites:".len()..];
        let word = rest.trim_start_matches([' ', '\t']);
        word.len() < rest.len()
            && word.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '-')
    });
    if has_suite {
        return entry.to_string();
    }
    let mut lines: Vec<&str> = Vec::new();
    for (i, line) in entry.split_inclusive('\n').enumerate() {
        if i > 0 && line.starts_with("Suites:") {
            // Taken out with its newline, less the newline that ends it (cloud-init's regex).
            if let Some(last) = lines.last_mut() {
                *last = last.strip_suffix('\n').unwrap_or(last);
            }
            if line.ends_with('\n') {
                lines.push("\n");
            }
            continue;
        }
        lines.push(line);
    }
    let restored = lines.concat().replace(REDACTED, "");
    let mut out = String::from("## Entry disabled by cloud-init, due to disable_suites\n");
    for line in restored.split_inclusive('\n') {
        if !line.trim().is_empty() {
            out.push_str("# disabled by cloud-init: ");
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Suite names are basic templates here: the target is never written.
    fn root() -> Root {
        Root::open(&std::env::temp_dir()).unwrap()
    }

    fn d(list: &[&str], src: &str) -> String {
        let list: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        disable(&root(), &list, src, "bookworm").unwrap()
    }

    #[test]
    fn one_line_entries() {
        let src = "# deb http://m bookworm main\ndeb http://m bookworm main\n\
                   deb [ arch=amd64 ] http://m bookworm-updates main\n\
                   deb [arch=amd64] http://m bookworm-backports main\ndeb-src http://m mysuite main\n";
        assert_eq!(
            d(&["release", "$RELEASE-updates", "backports", "mysuite"], src),
            "# deb http://m bookworm main\n# suite disabled by cloud-init: deb http://m bookworm main\n\
             # suite disabled by cloud-init: deb [ arch=amd64 ] http://m bookworm-updates main\n\
             # suite disabled by cloud-init: deb [arch=amd64] http://m bookworm-backports main\n\
             # suite disabled by cloud-init: deb-src http://m mysuite main\n"
        );
        assert_eq!(d(&[], src), src);
        assert!(disable(&root(), &["$NOPE".into()], src, "x").is_err());
    }

    #[test]
    fn deb822_entries() {
        let src = "# head\nTypes: deb\nURIs: http://m\nSuites: bookworm bookworm-updates\n\
                   Components: main\n\nTypes: deb\nURIs: http://s\nSuites: bookworm-security\n\
                   Components: main\n";
        assert_eq!(
            d(&["updates", "security"], src),
            "# head\nTypes: deb\nURIs: http://m\n\
             # cloud-init disable_suites redacted: Suites: bookworm bookworm-updates\n\
             Suites: bookworm\nComponents: main\n\n\n\
             ## Entry disabled by cloud-init, due to disable_suites\n\
             # disabled by cloud-init: Types: deb\n# disabled by cloud-init: URIs: http://s\n\
             # disabled by cloud-init: Suites: bookworm-security\n\
             # disabled by cloud-init: Components: main\n"
        );
        assert_eq!(looks_deb822("deb http://x y z\nTypes: deb\n"), Some(false));
        assert_eq!(looks_deb822("something\n"), None);
    }
}
