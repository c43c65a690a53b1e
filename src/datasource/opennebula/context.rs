//! OpenNebula's `context.sh`, read as the shell-variable file OpenNebula writes: `NAME='value'`
//! lines whose values may span lines and escape a quote as `'\''`, plus what a hand-written
//! file commonly adds (double quotes, bare words, `export`, comments, `$NAME` from earlier
//! lines). cloud-init runs bash on the file; the initramfs has no bash, so nothing is executed:
//! command substitution, arithmetic, parameter operators (`${X:-y}`) and commands are reported
//! with their line and the variable they would have set is left out. Expansions are charged
//! against a byte budget (`$A` ten times in `B`, `$B` ten times in `C`… grows tenfold a line):
//! the variable whose expansion passes it is left out and named. Pure: text in, values out.

use std::collections::BTreeMap;

/// One construct that was not understood, and the variable it cost (if any).
#[derive(Debug, PartialEq)]
pub struct Problem {
    pub line: u32,
    pub key: Option<String>,
    pub what: String,
    /// The expansions passed the budget (not a construct the shell would have evaluated).
    pub over_budget: bool,
}

#[derive(Debug, Default)]
pub struct Parsed {
    pub vars: BTreeMap<String, String>,
    pub problems: Vec<Problem>,
}

struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    /// Why the value being read cannot be used; it is still read to its end, so the next
    /// statement starts where the shell's would.
    unusable: Option<String>,
    /// Bytes all `$NAME` expansions of the file may add together, and those added so far.
    budget: u64,
    expanded: u64,
    /// The value being read passed `budget`; it is read to its end and left out.
    over_budget: bool,
}

impl Reader<'_> {
    fn next(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }
    /// Skips to the end of the current line, honouring quotes, so a quoted newline in an
    /// unsupported command does not start a new statement.
    fn skip_statement(&mut self) {
        let mut quote: Option<char> = None;
        while let Some(c) = self.next() {
            match (quote, c) {
                (None, '\n' | ';') => return,
                (None, '\'' | '"') => quote = Some(c),
                (None | Some('"'), '\\') => {
                    self.next();
                }
                (Some(q), c) if c == q => quote = None,
                _ => {}
            }
        }
    }
}

fn is_name(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn ends_word(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
    )
}

/// Parses the whole file; its `$NAME` expansions may add `budget` bytes in all.
pub fn parse(text: &str, budget: u64) -> Parsed {
    let mut r = Reader {
        chars: text.chars().peekable(),
        line: 1,
        unusable: None,
        budget,
        expanded: 0,
        over_budget: false,
    };
    let mut out = Parsed::default();
    loop {
        while r
            .peek()
            .is_some_and(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | ';'))
        {
            r.next();
        }
        let Some(c) = r.peek() else { break };
        if c == '#' {
            while r.peek().is_some_and(|c| c != '\n') {
                r.next();
            }
            continue;
        }
        statement(&mut r, &mut out);
    }
    out
}

/// One line's assignments (`A=1 B='2'`, `export A=1`); anything else is a command, skipped.
fn statement(r: &mut Reader, out: &mut Parsed) {
    let start = r.line;
    let mut first = true;
    let mut declared = false;
    loop {
        while r.peek().is_some_and(|c| c == ' ' || c == '\t') {
            r.next();
        }
        match r.peek() {
            None | Some('\n' | ';') => return,
            Some('#') => return, // a comment after the statement: the main loop skips it
            _ => {}
        }
        let mut name = String::new();
        while let Some(c) = r.peek().filter(|c| *c != '=' && !ends_word(*c)) {
            name.push(c);
            r.next();
        }
        if first && matches!(name.as_str(), "export" | "readonly" | "declare" | "typeset") {
            first = false;
            declared = true;
            continue;
        }
        first = false;
        if r.peek() != Some('=') || !is_name(&name) {
            // `export NAME` alone changes nothing; anything else would run a command.
            let bare = matches!(r.peek(), None | Some(' ' | '\t' | '\n' | ';'));
            if !(declared && is_name(&name) && bare) {
                out.problems.push(Problem {
                    line: start,
                    key: None,
                    what: "a command, not an assignment: not run".into(),
                    over_budget: false,
                });
                r.skip_statement();
                return;
            }
            continue;
        }
        r.next(); // '='
        let v = value(r, &out.vars);
        let over_budget = std::mem::take(&mut r.over_budget);
        match (v, r.unusable.take()) {
            (Ok(v), None) => {
                out.vars.insert(name, v);
            }
            (Ok(_), Some(what)) => out.problems.push(Problem {
                line: start,
                key: Some(name),
                what,
                over_budget,
            }),
            (Err(what), _) => {
                out.problems.push(Problem {
                    line: start,
                    key: Some(name),
                    what,
                    over_budget: false,
                });
                r.skip_statement();
                return;
            }
        }
    }
}

/// A value up to the first unquoted blank, newline or `;`.
fn value(r: &mut Reader, vars: &BTreeMap<String, String>) -> Result<String, String> {
    let mut v = String::new();
    while let Some(c) = r.peek() {
        if ends_word(c) {
            if matches!(c, '(' | '<' | '>' | '&' | '|') {
                return Err(format!("`{c}` after a value: not evaluated"));
            }
            break;
        }
        r.next();
        match c {
            '\'' => loop {
                match r.next() {
                    Some('\'') => break,
                    Some(c) => v.push(c),
                    None => return Err("a single quote that never closes".into()),
                }
            },
            '"' => double_quoted(r, vars, &mut v)?,
            '\\' => match r.next() {
                Some('\n') | None => {}
                Some(c) => v.push(c),
            },
            '$' if r.peek() == Some('\'') => {
                r.next();
                ansi_c(r, &mut v)?;
            }
            '$' => dollar(r, vars, &mut v)?,
            '`' => backticks(r)?,
            '\r' => {}
            c => v.push(c),
        }
    }
    Ok(v)
}

fn double_quoted(
    r: &mut Reader,
    vars: &BTreeMap<String, String>,
    v: &mut String,
) -> Result<(), String> {
    loop {
        match r.next() {
            None => return Err("a double quote that never closes".into()),
            Some('"') => return Ok(()),
            Some('\\') => match r.next() {
                Some('\n') => {}
                Some(c @ ('$' | '`' | '"' | '\\')) => v.push(c),
                Some(c) => {
                    v.push('\\');
                    v.push(c);
                }
                None => return Err("a double quote that never closes".into()),
            },
            Some('$') => dollar(r, vars, v)?,
            Some('`') => backticks(r)?,
            Some(c) => v.push(c),
        }
    }
}

/// `$NAME` or `${NAME}`, from the variables set earlier in the file (not the environment,
/// which cloud-init's bash would not have published either: it reports changed variables
/// only). A lone `$` is itself.
fn dollar(r: &mut Reader, vars: &BTreeMap<String, String>, v: &mut String) -> Result<(), String> {
    match r.peek() {
        Some('(') => {
            // Read to the matching parenthesis (quotes inside are not tracked: the value is
            // dropped either way, only where the statement ends matters).
            let mut depth = 0;
            while let Some(c) = r.next() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 1 => break,
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            r.unusable = Some("command substitution or arithmetic ($(…)): not run".into());
            Ok(())
        }
        Some('{') => {
            r.next();
            let mut name = String::new();
            loop {
                match r.next() {
                    Some('}') => break,
                    Some(c) => name.push(c),
                    None => return Err("`${` that never closes".into()),
                }
            }
            if !is_name(&name) {
                r.unusable = Some(format!("parameter expansion ${{{name}}}: not evaluated"));
            }
            expand(r, vars, &name, v);
            Ok(())
        }
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {
            let mut name = String::new();
            while let Some(c) = r.peek().filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
                name.push(c);
                r.next();
            }
            expand(r, vars, &name, v);
            Ok(())
        }
        Some(c) if c.is_ascii_digit() || "#?!@*-$".contains(c) => {
            r.next();
            r.unusable = Some(format!("special parameter ${c}: not evaluated"));
            Ok(())
        }
        _ => {
            v.push('$');
            Ok(())
        }
    }
}

/// `$NAME`'s value appended to `v`, charged to the budget: once the file's expansions pass
/// it, the value being read is marked and nothing more is appended to it (what it would
/// cost is not built, so memory stays within the budget whatever the file asks).
fn expand(r: &mut Reader, vars: &BTreeMap<String, String>, name: &str, v: &mut String) {
    let Some(value) = vars.get(name) else { return };
    if r.unusable.is_some() {
        return; // the value is left out anyway
    }
    let spent = r.expanded.saturating_add(value.len() as u64);
    if spent > r.budget {
        r.unusable = Some(format!(
            "expanding ${name} passes the budget of {} bytes for the file's variable \
             expansions: left out",
            r.budget
        ));
        r.over_budget = true;
        return;
    }
    r.expanded = spent;
    v.push_str(value);
}

/// `` `…` ``, read to its end and marked: nothing is run.
fn backticks(r: &mut Reader) -> Result<(), String> {
    loop {
        match r.next() {
            Some('`') => break,
            Some('\\') => {
                r.next();
            }
            Some(_) => {}
            None => return Err("a backquote that never closes".into()),
        }
    }
    r.unusable = Some("command substitution (`…`): not run".into());
    Ok(())
}

/// `$'…'`: the common escapes; others are kept as written.
fn ansi_c(r: &mut Reader, v: &mut String) -> Result<(), String> {
    loop {
        match r.next() {
            None => return Err("a $' quote that never closes".into()),
            Some('\'') => return Ok(()),
            Some('\\') => match r.next() {
                Some('n') => v.push('\n'),
                Some('t') => v.push('\t'),
                Some('r') => v.push('\r'),
                Some(c @ ('\\' | '\'' | '"')) => v.push(c),
                Some(c) => {
                    v.push('\\');
                    v.push(c);
                }
                None => return Err("a $' quote that never closes".into()),
            },
            Some(c) => v.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(text: &str) -> Vec<(String, String)> {
        let p = parse(text, u64::MAX);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        p.vars.into_iter().collect()
    }

    fn one(text: &str, key: &str) -> String {
        parse(text, u64::MAX)
            .vars
            .get(key)
            .cloned()
            .unwrap_or_else(|| panic!("{key} in {text:?}"))
    }

    #[test]
    fn opennebula_quoting() {
        let text = "# Context variables generated by OpenNebula\nDISK_ID='1'\nETH0_IP='10.0.0.5'\n\
            SSH_PUBLIC_KEY='ssh-ed25519 AAA a@b\nssh-rsa BBB c@d'\nMOTD='it'\\''s \"fine\" $HOME'\n";
        let v = vars(text);
        assert_eq!(v.len(), 4);
        assert_eq!(
            one(text, "SSH_PUBLIC_KEY"),
            "ssh-ed25519 AAA a@b\nssh-rsa BBB c@d"
        );
        assert_eq!(one(text, "MOTD"), "it's \"fine\" $HOME");
        assert_eq!(one(text, "ETH0_IP"), "10.0.0.5");
    }

    #[test]
    fn hand_written_forms() {
        let text = "export A=plain\nB=\"x $A ${A}y \\$z \\\"q\\\"\" C=a\\ b # note\n\
            export D\nE=$'l1\\nl2\\t'\nF=\nG=\"multi\nline\"\r\nH=over\\\nlap\n";
        let p = parse(text, u64::MAX);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let want = [
            ("A", "plain"),
            ("B", "x plain plainy $z \"q\""),
            ("C", "a b"),
            ("E", "l1\nl2\t"),
            ("F", ""),
            ("G", "multi\nline"),
            ("H", "overlap"),
        ];
        for (k, v) in want {
            assert_eq!(p.vars.get(k).map(String::as_str), Some(v), "{k}");
        }
        assert_eq!(p.vars.len(), want.len());
        // An unset variable expands to nothing, as in bash.
        assert_eq!(one("X=\"a${NOPE}b\"", "X"), "ab");
    }

    #[test]
    fn what_is_not_evaluated_is_named_by_line_and_key() {
        let text = "A='1'\nB=$(cat /etc/shadow)\nrm -rf '/\nx'\nC=`id`\nD=\"${A:-x}\" F=\"$(a \"b\")\" G=2\n\
            E='never closed\n";
        let p = parse(text, u64::MAX);
        assert_eq!(p.vars.len(), 2, "{:?}", p.vars);
        assert_eq!((p.vars["A"].as_str(), p.vars["G"].as_str()), ("1", "2"));
        let got: Vec<(u32, Option<&str>)> = p
            .problems
            .iter()
            .map(|x| (x.line, x.key.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (2, Some("B")),
                (3, None),
                (5, Some("C")),
                (6, Some("D")),
                (6, Some("F")),
                (7, Some("E"))
            ]
        );
    }

    #[test]
    fn variables_that_expand_each_other_stop_at_the_budget() {
        // Each line ten copies of the one before: 10, 100, 1000 bytes; 1110 pass 1000.
        let text =
            "A='xxxxxxxxxx'\nB=\"$A$A$A$A$A$A$A$A$A$A\"\nC=$B$B$B$B$B$B$B$B$B$B\nD=$B\nE=ok\n";
        let p = parse(text, 1000);
        assert_eq!(p.vars["B"].len(), 100);
        assert!(!p.vars.contains_key("C"));
        assert_eq!(p.vars["E"], "ok");
        // What C built before it passed the budget stays charged (work, not only memory, is
        // bounded): D expands nothing more; literal values still read.
        assert!(!p.vars.contains_key("D"));
        let got: Vec<_> = p
            .problems
            .iter()
            .map(|x| (x.line, x.key.as_deref(), x.over_budget))
            .collect();
        assert_eq!(got, [(3, Some("C"), true), (4, Some("D"), true)]);
        assert!(
            !p.problems[0].what.contains("xxx"),
            "{}",
            p.problems[0].what
        );
    }
}
