//! The wall clock tasks are timed by: milliseconds since the Unix epoch, shared by every
//! process that uses a store (leases and TTLs compare times written by different machines, so
//! they allow for skew: see [`TaskSettings::skew`](super::TaskSettings::skew)).

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// `ms` as an ISO 8601 time in UTC, to the millisecond (`2026-12-01T16:18:41.123Z`).
pub fn iso(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_iso_8601_in_utc() {
        assert_eq!(super::iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(super::iso(1_796_141_921_123), "2026-12-01T16:18:41.123Z");
    }
}
