//! `manage_resolv_conf` and `resolv_conf` (`nameservers`, `searchdomains`, `domain`,
//! `sortlist`, `options`): /etc/resolv.conf written from the config, line for line as
//! cloud-init's `resolv.conf.tmpl` renders it (on Photon, Mariner and Azure Linux its
//! `systemd.resolved.conf.tmpl` into /etc/systemd/resolved.conf), with ember's own comment
//! at the top; no Jinja. Options that are `true` become flags, `false` ones are dropped. It
//! runs in the early unit, as cloud-init's init stage runs it, and only where cloud-init's
//! metadata lists the distribution (not Debian or Ubuntu, unless `unverified_modules` names
//! it). A symlink at the path is replaced by the file.
//! <https://docs.cloud-init.io/en/latest/reference/modules.html#resolv-conf>

use super::{ModCtx, RunnerModule};
use crate::common::distro::OsRelease;
use crate::common::system_tools::py_str;
use crate::conf_lang::{resolv, Refused};
use crate::config::reader::Reader;
use crate::config::shape::{Fields, Shape};
use crate::error::Diag;
use crate::reason::Reason;
use crate::root::FileSpec;
use serde_json::{Map, Value};

pub struct ResolvConf;

/// What `resolv_conf` gives, each list's items as Python's `str()` renders them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    pub nameservers: Option<Vec<String>>,
    pub searchdomains: Option<Vec<String>>,
    pub domain: Option<String>,
    pub sortlist: Option<Vec<String>>,
    /// `(key, value)` of the options that are not booleans, in order.
    pub options: Vec<(String, String)>,
    /// The options that are `true`.
    pub flags: Vec<String>,
}

/// What the module does.
#[derive(Clone, Debug, PartialEq)]
pub enum Settings {
    /// `manage_resolv_conf` absent or false.
    Off,
    /// `manage_resolv_conf: true` without `resolv_conf`: a warning, as in cloud-init.
    NoParams,
    Write(Params),
}

const HEADER: &str = "# Written by ember because manage_resolv_conf is true (cloud-init's \
                      resolv_conf module), once per instance.\n#\n";

fn list(map: &Map<String, Value>, name: &str, diags: &mut Vec<Diag>) -> Option<Vec<String>> {
    match map.get(name)? {
        Value::Array(items) => Some(items.iter().map(py_str).collect()),
        _ => {
            let msg = "must be a list";
            diags.push(Diag::error(Reason::WrongType, msg).key(format!("resolv_conf.{name}")));
            None
        }
    }
}

/// The keys as the boot reads them; `None` when unusable (the diagnostic says why).
pub fn read(cfg: &Value, diags: &mut Vec<Diag>) -> Option<Settings> {
    let manage = match cfg.get("manage_resolv_conf") {
        None => return Some(Settings::Off),
        v => crate::common::distro::flag(v, "manage_resolv_conf", diags).unwrap_or(false),
    };
    if !manage {
        return Some(Settings::Off);
    }
    let Some(rc) = cfg.get("resolv_conf") else {
        return Some(Settings::NoParams);
    };
    let Some(map) = rc.as_object() else {
        let msg = "must be a mapping of nameservers, searchdomains, domain, sortlist, options";
        diags.push(Diag::error(Reason::WrongType, msg).key("resolv_conf"));
        return None;
    };
    let before = diags.len();
    let mut p = Params {
        nameservers: list(map, "nameservers", diags),
        searchdomains: list(map, "searchdomains", diags),
        sortlist: list(map, "sortlist", diags),
        domain: map.get("domain").map(py_str),
        ..Params::default()
    };
    match map.get("options") {
        None | Some(Value::Null) => {}
        Some(Value::Object(opts)) => {
            for (k, v) in opts {
                match v {
                    Value::Bool(true) => p.flags.push(k.clone()),
                    Value::Bool(false) => {}
                    v => p.options.push((k.clone(), py_str(v))),
                }
            }
        }
        Some(_) => {
            let msg = "must be a mapping of option names to values (true for a flag)";
            diags.push(Diag::error(Reason::WrongType, msg).key("resolv_conf.options"));
        }
    }
    words(&p, diags);
    (diags.len() == before).then_some(Settings::Write(p))
}

/// Every value is one word of resolv.conf (`conf_lang::resolv`): one that is not (a blank,
/// a line break, `#`, `;`) is an error naming its key, and nothing is written.
fn words(p: &Params, diags: &mut Vec<Diag>) {
    let mut refuse = |key: String, why: Refused| {
        diags.push(Diag::error(Reason::BadValue, why.to_string()).key(key));
    };
    for (name, items) in [
        ("nameservers", &p.nameservers),
        ("searchdomains", &p.searchdomains),
        ("sortlist", &p.sortlist),
    ] {
        for (i, v) in items.iter().flatten().enumerate() {
            if let Err(why) = resolv::word(v) {
                refuse(format!("resolv_conf.{name}.{i}"), why);
            }
        }
    }
    if let Some(Err(why)) = p.domain.as_deref().map(resolv::word) {
        refuse("resolv_conf.domain".into(), why);
    }
    for f in &p.flags {
        if let Err(why) = resolv::option(f, "x") {
            refuse(format!("resolv_conf.options.{f}"), why);
        }
    }
    for (k, v) in &p.options {
        if let Err(why) = resolv::option(k, v) {
            refuse(format!("resolv_conf.options.{k}"), why);
        }
    }
}

const RESOLV_CONF: Shape = Shape::Map(&Fields {
    fields: &[
        ("nameservers", crate::config::shape::list(&Shape::Any, 0)),
        ("searchdomains", crate::config::shape::list(&Shape::Any, 0)),
        ("domain", Shape::Str),
        ("sortlist", crate::config::shape::list(&Shape::Any, 0)),
        ("options", Shape::Dict(&Shape::Any)),
    ],
    required: &[],
    open: false,
});

/// Its keys' shapes (cloud-init's schema) and typed reader, for `ember schema`.
pub static READER: Reader = Reader {
    shapes: &[
        ("manage_resolv_conf", Shape::Bool),
        ("resolv_conf", RESOLV_CONF),
    ],
    read: |cfg, d| {
        read(cfg, d);
    },
};

/// `resolv.conf.tmpl` rendered as cloud-init's Jinja (`trim_blocks`) renders it: the same
/// blank lines and trailing spaces, the sortlist line unterminated when no options follow,
/// each `key:value` option after the first on a line of its own. Every word passed
/// `conf_lang::resolv` in `read`.
pub fn render_resolv_conf(p: &Params) -> String {
    let mut out = String::from(HEADER);
    if let Some(ns) = &p.nameservers {
        for s in ns {
            out.push_str(&format!("nameserver {s}\n"));
        }
        out.push('\n');
    }
    if let Some(sd) = &p.searchdomains {
        out.push_str("search ");
        for s in sd {
            out.push_str(s);
            out.push(' ');
        }
        out.push('\n');
    }
    if let Some(d) = &p.domain {
        out.push_str(&format!("domain {d}\n"));
    }
    if let Some(sl) = &p.sortlist {
        out.push_str("\nsortlist ");
        for s in sl {
            out.push_str(s);
            out.push(' ');
        }
    }
    if !p.options.is_empty() || !p.flags.is_empty() {
        out.push_str("\noptions ");
        for f in &p.flags {
            out.push_str(f);
            out.push(' ');
        }
        for (k, v) in &p.options {
            out.push_str(&format!("{k}:{v}\n"));
        }
    }
    out.push('\n');
    out
}

/// `systemd.resolved.conf.tmpl` rendered the same way.
pub fn render_resolved_conf(p: &Params) -> String {
    let mut out = format!("{HEADER}[Resolve]\nLLMNR=false\n");
    if let Some(ns) = &p.nameservers {
        out.push_str("DNS=");
        for s in ns {
            out.push_str(s);
            out.push(' ');
        }
    }
    out.push('\n');
    if let Some(sd) = &p.searchdomains {
        out.push_str("Domains=");
        for s in sd {
            out.push_str(s);
            out.push(' ');
        }
    }
    out.push('\n');
    out
}

impl RunnerModule for ResolvConf {
    fn name(&self) -> &'static str {
        "resolv_conf"
    }
    fn run(&self, ctx: &ModCtx, cfg: &Value, diags: &mut Vec<Diag>) {
        let p = match read(cfg, diags) {
            None | Some(Settings::Off) => return,
            Some(Settings::NoParams) => {
                let msg = "manage_resolv_conf is true but resolv_conf gives no parameters";
                diags.push(Diag::warning(Reason::MissingKey, msg).key("resolv_conf"));
                return;
            }
            Some(Settings::Write(p)) => p,
        };
        // The distributions whose cloud-init class keeps DNS in systemd-resolved's file.
        let os = OsRelease::read(ctx.root);
        let resolved = ["photon", "mariner", "azurelinux"].contains(&os.id.as_str());
        let (path, text) = if resolved {
            ("/etc/systemd/resolved.conf", render_resolved_conf(&p))
        } else {
            ("/etc/resolv.conf", render_resolv_conf(&p))
        };
        ctx.exec.say(&format!("resolv_conf: writing {path}"));
        if let Err(e) = ctx
            .root
            .write_file(path, text.as_bytes(), &FileSpec::mode(0o644))
        {
            diags.push(Diag::error(e.code(), e.to_string()).key("resolv_conf"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Value) -> Params {
        let cfg = json!({"manage_resolv_conf": true, "resolv_conf": v});
        match read(&cfg, &mut Vec::new()) {
            Some(Settings::Write(p)) => p,
            other => panic!("{other:?}"),
        }
    }

    /// The documented example, and the lines Jinja makes of it.
    #[test]
    fn renders_as_the_template_does() {
        let p = params(
            json!({"domain": "example.com", "nameservers": ["8.8.8.8", "8.8.4.4"],
            "options": {"rotate": true, "timeout": 1},
            "searchdomains": ["foo.example.com", "bar.example.com"],
            "sortlist": ["10.0.0.1/255", "10.0.0.2"]}),
        );
        assert_eq!(
            render_resolv_conf(&p).strip_prefix(HEADER).unwrap(),
            "nameserver 8.8.8.8\nnameserver 8.8.4.4\n\n\
             search foo.example.com bar.example.com \n\
             domain example.com\n\n\
             sortlist 10.0.0.1/255 10.0.0.2 \n\
             options rotate timeout:1\n\n"
        );
        // Mappings come in key order (serde_json's map), not the document's.
        let two = params(
            json!({"options": {"timeout": 1, "attempts": 2, "edns0": true,
                                            "inet6": false}}),
        );
        assert_eq!(
            render_resolv_conf(&two).strip_prefix(HEADER).unwrap(),
            "\noptions edns0 attempts:2\ntimeout:1\n\n"
        );
        let sort = params(json!({"sortlist": ["10.0.0.0/8"]}));
        assert_eq!(
            render_resolv_conf(&sort).strip_prefix(HEADER).unwrap(),
            "\nsortlist 10.0.0.0/8 \n"
        );
        assert_eq!(
            render_resolv_conf(&params(json!({})))
                .strip_prefix(HEADER)
                .unwrap(),
            "\n"
        );
        assert_eq!(
            render_resolved_conf(&params(json!({"nameservers": ["1.1.1.1"],
                                                "searchdomains": ["a.example"]})))
            .strip_prefix(HEADER)
            .unwrap(),
            "[Resolve]\nLLMNR=false\nDNS=1.1.1.1 \nDomains=a.example \n"
        );
    }

    #[test]
    fn reads_off_and_mistakes() {
        let mut d = Vec::new();
        assert_eq!(
            read(&json!({"resolv_conf": {}}), &mut d),
            Some(Settings::Off)
        );
        let off = json!({"manage_resolv_conf": false, "resolv_conf": {}});
        assert_eq!(read(&off, &mut d), Some(Settings::Off));
        let none = json!({"manage_resolv_conf": true});
        assert_eq!(read(&none, &mut d), Some(Settings::NoParams));
        assert!(d.is_empty());
        let bad = json!({"manage_resolv_conf": true, "resolv_conf": {"nameservers": "8.8.8.8"}});
        assert_eq!(read(&bad, &mut d), None);
        assert_eq!(d[0].key.as_deref(), Some("resolv_conf.nameservers"));
    }

    /// A line break, a blank, `#` or `;` in a word would add a line or end the word: each is an
    /// error naming its key (never the value), and nothing is written.
    #[test]
    fn words_with_line_breaks_blanks_or_comments_are_refused() {
        let mut d = Vec::new();
        let rc = json!({"nameservers": ["192.0.2.1", "192.0.2.2\nnameserver 203.0.113.66"],
                        "searchdomains": ["a.example", "b.example #x"], "domain": "d\r;x",
                        "sortlist": ["10.0.0.0/8"],
                        "options": {"ndots": "2\noptions debug", "rotate": true, "a:b": 1}});
        let cfg = json!({"manage_resolv_conf": true, "resolv_conf": rc});
        assert_eq!(read(&cfg, &mut d), None);
        let keys: Vec<_> = d.iter().map(|d| d.key.as_deref().unwrap()).collect();
        assert_eq!(
            keys,
            [
                "resolv_conf.nameservers.1",
                "resolv_conf.searchdomains.1",
                "resolv_conf.domain",
                "resolv_conf.options.a:b",
                "resolv_conf.options.ndots",
            ]
        );
        assert!(d
            .iter()
            .all(|d| !d.message.contains("203.0") && !d.message.contains("debug")));
    }
}
