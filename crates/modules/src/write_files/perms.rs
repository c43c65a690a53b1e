//! `write_files` `permissions`: an octal string (`'0644'`, `'644'`, `'0o644'`) or a YAML number
//! taken as cloud-init takes it. Default 0644.

use crate::reason::Reason;
use serde_json::Value;

pub const DEFAULT_MODE: u32 = 0o644;

/// Largest mode: permission bits plus setuid, setgid and sticky.
const MAX_MODE: u32 = 0o7777;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermsError {
    /// Neither a string nor a non-negative integer.
    Type,
    /// A string that is not octal digits.
    NotOctal,
    /// More than 0o7777.
    TooLarge,
}

impl PermsError {
    pub fn code(self) -> Reason {
        match self {
            PermsError::Type => Reason::WrongType,
            PermsError::NotOctal | PermsError::TooLarge => Reason::PermissionsInvalid,
        }
    }
    pub fn message(self) -> &'static str {
        match self {
            PermsError::Type => "must be an octal string such as '0644' or a number",
            PermsError::NotOctal => "is not an octal mode such as '0644'",
            PermsError::TooLarge => "is larger than 07777",
        }
    }
}

/// The mode, and whether it looks like a mistake worth a warning.
///
/// A YAML number is already an integer: `0644` was read as octal (420), which is right. A plain
/// `644` is decimal (0o1204); cloud-init uses it as it is, and so does ember, with a warning
/// when it is 512..=777 written with octal digits only: the typical slip (600, 640, 644, 755,
/// 777), and no mode anyone writes on purpose for a file (the sticky bit with odd bits). Below
/// 512 the slip cannot be told from a real `0644` (420), so there is no warning.
///
/// Where cloud-init differs: a string it cannot parse makes it warn and use 0644; the issue asks
/// for an error (the file is not written rather than written with a mode nobody asked for).
pub fn parse(value: Option<&Value>) -> Result<(u32, bool), PermsError> {
    let mode = match value {
        None | Some(Value::Null) => return Ok((DEFAULT_MODE, false)),
        Some(Value::Number(n)) => {
            let n = n.as_u64().ok_or(PermsError::Type)?;
            let mode = u32::try_from(n).map_err(|_| PermsError::TooLarge)?;
            let octal_digits = n.to_string().bytes().all(|b| (b'0'..=b'7').contains(&b));
            return check(mode).map(|m| (m, (512..=777).contains(&n) && octal_digits));
        }
        Some(Value::String(s)) => octal(s)?,
        Some(_) => return Err(PermsError::Type),
    };
    check(mode).map(|m| (m, false))
}

fn check(mode: u32) -> Result<u32, PermsError> {
    if mode > MAX_MODE {
        Err(PermsError::TooLarge)
    } else {
        Ok(mode)
    }
}

/// Python's `int(s, 8)`, which cloud-init uses: surrounding blanks, an optional `0o` prefix,
/// `_` between digits.
fn octal(s: &str) -> Result<u32, PermsError> {
    let s = s.trim();
    let digits = s
        .strip_prefix("0o")
        .or_else(|| s.strip_prefix("0O"))
        .unwrap_or(s);
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') {
        return Err(PermsError::NotOctal);
    }
    let mut mode: u32 = 0;
    for b in digits.bytes().filter(|&b| b != b'_') {
        if !(b'0'..=b'7').contains(&b) {
            return Err(PermsError::NotOctal);
        }
        mode = mode
            .checked_mul(8)
            .and_then(|m| m.checked_add(u32::from(b - b'0')))
            .ok_or(PermsError::TooLarge)?;
    }
    Ok(mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn permission_table() {
        let cases = [
            (None, Ok((0o644, false))),
            (Some(json!(null)), Ok((0o644, false))),
            (Some(json!("0644")), Ok((0o644, false))),
            (Some(json!("644")), Ok((0o644, false))),
            (Some(json!("0o600")), Ok((0o600, false))),
            (Some(json!(" 0755 ")), Ok((0o755, false))),
            (Some(json!("4755")), Ok((0o4755, false))),
            (Some(json!("0_644")), Ok((0o644, false))),
            // YAML `0644` arrives as 420: right, no warning.
            (Some(json!(420)), Ok((0o644, false))),
            // YAML `01777` arrives as 1023: right, no warning.
            (Some(json!(1023)), Ok((0o1777, false))),
            // YAML `644` is decimal: taken as-is like cloud-init, with a warning.
            (Some(json!(644)), Ok((644, true))),
            (Some(json!(600)), Ok((600, true))),
            (Some(json!(700)), Ok((700, true))),
            (Some(json!("0999")), Err(PermsError::NotOctal)),
            (Some(json!("rw-r--r--")), Err(PermsError::NotOctal)),
            (Some(json!("")), Err(PermsError::NotOctal)),
            (Some(json!("0o")), Err(PermsError::NotOctal)),
            (Some(json!("17777")), Err(PermsError::TooLarge)),
            (Some(json!("77777777777777")), Err(PermsError::TooLarge)),
            (Some(json!(4096)), Err(PermsError::TooLarge)),
            (Some(json!(-1)), Err(PermsError::Type)),
            (Some(json!(6.5)), Err(PermsError::Type)),
            (Some(json!(true)), Err(PermsError::Type)),
            (Some(json!(["0644"])), Err(PermsError::Type)),
        ];
        for (value, want) in cases {
            assert_eq!(parse(value.as_ref()), want, "{value:?}");
        }
    }
}
