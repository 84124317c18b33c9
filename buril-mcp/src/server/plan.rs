//! How a `tools/call` is answered, decided once from the request: the tool it names and whether
//! its client can follow a task. The handler (`call.rs`) then answers the call the plan's way,
//! one small function a plan; the fast paths (`fast_path.rs`) take a call only when its plan is
//! [`CallPlan::Plain`].
//!
//! | the tool | a client that follows tasks | one that does not |
//! | --- | --- | --- |
//! | not a task tool (or no such tool: admission answers) | `Plain` | `Plain` |
//! | `task` (optional) | `Task` | `Plain`: the call waits for the work |
//! | `task = "required"` | `Task` | `Refused` (`-32021`, naming the extension); `Plain` when the tool is disabled, so that it answers as unknown |
//! | `task = "handle"` | `Task` | `Handle`: the task's handle is the call's answer |
//! | `task = "deferred"` | `Deferred` | `Plain` |

use super::state::ServerState;
use buril_core::TaskSupport;

/// How a `tools/call` is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallPlan {
    /// Run now; the call's result when it ends (or an `input_required` round).
    Plain,
    /// A task the client follows (MCP's tasks extension): its `CreateTaskResult` at once.
    Task,
    /// A task the client cannot follow: its handle at once, as the call's result, to follow
    /// with the `task_*` tools.
    Handle,
    /// Refused: the tool is always a task, and the client cannot follow one.
    Refused,
    /// A plain call until the tool starts its task (`Context::start_task`), then a task the
    /// client follows.
    Deferred,
}

impl CallPlan {
    /// The plan of a call of `name` from a client that follows tasks or not.
    pub(crate) fn of(state: &ServerState, name: &str, follows_tasks: bool) -> CallPlan {
        let Some(found) = state.registry.lookup(name) else {
            return CallPlan::Plain;
        };
        match found.tool.meta().task {
            TaskSupport::Never => CallPlan::Plain,
            TaskSupport::Deferred if follows_tasks => CallPlan::Deferred,
            TaskSupport::Deferred => CallPlan::Plain,
            _ if follows_tasks => CallPlan::Task,
            TaskSupport::Handle => CallPlan::Handle,
            TaskSupport::Required if state.dispatcher.allows(&found.tool) => CallPlan::Refused,
            _ => CallPlan::Plain,
        }
    }
}
