//! [`JobContext`]: what a job's work gets.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::cell::JobCell;
use super::id::JobId;
use crate::context::CancelToken;
use crate::error::ToolError;

/// What a job's work gets: its handle, its cancellation, and the means to report partial
/// output and count tool calls. Cheap to clone.
#[derive(Clone)]
pub struct JobContext {
    cell: Arc<JobCell>,
}

impl JobContext {
    pub(super) fn new(cell: Arc<JobCell>) -> Self {
        JobContext { cell }
    }

    /// The job's handle.
    pub fn id(&self) -> &JobId {
        self.cell.id()
    }

    /// The job's cancellation token; pass it (or a child) to the calls the job makes, so that
    /// cancelling the job cancels them.
    pub fn cancel_token(&self) -> &CancelToken {
        self.cell.cancel_token()
    }

    /// Whether the job was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cell.cancel_token().is_cancelled()
    }

    /// `Err(ToolError::cancelled())` once the job is cancelled, for use with `?`.
    pub fn check_cancelled(&self) -> Result<(), ToolError> {
        if self.is_cancelled() {
            Err(ToolError::cancelled())
        } else {
            Ok(())
        }
    }

    /// Completes once the job is cancelled; for `select!` in async work.
    pub async fn cancelled(&self) {
        self.cell.cancel_token().cancelled().await;
    }

    /// Replaces the job's partial output.
    pub fn set_partial(&self, partial: Value) {
        self.cell.update_partial(|current| *current = partial);
    }

    /// Changes the job's partial output in place.
    pub fn update_partial(&self, update: impl FnOnce(&mut Value)) {
        self.cell.update_partial(update);
    }

    /// Counts one tool call made by the job; returns the count so far.
    pub fn count_tool_call(&self) -> u64 {
        self.cell.count_tool_call()
    }

    /// How long the job has been running.
    pub fn elapsed(&self) -> Duration {
        self.cell.elapsed()
    }
}

impl fmt::Debug for JobContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobContext")
            .field("id", self.cell.id())
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
