//! The tasks of the front end that called, as the tools that follow tasks by handle reach them
//! (`task_get`, `task_wait`, `task_cancel`). A trait, so that a call's context holds them
//! without naming the tasks module, whose tasks' calls hold contexts.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::tasks::error::TaskError;
use crate::tasks::record::TaskRecord;

/// What a question about one task answers: the task as the caller may see it.
pub type TaskAnswer<'a> = Pin<Box<dyn Future<Output = Result<TaskRecord, TaskError>> + Send + 'a>>;

/// The tasks a call's front end keeps, as its caller sees them (only the tasks it may see).
pub trait CallerTasks: Send + Sync {
    /// The task with handle `handle` now.
    fn get<'a>(&'a self, handle: &'a str) -> TaskAnswer<'a>;

    /// The task once it ended, or as it is after `timeout`.
    fn wait<'a>(&'a self, handle: &'a str, timeout: Duration) -> TaskAnswer<'a>;

    /// Asks for the task to be cancelled; the task right after.
    fn cancel<'a>(&'a self, handle: &'a str) -> TaskAnswer<'a>;
}
