//! How tasks are kept and run: TTL, poll interval, lease, clock skew, check interval.

use std::time::Duration;

/// How long tasks are kept, how often callers should poll, and how runners prove they are
/// alive.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskSettings {
    /// How long a task is kept after it ends (its TTL): 1 hour.
    pub ttl: Duration,
    /// How often a caller should poll (MCP's `pollIntervalMs`): 500 ms.
    pub poll_interval: Duration,
    /// How long a runner's word that it still runs a task holds (its lease): 15 s. A runner
    /// renews it well before it runs out; a task whose lease ran out (and [`skew`](Self::skew)
    /// after) is failed by the next caller that reads it, so that no task of a dead process
    /// stays `working` for ever.
    pub lease: Duration,
    /// How far apart two processes' clocks may be: 5 s. Leases are written on one machine's
    /// clock and read on another's.
    pub skew: Duration,
    /// How often a runner looks at its tasks in the store for cancellations and answers, where
    /// the store does not announce them (memory, files): 250 ms. A store that announces them
    /// (Redis) is read at a third of the lease, at most every 2 s, and at least this often.
    pub check_interval: Duration,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            ttl: Duration::from_secs(60 * 60),
            poll_interval: Duration::from_millis(500),
            lease: Duration::from_secs(15),
            skew: Duration::from_secs(5),
            check_interval: Duration::from_millis(250),
        }
    }
}

impl TaskSettings {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the TTL.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets the poll interval callers are told.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets the lease.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Sets the clock skew allowed between processes.
    pub fn skew(mut self, skew: Duration) -> Self {
        self.skew = skew;
        self
    }

    /// Sets how often runners look at their tasks where the store does not announce changes.
    pub fn check_interval(mut self, interval: Duration) -> Self {
        self.check_interval = interval;
        self
    }
}

/// `duration` in whole milliseconds (the wire's and the store's unit).
pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
