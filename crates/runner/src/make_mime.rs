//! `ember devel make-mime -a FILE:TYPE… [--force] | --list-types`: cloud-init's tool for a
//! multipart user-data. Each file becomes a `text/TYPE` part, UTF-8 and base64 as Python's
//! `MIMEText(…, "utf-8")` writes it (so a part's text can never be taken for a boundary), with
//! its file name in `Content-Disposition` (`userdata::encode_param`: quoted, or RFC 2231's
//! `filename*=utf-8''…` when a quote, a backslash, a control character or non-ASCII is in it,
//! so no name ends the header early). A type that is not an RFC 2045 token is a usage error
//! (exit 2), `--force` or not; a type cloud-init does not handle is an error (exit 1), or with
//! `--force` a warning.

use super::{global_flag, CliError, Ctx};
use base64::Engine as _;
use lexopt::prelude::*;
use std::path::PathBuf;

pub const USAGE: &str = "-a|--attach FILE:TYPE... [-f|--force] | -l|--list-types";

/// The content types cloud-init's user-data handlers take (its `INCLUSION_TYPES_MAP`).
const TYPES: &[&str] = &[
    "text/cloud-boothook",
    "text/cloud-config",
    "text/cloud-config-archive",
    "text/cloud-config-jsonp",
    "text/jinja2",
    "text/part-handler",
    "text/x-include-once-url",
    "text/x-include-url",
    "text/x-shellscript",
    "text/x-shellscript-per-boot",
    "text/x-shellscript-per-instance",
    "text/x-shellscript-per-once",
];

struct Part {
    path: PathBuf,
    /// As given after the colon (`cloud-config`): the subtype under `text/`.
    subtype: String,
}

pub fn run(ctx: &mut Ctx, parser: &mut lexopt::Parser) -> Result<i32, CliError> {
    let (mut parts, mut force, mut list) = (Vec::new(), false, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Short('a') | Long("attach") => {
                let value = parser.value()?.string()?;
                // The type is a token, never holding a colon; the file name may.
                let Some((path, subtype)) = value.rsplit_once(':') else {
                    return Err(CliError::Usage(format!(
                        "-a/--attach: '{value}' is not FILE:TYPE (such as user-data.yaml:cloud-config)"
                    )));
                };
                let subtype = subtype.trim().to_string();
                if !is_token(&subtype) {
                    return Err(CliError::Usage(format!(
                        "-a/--attach: attachment {}: the type after the last colon is not a MIME \
                         subtype (RFC 2045 token characters, such as cloud-config)",
                        parts.len() + 1
                    )));
                }
                parts.push(Part {
                    path: path.into(),
                    subtype,
                });
            }
            Short('f') | Long("force") => force = true,
            Short('l') | Long("list-types") => list = true,
            // cloud-init's devel commands take --debug; make-mime has nothing to say with it.
            Short('d') | Long("debug") => {}
            other => match global_flag(&other) {
                Some(flag) => ctx.set_global(flag, parser)?,
                None => return Err(other.unexpected().into()),
            },
        }
    }
    if list {
        let names: Vec<&str> = TYPES.iter().map(|t| &t["text/".len()..]).collect();
        println!("{}", names.join("\n"));
        return Ok(0);
    }
    if parts.is_empty() {
        return Err(CliError::Usage(
            "nothing to attach: give -a FILE:TYPE".into(),
        ));
    }
    let mut bodies = Vec::new();
    let mut unknown = 0;
    for (i, part) in parts.iter().enumerate() {
        let raw = std::fs::read(&part.path).map_err(|e| CliError::file(&part.path, e))?;
        let text = String::from_utf8(raw)
            .map_err(|_| CliError::file(&part.path, "not UTF-8 text; make-mime attaches text"))?;
        let ctype = format!("text/{}", part.subtype).to_ascii_lowercase();
        if !TYPES.contains(&ctype.as_str()) {
            unknown += 1;
            let level = if force { "WARNING" } else { "ERROR" };
            eprintln!(
                "{level}: content type '{ctype}' for attachment {} may be incorrect!",
                i + 1
            );
        }
        bodies.push(part_text(part, &text));
    }
    if unknown > 0 {
        eprintln!("Invalid content-types, override with --force");
        if !force {
            return Ok(1);
        }
    }
    print!("{}", message(&boundary(), &bodies));
    Ok(0)
}

/// An RFC 2045 token: printable US-ASCII but space and the tspecials `()<>@,;:\"/[]?=`.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?=".contains(&b))
}

/// One part: headers in the order Python's email package writes them, a blank line, then the
/// text in base64 lines of 76 characters.
fn part_text(part: &Part, text: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let mut s = format!(
        "Content-Type: text/{}; charset=\"utf-8\"\nMIME-Version: 1.0\n\
         Content-Transfer-Encoding: base64\n\
         Content-Disposition: attachment; {}\n\n",
        part.subtype,
        crate::mime::encode_param("filename", &part.path.to_string_lossy())
    );
    for line in encoded.as_bytes().chunks(76) {
        s.push_str(&String::from_utf8_lossy(line));
        s.push('\n');
    }
    s
}

/// The whole message as cloud-init prints it (`print(message)`: one more newline at the end).
fn message(boundary: &str, parts: &[String]) -> String {
    let mut s = format!(
        "Content-Type: multipart/mixed; boundary=\"{boundary}\"\nMIME-Version: 1.0\n\n--{boundary}\n"
    );
    s.push_str(&parts.join(&format!("\n--{boundary}\n")));
    s.push_str(&format!("\n--{boundary}--\n\n"));
    s
}

/// Python's boundary shape: 15 `=`, 19 random digits, `==`.
fn boundary() -> String {
    let mut b = [0u8; 8];
    let _ = rustix::rand::getrandom(&mut b, rustix::rand::GetRandomFlags::empty());
    let n = u64::from_le_bytes(b) % 10_000_000_000_000_000_000;
    format!("==============={n:019}==")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_shape() {
        let part = Part {
            path: "cfg.yaml".into(),
            subtype: "cloud-config".into(),
        };
        let body = part_text(&part, "#cloud-config\n");
        assert_eq!(
            body,
            "Content-Type: text/cloud-config; charset=\"utf-8\"\nMIME-Version: 1.0\n\
             Content-Transfer-Encoding: base64\n\
             Content-Disposition: attachment; filename=\"cfg.yaml\"\n\nI2Nsb3VkLWNvbmZpZwo=\n"
        );
        let m = message("B", &[body.clone(), body]);
        assert!(m.starts_with("Content-Type: multipart/mixed; boundary=\"B\"\nMIME-Version: 1.0\n\n--B\nContent-Type: text/cloud-config"));
        assert!(m.contains("I2Nsb3VkLWNvbmZpZwo=\n\n--B\nContent-Type"));
        assert!(m.ends_with("I2Nsb3VkLWNvbmZpZwo=\n\n--B--\n\n"));
        let odd = Part {
            path: "a\"b\n".into(),
            subtype: "x-shellscript".into(),
        };
        assert!(part_text(&odd, "")
            .contains("Content-Disposition: attachment; filename*=utf-8''a%22b%0A\n\n"));
        let b = boundary();
        assert_eq!(b.len(), 15 + 19 + 2);
        assert!(b[15..34].bytes().all(|c| c.is_ascii_digit()));
    }

    #[test]
    fn types_are_tokens() {
        for yes in [
            "cloud-config",
            "x-shellscript-per-boot",
            "jinja2",
            "X.Y+z_1!",
        ] {
            assert!(is_token(yes), "{yes}");
        }
        for no in [
            "", "a b", "a/b", "a;b", "a\nb", "a\"b", "a=b", "é", "a\\b", "a:b",
        ] {
            assert!(!is_token(no), "{no:?}");
        }
    }
}
