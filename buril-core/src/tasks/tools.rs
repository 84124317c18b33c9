//! The `task_get`, `task_wait` and `task_cancel` tools ([`task_tools!`](crate::task_tools)):
//! how a caller that cannot follow tasks itself (an MCP client without the tasks extension,
//! given a `task = "handle"` tool's handle) follows a task, through the tasks its front end
//! keeps.

use std::time::Duration;

use super::clock::now_ms;
use super::error::TaskError;
use super::record::{TaskRecord, TaskSummary};
use crate::context::Context;
use crate::context::tasks::CallerTasks;
use crate::error::ToolError;

fn access(ctx: &Context) -> Result<&dyn CallerTasks, ToolError> {
    ctx.tasks_of_caller().ok_or_else(|| {
        ToolError::runtime(format!(
            "`{}` reads tasks, and this caller keeps none (it runs no task tools)",
            ctx.tool_name()
        ))
    })
}

fn answered(record: Result<TaskRecord, TaskError>) -> Result<TaskSummary, ToolError> {
    match record {
        Ok(record) => Ok(record.summary(now_ms())),
        Err(error @ (TaskError::Unknown(_) | TaskError::Expired(_))) => {
            Err(ToolError::invalid(error.to_string()))
        }
        Err(error @ TaskError::Store(_)) => Err(ToolError::runtime(error.to_string())),
    }
}

/// `task_get`.
#[doc(hidden)]
pub async fn task_get(ctx: &Context, handle: &str) -> Result<TaskSummary, ToolError> {
    answered(access(ctx)?.get(handle).await)
}

/// `task_wait`: until the task ends or `timeout_seconds` (at most 300; default 30) pass.
#[doc(hidden)]
pub async fn task_wait(
    ctx: &Context,
    handle: &str,
    timeout_seconds: Option<f64>,
) -> Result<TaskSummary, ToolError> {
    let access = access(ctx)?;
    let seconds = timeout_seconds.unwrap_or(30.0).clamp(0.0, 300.0);
    let wait = access.wait(handle, Duration::from_secs_f64(seconds));
    tokio::select! {
        record = wait => answered(record),
        () = ctx.cancel_token().cancelled() => Err(ToolError::cancelled()),
    }
}

/// `task_cancel`.
#[doc(hidden)]
pub async fn task_cancel(ctx: &Context, handle: &str) -> Result<TaskSummary, ToolError> {
    answered(access(ctx)?.cancel(handle).await)
}

/// Registers the `task_get`, `task_wait` and `task_cancel` tools in the crate that invokes it:
/// how a caller
/// that cannot follow tasks itself (an MCP client without the tasks extension) follows the
/// task whose handle a `#[tool(task = "handle")]` tool answered with, or a task of
/// `tools call --detach`.
///
/// ```
/// buril::task_tools!();
///
/// assert!(buril::registry().get("task_wait").is_some());
/// ```
#[macro_export]
macro_rules! task_tools {
    () => {
        /// Reads a task by its handle (`task_…`, as a tool that runs as a task answered):
        /// its status (`working`, `input_required`, `completed`, `failed`, `cancelled`),
        /// progress, the questions it waits on, and once it ended its envelope.
        #[$crate::tool(
                                                                    crate = $crate,
                                                                    read_only,
                                                                    idempotent,
                                                                    off_thread,
                                                                    title = "Get a task"
                                                                )]
        async fn task_get(
            /// The task's handle.
            handle: ::std::string::String,
            ctx: &$crate::Context,
        ) -> ::core::result::Result<$crate::tasks::TaskSummary, $crate::ToolError> {
            $crate::tasks::task_get(ctx, &handle).await
        }

        /// Waits for a task to end, or `timeout_seconds` to pass (30 by default, at most
        /// 300), and answers it as `task_get` does.
        #[$crate::tool(
                                                                    crate = $crate,
                                                                    read_only,
                                                                    idempotent,
                                                                    off_thread,
                                                                    title = "Wait for a task"
                                                                )]
        async fn task_wait(
            /// The task's handle.
            handle: ::std::string::String,
            /// How long to wait, in seconds.
            timeout_seconds: ::core::option::Option<f64>,
            ctx: &$crate::Context,
        ) -> ::core::result::Result<$crate::tasks::TaskSummary, $crate::ToolError> {
            $crate::tasks::task_wait(ctx, &handle, timeout_seconds).await
        }

        /// Cancels a task: its work sees the cancellation and stops; it then ends
        /// `cancelled`. Cancelling a task that ended changes nothing.
        #[$crate::tool(
                                                                    crate = $crate,
                                                                    idempotent,
                                                                    off_thread,
                                                                    title = "Cancel a task"
                                                                )]
        async fn task_cancel(
            /// The task's handle.
            handle: ::std::string::String,
            ctx: &$crate::Context,
        ) -> ::core::result::Result<$crate::tasks::TaskSummary, $crate::ToolError> {
            $crate::tasks::task_cancel(ctx, &handle).await
        }
    };
}
