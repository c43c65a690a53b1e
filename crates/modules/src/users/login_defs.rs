//! The target's /etc/login.defs as useradd reads it: id ranges, sub-id ranges, home mode and
//! password ageing, with shadow-utils' defaults for what is absent; and id allocation.

use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginDefs {
    vars: HashMap<String, String>,
}

impl LoginDefs {
    pub fn parse(text: &str) -> LoginDefs {
        let vars = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                let key = it.next()?;
                let value = it.next().unwrap_or("").trim_matches('"');
                Some((key.to_string(), value.to_string()))
            })
            .collect();
        LoginDefs { vars }
    }

    /// A number as `strtol(…, 0)` reads it: `0x` hex, leading `0` octal, else decimal.
    pub fn num(&self, key: &str) -> Option<i64> {
        let v = self.vars.get(key)?;
        let (neg, v) = v
            .strip_prefix('-')
            .map_or((false, v.as_str()), |r| (true, r));
        let n = if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
            i64::from_str_radix(h, 16).ok()?
        } else if v.len() > 1 && v.starts_with('0') {
            i64::from_str_radix(&v[1..], 8).ok()?
        } else {
            v.parse().ok()?
        };
        Some(if neg { -n } else { n })
    }

    fn id(&self, key: &str, default: u32) -> u32 {
        self.num(key)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(default)
    }

    /// `(min, max)` for uids (`"UID"`) or gids (`"GID"`), system or not, defaults as useradd.
    pub fn range(&self, kind: &str, system: bool) -> (u32, u32) {
        let min = self.id(&format!("{kind}_MIN"), 1000);
        if system {
            let sys_max = self.id(&format!("SYS_{kind}_MAX"), min.saturating_sub(1));
            (self.id(&format!("SYS_{kind}_MIN"), 101), sys_max)
        } else {
            (min, self.id(&format!("{kind}_MAX"), 60000))
        }
    }

    /// `(min, max, count)` of subordinate ids (`"UID"` or `"GID"`).
    pub fn sub_range(&self, kind: &str) -> (u32, u32, u32) {
        (
            self.id(&format!("SUB_{kind}_MIN"), 100_000),
            self.id(&format!("SUB_{kind}_MAX"), 600_100_000),
            self.id(&format!("SUB_{kind}_COUNT"), 65536),
        )
    }

    /// Mode of a new home: HOME_MODE, else what UMASK leaves of 0777 (UMASK defaults to 022).
    pub fn home_mode(&self) -> u32 {
        let from = |k: &str| self.num(k).and_then(|n| u32::try_from(n).ok());
        from("HOME_MODE").map_or_else(|| 0o777 & !from("UMASK").unwrap_or(0o22), |m| m & 0o7777)
    }

    /// A shadow ageing field (PASS_MIN_DAYS, …) as useradd writes it: empty when unset or -1.
    pub fn ageing(&self, key: &str) -> String {
        match self.num(key) {
            Some(n) if n >= 0 => n.to_string(),
            _ => String::new(),
        }
    }

    pub fn flag(&self, key: &str) -> Option<bool> {
        self.vars.get(key).map(|v| v.eq_ignore_ascii_case("yes"))
    }
}

/// A free id in `[min, max]` as shadow-utils picks it: regular ids one above the highest in the
/// range, system ids one below the lowest (system ids count down from the top), else the first
/// gap found from the same end. `None` if the range is full.
pub fn allocate(used: &BTreeSet<u32>, (min, max): (u32, u32), system: bool) -> Option<u32> {
    if min > max {
        return None;
    }
    let mut in_range = used.range(min..=max);
    let free = |id: &u32| !used.contains(id);
    if system {
        match in_range.next() {
            None => Some(max),
            Some(&low) if low > min => Some(low - 1),
            Some(_) => (min..=max).rev().find(free),
        }
    } else {
        match in_range.next_back() {
            None => Some(min),
            Some(&high) if high < max => Some(high + 1),
            Some(_) => (min..=max).find(free),
        }
    }
}

/// The first `count` ids at or above `min` (ending at or below `max`) that overlap no range
/// in the subuid/subgid entries `ranges` (`(start, count)`), as useradd's first fit.
pub fn allocate_sub(ranges: &[(u64, u64)], (min, max, count): (u32, u32, u32)) -> Option<u32> {
    let (count, max) = (u64::from(count), u64::from(max));
    let mut start = u64::from(min);
    let mut sorted = ranges.to_vec();
    ember_core::sort::sort(&mut sorted);
    for (s, c) in sorted {
        if s + c <= start {
            continue;
        }
        if s >= start + count {
            break;
        }
        start = s + c;
    }
    (count > 0 && start + count - 1 <= max)
        .then(|| u32::try_from(start).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_defaults() {
        let d = LoginDefs::parse("UID_MIN 2000\nUID_MAX 0x7530\n#GID_MIN 5\nSYS_UID_MIN 0100\nUMASK 077\nPASS_MAX_DAYS 99999\nPASS_MIN_DAYS -1\n");
        assert_eq!(d.range("UID", false), (2000, 30000));
        assert_eq!(d.range("UID", true), (64, 1999));
        assert_eq!(d.range("GID", false), (1000, 60000));
        assert_eq!(d.range("GID", true), (101, 999));
        assert_eq!(d.home_mode(), 0o700);
        assert_eq!(d.ageing("PASS_MAX_DAYS"), "99999");
        assert_eq!(d.ageing("PASS_MIN_DAYS"), "");
        assert_eq!(d.ageing("PASS_WARN_AGE"), "");
        assert_eq!(LoginDefs::parse("HOME_MODE 0750\n").home_mode(), 0o750);
        assert_eq!(LoginDefs::parse("").home_mode(), 0o755);
        assert_eq!(
            LoginDefs::parse("").sub_range("UID"),
            (100000, 600100000, 65536)
        );
    }

    #[test]
    fn allocation() {
        let r = (1000, 1005);
        let cases: [(&[u32], bool, Option<u32>); 8] = [
            (&[0, 65534], false, Some(1000)),
            (&[0, 1000, 1001], false, Some(1002)),
            (&[1003], false, Some(1004)),
            (&[1000, 1005], false, Some(1001)),
            (&[1000, 1001, 1002, 1003, 1004, 1005], false, None),
            (&[0], true, Some(1005)),
            (&[1004, 1005], true, Some(1003)),
            (&[1000, 1005], true, Some(1004)),
        ];
        for (used, system, want) in cases {
            let set: BTreeSet<u32> = used.iter().copied().collect();
            assert_eq!(allocate(&set, r, system), want, "{used:?} {system}");
        }
    }

    #[test]
    fn sub_allocation() {
        let r = (100000, 600100000, 65536);
        assert_eq!(allocate_sub(&[], r), Some(100000));
        assert_eq!(allocate_sub(&[(100000, 65536)], r), Some(165536));
        assert_eq!(
            allocate_sub(&[(165536, 65536), (100000, 65536)], r),
            Some(231072)
        );
        assert_eq!(allocate_sub(&[(300000, 10)], r), Some(100000));
        assert_eq!(
            allocate_sub(&[(100000, 65536)], (100000, 165535, 65536)),
            None
        );
    }
}
