//! The clocks status records: seconds since boot (CLOCK_BOOTTIME, suspend included: cloud-init's
//! stage times) and since the epoch. One leaf module, so every stage and the runner read them
//! the same way.

/// Seconds since boot.
pub fn boot_seconds() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Seconds since the epoch (0 on a clock before it).
pub fn wall_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    #[test]
    fn boot_clock_advances() {
        let a = super::boot_seconds();
        assert!(a > 0.0);
        assert!(super::boot_seconds() >= a);
    }
}
