//! The few host facts `ember status` needs beside the clocks (`crate::clock`): whether a pid is
//! alive, and cloud-init's `last_update` date format. Kept apart so the derivation stays pure.

use std::path::Path;

/// Whether `<proc>/<pid>` exists. The proc directory is a parameter so tests can use a fake
/// one; the runner passes the real `/proc` (not the target's: it is the running system).
pub fn pid_alive(proc: &Path, pid: u32) -> bool {
    proc.join(pid.to_string()).exists()
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
    fn formats_like_cloud_init() {
        // The date in cloud-init's own status documentation example.
        assert_eq!(
            format_utc(1708550844.0884337),
            "Wed, 21 Feb 2024 21:27:24 +0000"
        );
        assert_eq!(format_utc(0.0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(format_utc(951_782_400.0), "Tue, 29 Feb 2000 00:00:00 +0000");
    }

    #[test]
    fn own_pid_is_alive() {
        assert!(pid_alive(Path::new("/proc"), std::process::id()));
        assert!(!pid_alive(
            Path::new("/nonexistent-proc"),
            std::process::id()
        ));
    }
}
