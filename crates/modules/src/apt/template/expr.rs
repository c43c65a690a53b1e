//! Jinja expressions of the part `template` renders: names, quoted strings, tuples and
//! lists, `default` filters, `==`, `!=`, `in`, `not in`, `not`.

use super::{Error, Vars, MISSING};

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Undefined(String),
    Str(String),
    Bool(bool),
    List(Vec<Val>),
}

impl Val {
    pub fn truthy(&self) -> bool {
        match self {
            Val::Undefined(_) => false,
            Val::Str(s) => !s.is_empty(),
            Val::Bool(b) => *b,
            Val::List(l) => !l.is_empty(),
        }
    }

    pub fn shown(&self) -> Result<String, Error> {
        match self {
            Val::Undefined(name) => Ok(format!("{MISSING}{name}")),
            Val::Str(s) => Ok(s.clone()),
            Val::Bool(b) => Ok(if *b { "True" } else { "False" }.into()),
            Val::List(_) => Err(Error::Unsupported("printing a list".into())),
        }
    }
}

fn unsupported(what: &str) -> Error {
    Error::Unsupported(what.to_string())
}

/// Words, quoted strings and the punctuation the grammar uses.
fn lex(s: &str) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '\'' | '"' => {
                let end = s[i + 1..]
                    .find(c)
                    .ok_or_else(|| unsupported("an unclosed string"))?;
                let lit = &s[i + 1..i + 1 + end];
                if lit.contains('\\') {
                    return Err(unsupported("escapes in strings"));
                }
                out.push(format!("'{lit}"));
                while chars.peek().is_some_and(|(j, _)| *j <= i + 1 + end) {
                    chars.next();
                }
            }
            '(' | ')' | '[' | ']' | ',' | '|' => out.push(c.to_string()),
            '=' | '!' => {
                if chars.next_if(|(_, n)| *n == '=').is_none() {
                    return Err(unsupported("assignment or a lone '!'"));
                }
                out.push(format!("{c}="));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut word = c.to_string();
                while let Some((_, n)) = chars.next_if(|(_, n)| n.is_alphanumeric() || *n == '_') {
                    word.push(n);
                }
                out.push(word);
            }
            other => return Err(Error::Unsupported(format!("the operator {other:?}"))),
        }
    }
    Ok(out)
}

struct P<'a> {
    toks: Vec<String>,
    at: usize,
    vars: Vars<'a>,
}

pub fn eval(text: &str, vars: Vars) -> Result<Val, Error> {
    let mut p = P {
        toks: lex(text)?,
        at: 0,
        vars,
    };
    let v = p.test()?;
    match p.peek() {
        None => Ok(v),
        Some(t) => Err(Error::Unsupported(format!("{t:?} in an expression"))),
    }
}

impl P<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.at).map(String::as_str)
    }

    fn eat(&mut self, tok: &str) -> bool {
        let hit = self.peek() == Some(tok);
        self.at += usize::from(hit);
        hit
    }

    fn expect(&mut self, tok: &str) -> Result<(), Error> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(Error::Unsupported(format!("expected {tok:?}")))
        }
    }

    /// `not X`, or a comparison.
    fn test(&mut self) -> Result<Val, Error> {
        if self.eat("not") {
            return Ok(Val::Bool(!self.test()?.truthy()));
        }
        let left = self.filtered()?;
        let op = match self.peek() {
            Some("==") | Some("!=") | Some("in") => self.toks[self.at].clone(),
            Some("not") if self.toks.get(self.at + 1).map(String::as_str) == Some("in") => {
                self.at += 1;
                "not in".into()
            }
            Some("and") | Some("or") | Some("is") => return Err(unsupported("and/or/is")),
            _ => return Ok(left),
        };
        self.at += 1;
        let right = self.filtered()?;
        let same = |a: &Val, b: &Val| match (a, b) {
            (Val::Undefined(_), _) | (_, Val::Undefined(_)) => false,
            _ => a == b,
        };
        let contains = |hay: &Val, needle: &Val| match hay {
            Val::List(items) => items.iter().any(|i| same(i, needle)),
            Val::Str(s) => matches!(needle, Val::Str(n) if s.contains(n.as_str())),
            _ => false,
        };
        Ok(Val::Bool(match op.as_str() {
            "==" => same(&left, &right),
            "!=" => !same(&left, &right),
            "in" => contains(&right, &left),
            _ => !contains(&right, &left),
        }))
    }

    /// A primary with `| default(...)` filters.
    fn filtered(&mut self) -> Result<Val, Error> {
        let mut v = self.primary()?;
        while self.eat("|") {
            let name = self.peek().unwrap_or_default().to_string();
            if name != "default" && name != "d" {
                return Err(Error::Unsupported(format!("the filter {name:?}")));
            }
            self.at += 1;
            self.expect("(")?;
            let fallback = self.filtered()?;
            let mut boolean = false;
            if self.eat(",") {
                boolean = self.primary()?.truthy();
            }
            self.expect(")")?;
            let undefined = matches!(v, Val::Undefined(_));
            if undefined || (boolean && !v.truthy()) {
                v = fallback;
            }
        }
        Ok(v)
    }

    fn primary(&mut self) -> Result<Val, Error> {
        let tok = self
            .peek()
            .ok_or_else(|| unsupported("an empty expression"))?;
        let tok = tok.to_string();
        self.at += 1;
        if let Some(lit) = tok.strip_prefix('\'') {
            return Ok(Val::Str(lit.to_string()));
        }
        match tok.as_str() {
            "true" | "True" => Ok(Val::Bool(true)),
            "false" | "False" => Ok(Val::Bool(false)),
            "(" | "[" => {
                let close = if tok == "(" { ")" } else { "]" };
                let mut items = Vec::new();
                while !self.eat(close) {
                    items.push(self.filtered()?);
                    if !self.eat(",") {
                        self.expect(close)?;
                        break;
                    }
                }
                Ok(Val::List(items))
            }
            name if name.starts_with(|c: char| c.is_alphabetic() || c == '_') => {
                if matches!(self.peek(), Some("(") | Some("[")) {
                    return Err(unsupported("calls and subscripts"));
                }
                Ok((self.vars)(name).map_or(Val::Undefined(name.into()), Val::Str))
            }
            other => Err(Error::Unsupported(format!("{other:?} in an expression"))),
        }
    }
}
