//! `final_message`: the line that says provisioning finished, on the console and in the output
//! log, with `$UPTIME`, `$TIMESTAMP`, `$VERSION` and `$DATASOURCE` (either case, `$x`, `${x}`,
//! or `{{ x }}` after a `## template: jinja` line) substituted. It renders no other Jinja.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#final-message>

use super::{ModCtx, RunnerModule};
use crate::clock::{boot_seconds, wall_seconds};
use crate::config::reader::Reader;
use crate::date::format_utc;
use crate::error::Diag;
use crate::reason::Reason;
use crate::template::{self, Kind};
use serde_json::Value;

pub struct FinalMessage;

/// cloud-init's default text, with ember's version in it.
const DEFAULT: &str = "## template: jinja\nCloud-init v. {{version}} finished at {{timestamp}}. \
                       Datasource {{datasource}}.  Up {{uptime}} seconds";

/// The `final_message` key: its text (a number is taken as its digits, as cloud-init's str()
/// does), or empty for the default; another type is an error and the default is used. The
/// runner and `ember schema` both read it here.
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> String {
    match cfg.get("final_message") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => {
            let msg = "expected a string; the default message is used";
            diags.push(Diag::error(Reason::WrongType, msg).key("final_message"));
            String::new()
        }
    }
}

/// Its typed reader (its keys have no other shape), for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[],
    read: |cfg, d| {
        read(cfg, d);
    },
};

impl RunnerModule for FinalMessage {
    fn name(&self) -> &'static str {
        "final_message"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        // cloud-init prints another type's Python text (its schema warns): never a failure.
        let mut own = Vec::new();
        let given = read(cfg, &mut own);
        diags.extend(own.into_iter().map(Diag::recoverable));
        let template = if given.is_empty() { DEFAULT } else { &given };
        let vars = Vars {
            uptime: format!("{:.2}", boot_seconds()),
            timestamp: format_utc(wall_seconds()),
            version: env!("CARGO_PKG_VERSION").to_string(),
            datasource: ctx.datasource.clone(),
        };
        ctx.exec.say(&render(template, &vars));
    }
}

pub struct Vars {
    pub uptime: String,
    pub timestamp: String,
    pub version: String,
    pub datasource: String,
}

impl Vars {
    fn get(&self, name: &str) -> Option<&str> {
        match name.to_ascii_lowercase().as_str() {
            "uptime" => Some(&self.uptime),
            "timestamp" => Some(&self.timestamp),
            "version" => Some(&self.version),
            "datasource" => Some(&self.datasource),
            _ => None,
        }
    }
}

/// Substitutes the four variables with cloud-init's basic renderer, or `{{ name }}` after a
/// `## template: jinja` line; anything else is left as written (cloud-init's render fails
/// there and says nothing; ember says the line as it stands).
pub fn render(template: &str, vars: &Vars) -> String {
    let lookup = |name: &str| vars.get(name).map(str::to_string);
    match template::split_header(template) {
        Ok((Some(Kind::Jinja), body)) => jinja_names(body, vars),
        Ok((_, body)) => template::basic(body, &lookup).0,
        Err(_) => template::basic(template, &lookup).0,
    }
}

/// `{{ name }}` for the four names: all the Jinja the message needs without an engine.
fn jinja_names(text: &str, vars: &Vars) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        let Some(j) = after.find("}}") else { break };
        out.push_str(&rest[..i]);
        match vars.get(after[..j].trim()) {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[i..i + 4 + j]),
        }
        rest = &after[j + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        Vars {
            uptime: "12.50".into(),
            timestamp: "Thu, 01 Jan 1970 00:00:00 +0000".into(),
            version: "0.1.0".into(),
            datasource: "DataSourceNoCloud [seed=/dev/sr0]".into(),
        }
    }

    #[test]
    fn renders_forms() {
        let cases = [
            (DEFAULT, "Cloud-init v. 0.1.0 finished at Thu, 01 Jan 1970 00:00:00 +0000. Datasource DataSourceNoCloud [seed=/dev/sr0].  Up 12.50 seconds"),
            ("up $UPTIME s, v$version", "up 12.50 s, v0.1.0"),
            ("${uptime}x $HOME $", "12.50x $HOME $"),
            ("## template: jinja\n{{ UPTIME }} {{other}}", "12.50 {{other}}"),
            ("{{uptime}}", "{{uptime}}"),
            // One pass of cloud-init's pattern: no blanks inside `${}`, and a value that
            // holds a name is not expanded again (ember's two passes did both before).
            ("${ uptime } ${UPTIME}", "${ uptime } 12.50"),
            ("## template: basic\n$uptime", "12.50"),
        ];
        for (t, want) in cases {
            assert_eq!(render(t, &vars()), want, "{t:?}");
        }
        let mut v = vars();
        v.datasource = "ds $version".into();
        assert_eq!(render("${datasource}", &v), "ds $version");
    }
}
