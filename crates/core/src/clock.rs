//! The clocks status records: seconds since boot (CLOCK_BOOTTIME, suspend included: cloud-init's
//! stage times) and since the epoch. One leaf module, so every stage and the runner read them
//! the same way.

/// Seconds since boot.
pub fn boot_seconds() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    seconds(t.tv_sec as u64 * 1_000_000 + t.tv_nsec as u64 / 1000)
}

/// Seconds since the epoch (0 on a clock before it).
pub fn wall_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| seconds(d.as_micros() as u64))
}

/// Whole microseconds as seconds. Nanoseconds since the epoch need 19 digits, and serde_json
/// reads such a number back one bit off about one time in eight, so a status saved and read
/// again would differ; microseconds stay under 2^53 and read back exactly.
fn seconds(micros: u64) -> f64 {
    micros as f64 / 1e6
}

#[cfg(test)]
mod tests {
    #[test]
    fn boot_clock_advances() {
        let a = super::boot_seconds();
        assert!(a > 0.0);
        assert!(super::boot_seconds() >= a);
    }

    #[test]
    fn times_read_back_exactly_from_json() {
        let now = super::wall_seconds();
        let mut times = vec![now, super::boot_seconds()];
        // Microseconds around now, far enough apart to cross many binary exponents' digits.
        let base = (now * 1e6) as u64;
        times.extend((0..20_000u64).map(|i| super::seconds(base + i * 7_919)));
        for t in times {
            let text = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<f64>(&text).unwrap(), t, "{text}");
        }
    }
}
