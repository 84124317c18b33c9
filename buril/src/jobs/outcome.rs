//! [`JobOutcome`]: how a job ended, from its work's result, a tool result or its task's end.

use serde_json::Value;

use super::status::JobStatus;
use crate::error::{ErrorKind, ToolError};

/// How a job ended: what its work returns.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JobOutcome {
    /// The final status; a work that returns [`JobStatus::Running`] is taken as done.
    pub status: JobStatus,
    /// What the job produced (`null` when nothing).
    pub output: Value,
    /// Why it did not finish its work, when it did not.
    pub error: Option<String>,
}

impl JobOutcome {
    /// The work finished and produced `output`.
    pub fn done(output: Value) -> Self {
        JobOutcome {
            status: JobStatus::Done,
            output,
            error: None,
        }
    }

    /// The work failed with `error`.
    pub fn errored(error: impl Into<String>) -> Self {
        JobOutcome {
            status: JobStatus::Errored,
            output: Value::Null,
            error: Some(error.into()),
        }
    }

    /// The work could not go on: `reason` says what is missing.
    pub fn blocked(reason: impl Into<String>) -> Self {
        JobOutcome {
            status: JobStatus::Blocked,
            output: Value::Null,
            error: Some(reason.into()),
        }
    }

    /// The work stopped because the job was cancelled.
    pub fn cancelled() -> Self {
        JobOutcome {
            status: JobStatus::Cancelled,
            output: Value::Null,
            error: Some("the job was cancelled".to_owned()),
        }
    }

    /// The same outcome with `output` (for a failed job, what it produced before failing).
    pub fn with_output(mut self, output: Value) -> Self {
        self.output = output;
        self
    }
}

/// A tool result as a job outcome: `Ok` is done; a `cancelled` error is cancelled; a
/// `not_found` or `disabled` error (a tool the work needs is missing) is blocked; any other
/// error is errored, with the error's message.
impl From<Result<Value, ToolError>> for JobOutcome {
    fn from(result: Result<Value, ToolError>) -> Self {
        match result {
            Ok(output) => JobOutcome::done(output),
            Err(error) => match error.kind() {
                ErrorKind::Cancelled => JobOutcome {
                    error: Some(error.message().to_owned()),
                    ..JobOutcome::cancelled()
                },
                ErrorKind::NotFound | ErrorKind::Disabled => JobOutcome::blocked(error.message()),
                _ => JobOutcome::errored(error.message()),
            },
        }
    }
}

/// The outcome of a job's task, panics included.
pub(super) fn outcome_of_task(joined: Result<JobOutcome, tokio::task::JoinError>) -> JobOutcome {
    match joined {
        Ok(outcome) => outcome,
        Err(error) if error.is_panic() => {
            let payload = error.into_panic();
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            JobOutcome::errored(format!("the job panicked: {detail}"))
        }
        Err(_) => JobOutcome {
            error: Some("the job was stopped before it finished".to_owned()),
            ..JobOutcome::cancelled()
        },
    }
}
