//! Calendar dates as days since 1970-01-01 (proleptic Gregorian, Howard Hinnant's
//! algorithms), for shadow's date fields, Google's key expiry times and cloud-init's
//! `last_update` format.

/// Days since the epoch of `y-m-d`, `None` when that is not a real date.
pub fn days(y: i64, m: i64, d: i64) -> Option<i64> {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let february = if leap { 29 } else { 28 };
    let month_len = [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&m) || d < 1 || d > month_len[(m - 1) as usize] {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// `Wed, 21 Feb 2024 21:27:24 +0000`: cloud-init's `last_update` (strftime
/// `%a, %d %b %Y %H:%M:%S %z` in UTC).
pub fn format_utc(epoch: f64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = epoch.max(0.0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{}, {:02} {} {} {:02}:{:02}:{:02} +0000",
        DAYS[days.rem_euclid(7) as usize],
        d,
        MONTHS[(m - 1) as usize],
        y,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's
/// algorithm), to avoid a date crate for one line of output.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_days_and_bad_dates() {
        assert_eq!(days(1970, 1, 1), Some(0));
        assert_eq!(days(2000, 3, 1), Some(11_017));
        assert_eq!(days(2024, 2, 29), Some(19_782));
        assert_eq!(days(2023, 2, 29), None);
        assert_eq!(days(2100, 2, 29), None);
        assert_eq!(days(2024, 13, 1), None);
        assert_eq!(days(2024, 4, 31), None);
    }

    #[test]
    fn formats_like_cloud_init() {
        // The date in cloud-init's own status documentation example.
        assert_eq!(
            format_utc(1708550844.0884337),
            "Wed, 21 Feb 2024 21:27:24 +0000"
        );
        assert_eq!(format_utc(0.0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(format_utc(951_782_400.0), "Tue, 29 Feb 2000 00:00:00 +0000");
    }
}
