//! A front end's tasks as one caller sees them: what the `task_*` tools
//! ([`task_tools!`](crate::task_tools)) read through the call's context.

use std::time::Duration;

use super::service::Tasks;
use crate::context::tasks::{CallerTasks, TaskAnswer};

/// A front end's tasks, and who the caller is to them (the session or principal calling; only
/// the tasks it owns, and those of no owner, are visible).
pub struct TaskAccess {
    tasks: Tasks,
    owner: Option<String>,
}

impl TaskAccess {
    /// `tasks` as `owner` sees them.
    pub fn new(tasks: Tasks, owner: Option<String>) -> Self {
        TaskAccess { tasks, owner }
    }
}

impl CallerTasks for TaskAccess {
    fn get<'a>(&'a self, handle: &'a str) -> TaskAnswer<'a> {
        Box::pin(self.tasks.get(handle, self.owner.as_deref()))
    }

    fn wait<'a>(&'a self, handle: &'a str, timeout: Duration) -> TaskAnswer<'a> {
        Box::pin(
            self.tasks
                .wait(handle, self.owner.as_deref(), Some(timeout)),
        )
    }

    fn cancel<'a>(&'a self, handle: &'a str) -> TaskAnswer<'a> {
        Box::pin(self.tasks.cancel(handle, self.owner.as_deref()))
    }
}
