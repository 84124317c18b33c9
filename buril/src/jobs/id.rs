//! Job handles: the [`JobId`] type and how new handles are made.

use std::borrow::Borrow;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A job's handle, such as `job_8f4a2c1`.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
#[schemars(transparent)]
pub struct JobId(String);

impl JobId {
    /// A handle with the given text (for looking a job up by a handle read from elsewhere).
    pub fn new(text: impl Into<String>) -> Self {
        JobId(text.into())
    }

    /// The handle's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A handle never made before in this process: `prefix`, `_` and seven hex digits.
    pub(super) fn next(prefix: &str) -> Self {
        let n = NEXT_JOB.fetch_add(1, Ordering::Relaxed);
        JobId(format!("{prefix}_{:07x}", scramble(n)))
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for JobId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for JobId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<JobId> for String {
    fn from(id: JobId) -> Self {
        id.0
    }
}

/// The process-wide counter behind every handle.
static NEXT_JOB: AtomicU64 = AtomicU64::new(1);

/// A bijection of 28-bit numbers, so that consecutive counters give unrelated-looking handles.
fn scramble(n: u64) -> u64 {
    const MASK: u64 = (1 << 28) - 1;
    let mut x = n & MASK;
    x = x.wrapping_mul(0x09E3_779B) & MASK;
    x ^= x >> 14;
    x = x.wrapping_mul(0x0B5A_D4ED) & MASK;
    x ^= x >> 13;
    x
}
