//! Calendar dates as days since 1970-01-01 (proleptic Gregorian, Howard Hinnant's
//! days-from-civil algorithm), for shadow's date fields and Google's key expiry times.

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

#[cfg(test)]
mod tests {
    use super::days;

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
}
