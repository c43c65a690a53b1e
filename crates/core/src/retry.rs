//! The one retry policy for requests that are tried again (metadata services, the wireserver,
//! seeds, phone_home): a pause that starts at `first` and doubles up to `max`, a number of
//! attempts, and a time after which no attempt starts; and the one wording of why trying
//! stopped. Plain std, so both binaries link it.

use std::fmt;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// The pause after the first failed attempt; it doubles after each one, up to `max`.
    pub first: Duration,
    pub max: Duration,
    /// Attempts in all, counting those `Retry::failed` records (an answer worth another try);
    /// `None`: only the deadline ends them.
    pub attempts: Option<u32>,
    /// No attempt starts after this, and no pause reaches past it.
    pub deadline: Instant,
}

impl Policy {
    /// Metadata services, the wireserver and seeds: 250 ms, doubling to 2 s.
    pub fn metadata(attempts: Option<u32>, deadline: Instant) -> Policy {
        Policy {
            first: crate::bounds::RETRY_FIRST_PAUSE,
            max: crate::bounds::RETRY_MAX_PAUSE,
            attempts,
            deadline,
        }
    }
}

/// Why trying stopped: the attempts were used up or the deadline passed, with the last
/// attempt's failure (refused, a 503, …), so the diagnostic names what kept failing.
#[derive(Debug, Clone, PartialEq)]
pub struct Stopped {
    pub deadline: bool,
    /// Attempts made, and how many of them got an answer worth another try (`failed`).
    pub attempts: u32,
    pub answered: u32,
    pub last: Option<String>,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let n = self.attempts;
        let s = if n == 1 { "" } else { "s" };
        match (&self.last, self.deadline) {
            (Some(why), true) => write!(f, "deadline passed after {n} attempt{s}; the last: {why}"),
            (None, true) => write!(f, "deadline passed after {n} attempt{s}"),
            (Some(why), false) => write!(f, "{why}, after {n} attempt{s}"),
            (None, false) => write!(f, "no answer after {n} attempt{s}"),
        }
    }
}

/// The state of one request's attempts under a `Policy`.
pub struct Retry {
    policy: Policy,
    pause: Duration,
    attempts: u32,
    answered: u32,
    last: Option<String>,
}

impl Retry {
    pub fn new(policy: Policy) -> Retry {
        Retry {
            pause: policy.first,
            policy,
            attempts: 0,
            answered: 0,
            last: None,
        }
    }

    /// An attempt got an answer worth another try (a 5xx, an unusable body): it counts
    /// against the attempts. `Ok` after the pause when another attempt may start.
    pub fn failed(&mut self, why: impl Into<String>) -> Result<(), Stopped> {
        self.answered += 1;
        self.record(why.into());
        self.again_unless(self.answered)
    }

    /// An attempt got no answer (refused, timed out): the service may still be starting, so
    /// only the deadline ends these, unless the policy counts every attempt.
    pub fn unanswered(&mut self, why: impl Into<String>) -> Result<(), Stopped> {
        self.record(why.into());
        self.pause_or_stop()
    }

    /// Every attempt counts, answered or not (the wireserver, one metadata path).
    pub fn any_failure(&mut self, why: impl Into<String>) -> Result<(), Stopped> {
        self.record(why.into());
        self.again_unless(self.attempts)
    }

    /// The deadline passed during an attempt (the fetcher gave up): the stop, naming the last
    /// failure before it.
    pub fn deadline_passed(&mut self) -> Stopped {
        self.attempts += 1;
        self.stopped(true)
    }

    fn record(&mut self, why: String) {
        self.attempts += 1;
        self.last = Some(why);
    }

    /// Stops once `counted` reaches the policy's attempts, else pauses.
    fn again_unless(&mut self, counted: u32) -> Result<(), Stopped> {
        if self.policy.attempts.is_some_and(|max| counted >= max) {
            return Err(self.stopped(false));
        }
        self.pause_or_stop()
    }

    fn pause_or_stop(&mut self) -> Result<(), Stopped> {
        let left = self
            .policy
            .deadline
            .saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.stopped(true));
        }
        std::thread::sleep(self.pause.min(left));
        self.pause = (self.pause * 2).min(self.policy.max);
        Ok(())
    }

    fn stopped(&self, deadline: bool) -> Stopped {
        Stopped {
            deadline,
            attempts: self.attempts,
            answered: self.answered,
            last: self.last.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick(attempts: Option<u32>, deadline: Instant) -> Policy {
        Policy {
            first: Duration::from_millis(1),
            max: Duration::from_millis(2),
            attempts,
            deadline,
        }
    }

    #[test]
    fn counted_failures_end_at_the_attempts_unanswered_ones_at_the_deadline() {
        let far = Instant::now() + Duration::from_secs(60);
        let mut r = Retry::new(quick(Some(3), far));
        assert!(r.failed("HTTP status 503").is_ok());
        assert!(r.unanswered("refused").is_ok());
        assert!(r.failed("HTTP status 502").is_ok());
        let stop = r.failed("HTTP status 500").unwrap_err();
        assert_eq!(stop.to_string(), "HTTP status 500, after 4 attempts");
        assert_eq!((stop.deadline, stop.answered), (false, 3));

        let mut r = Retry::new(quick(Some(2), far));
        assert!(r.any_failure("refused").is_ok());
        let stop = r.any_failure("refused").unwrap_err();
        assert_eq!(stop.to_string(), "refused, after 2 attempts");

        let mut r = Retry::new(quick(Some(1), far));
        for _ in 0..5 {
            assert!(r.unanswered("refused").is_ok());
        }
        assert_eq!(r.deadline_passed().attempts, 6);
    }

    #[test]
    fn the_deadline_names_the_last_failure() {
        let past = Instant::now();
        let mut r = Retry::new(quick(None, past));
        let stop = r.unanswered("connection refused").unwrap_err();
        assert!(stop.deadline);
        assert_eq!(
            stop.to_string(),
            "deadline passed after 1 attempt; the last: connection refused"
        );
        let mut r = Retry::new(quick(None, past));
        assert_eq!(
            r.deadline_passed().to_string(),
            "deadline passed after 1 attempt"
        );
    }

    #[test]
    fn pauses_double_up_to_the_max() {
        let mut p = Policy::metadata(None, Instant::now() + Duration::from_secs(60));
        p.first = Duration::from_millis(1);
        p.max = Duration::from_millis(5);
        let mut r = Retry::new(p);
        let mut seen = Vec::new();
        for _ in 0..4 {
            r.unanswered("x").unwrap();
            seen.push(r.pause.as_millis());
        }
        assert_eq!(seen, [2, 4, 5, 5]);
    }
}
