//! [`JobStatus`]: where a job is.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a job is: still running, or how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// The job is still working.
    Running,
    /// The job finished its work.
    Done,
    /// The job failed: a step it depended on returned an error.
    Errored,
    /// The job could not go on: something it needs (a tool, a resource) is missing.
    Blocked,
    /// The job stopped because it was cancelled.
    Cancelled,
}

impl JobStatus {
    /// The wire name: `running`, `done`, `errored`, `blocked` or `cancelled`.
    pub const fn as_str(self) -> &'static str {
        match self {
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Errored => "errored",
            JobStatus::Blocked => "blocked",
            JobStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the job has ended (any status but `running`).
    pub const fn is_finished(self) -> bool {
        !matches!(self, JobStatus::Running)
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
