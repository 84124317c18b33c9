//! [`JobSnapshot`]: a job as it is at one moment, as polls and waits answer it.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::id::JobId;
use super::status::JobStatus;

/// A job as it is at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct JobSnapshot {
    /// The handle.
    pub id: JobId,
    /// What the job is, as its starter named it.
    pub label: String,
    /// Running, or how it ended.
    pub status: JobStatus,
    /// The partial output the job last reported (`null` when none).
    pub partial: Value,
    /// What the job produced, once it ended (`null` until then).
    pub output: Value,
    /// Why the job did not finish its work, when it ended otherwise.
    pub error: Option<String>,
    /// How long the job ran, or has been running, in milliseconds.
    #[serde(rename = "duration_ms", serialize_with = "as_millis")]
    #[schemars(with = "u64")]
    pub duration: Duration,
    /// How many tool calls the job made.
    pub tool_calls: u64,
    /// Whether cancellation was asked for (the job may still be stopping).
    pub cancel_requested: bool,
}

fn as_millis<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}
