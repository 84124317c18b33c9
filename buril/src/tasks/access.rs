//! The tasks a call's front end keeps, as the call sees them: what the `job_*` tools
//! ([`job_tools!`](crate::job_tools)) read, for callers that cannot follow tasks themselves
//! (an MCP client without the tasks extension, given a `task = "handle"` tool's handle).

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use super::clock::now_ms;
use super::error::TaskError;
use super::record::TaskSummary;
use super::service::Tasks;
use crate::context::Context;
use crate::dispatch::CallOptions;
use crate::error::ToolError;

/// A front end's tasks, and who the caller is to them.
pub(crate) struct TaskAccess {
    tasks: Tasks,
    owner: Option<String>,
}

impl CallOptions {
    /// Lets the call's tools reach `tasks` as `owner` (the session or principal calling): what
    /// the `job_*` tools read. The MCP server and the command line give every call theirs.
    pub fn follow_tasks(self, tasks: Tasks, owner: Option<String>) -> Self {
        self.with_task_access(task_access(tasks, owner))
    }

    /// [`follow_tasks`](Self::follow_tasks) with an access made once ([`task_access`]), so
    /// that a front end giving every call the same one allocates nothing per call.
    pub(crate) fn with_task_access(mut self, access: Arc<dyn Any + Send + Sync>) -> Self {
        self.tasks = Some(access);
        self
    }
}

/// `tasks` as `owner` sees them, for [`CallOptions::with_task_access`].
pub(crate) fn task_access(tasks: Tasks, owner: Option<String>) -> Arc<dyn Any + Send + Sync> {
    Arc::new(TaskAccess { tasks, owner })
}

fn access(ctx: &Context) -> Result<&TaskAccess, ToolError> {
    ctx.tasks_of_caller()
        .and_then(|tasks| tasks.downcast_ref::<TaskAccess>())
        .ok_or_else(|| {
            ToolError::runtime(format!(
                "`{}` reads tasks, and this caller keeps none (it runs no task tools)",
                ctx.tool_name()
            ))
        })
}

fn refused(error: TaskError) -> ToolError {
    match error {
        TaskError::Unknown(_) | TaskError::Expired(_) => ToolError::invalid(error.to_string()),
        TaskError::Store(_) => ToolError::runtime(error.to_string()),
    }
}

/// `job_get`.
pub async fn job_get(ctx: &Context, handle: &str) -> Result<TaskSummary, ToolError> {
    let access = access(ctx)?;
    let record = access
        .tasks
        .get(handle, access.owner.as_deref())
        .await
        .map_err(refused)?;
    Ok(record.summary(now_ms()))
}

/// `job_wait`: until the task ends or `timeout_seconds` (at most 300; default 30) pass.
pub async fn job_wait(
    ctx: &Context,
    handle: &str,
    timeout_seconds: Option<f64>,
) -> Result<TaskSummary, ToolError> {
    let access = access(ctx)?;
    let seconds = timeout_seconds.unwrap_or(30.0).clamp(0.0, 300.0);
    let wait = access.tasks.wait(
        handle,
        access.owner.as_deref(),
        Some(Duration::from_secs_f64(seconds)),
    );
    let record = tokio::select! {
        record = wait => record.map_err(refused)?,
        () = ctx.cancel_token().cancelled() => return Err(ToolError::cancelled()),
    };
    Ok(record.summary(now_ms()))
}

/// `job_cancel`.
pub async fn job_cancel(ctx: &Context, handle: &str) -> Result<TaskSummary, ToolError> {
    let access = access(ctx)?;
    let record = access
        .tasks
        .cancel(handle, access.owner.as_deref())
        .await
        .map_err(refused)?;
    Ok(record.summary(now_ms()))
}

/// Registers the `job_get`, `job_wait` and `job_cancel` tools in the crate that invokes it:
/// how a caller that cannot follow tasks itself (an MCP client without the tasks extension)
/// follows the task whose handle a `#[tool(task = "handle")]` tool answered with, or a task
/// of `tools call --detach`.
///
/// ```
/// buril::job_tools!();
///
/// assert!(buril::registry().get("job_wait").is_some());
/// ```
#[macro_export]
macro_rules! job_tools {
    () => {
        /// Reads a task by its handle (`task_…`, as a tool that runs as a task answered):
        /// its status (`working`, `input_required`, `completed`, `failed`, `cancelled`),
        /// progress, the questions it waits on, and once it ended its envelope.
        #[$crate::tool(crate = $crate, read_only, idempotent, off_thread, title = "Get a task")]
        async fn job_get(
            /// The task's handle.
            handle: ::std::string::String,
            ctx: &$crate::Context,
        ) -> ::core::result::Result<$crate::tasks::TaskSummary, $crate::ToolError> {
            $crate::tasks::job_get(ctx, &handle).await
        }

        /// Waits for a task to end, or `timeout_seconds` to pass (30 by default, at most
        /// 300), and answers it as `job_get` does.
        #[$crate::tool(crate = $crate, read_only, idempotent, off_thread, title = "Wait for a task")]
        async fn job_wait(
            /// The task's handle.
            handle: ::std::string::String,
            /// How long to wait, in seconds.
            timeout_seconds: ::core::option::Option<f64>,
            ctx: &$crate::Context,
        ) -> ::core::result::Result<$crate::tasks::TaskSummary, $crate::ToolError> {
            $crate::tasks::job_wait(ctx, &handle, timeout_seconds).await
        }

        /// Cancels a task: its work sees the cancellation and stops; it then ends
        /// `cancelled`. Cancelling a task that ended changes nothing.
        #[$crate::tool(crate = $crate, idempotent, off_thread, title = "Cancel a task")]
        async fn job_cancel(
            /// The task's handle.
            handle: ::std::string::String,
            ctx: &$crate::Context,
        ) -> ::core::result::Result<$crate::tasks::TaskSummary, $crate::ToolError> {
            $crate::tasks::job_cancel(ctx, &handle).await
        }
    };
}
