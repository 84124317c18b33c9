//! MCP's tasks extension (`io.modelcontextprotocol/tasks`, the 2026-07-28 revision) over
//! [`Tasks`]: a task tool's call becomes a task for a client that declared the extension, and
//! `tasks/get`, `tasks/update` and `tasks/cancel` follow it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, ClientCapabilities, CreateTaskResult, DetailedTask, GetTaskResult,
    InputRequests, JsonObject, Task, TaskPayload, TaskStatus,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use super::http_sessions::SESSION_HEADER;
use super::results::call_result;
use super::state::ServerState;
use buril_core::Outcome;
use buril_core::ToolDescriptor;
use buril_core::context::{Asked, Context, InputKind, InputRequest, InputSource};
use buril_core::tasks::{TaskEnd, TaskError, TaskRecord, TaskStart, TaskState, Tasks, iso, now_ms};

/// Who may see the tasks a request starts: its principal when the server authorizes callers
/// (every request of that principal, in any session), else the HTTP session it came in
/// (`Mcp-Session-Id`), when there is one. Without either (stdio, whose one client is the
/// process's; stateless HTTP), a task is anyone's who holds its handle, which is 128 random
/// bits.
pub(crate) fn owner_of(context: &RequestContext<RoleServer>) -> Option<String> {
    let parts = context.extensions.get::<hyper::http::request::Parts>()?;
    if let Some(principal) = parts.extensions.get::<Arc<buril_core::Principal>>() {
        return Some(format!(
            "principal:{}",
            super::auth::principal_key(principal)
        ));
    }
    let session = parts.headers.get(SESSION_HEADER)?.to_str().ok()?;
    Some(format!("session:{session}"))
}

/// The error for a call of a tool that is always a task from a client that cannot follow one.
pub(crate) fn tasks_required() -> ErrorData {
    ErrorData::missing_required_client_capability(
        ClientCapabilities::builder().enable_tasks().build(),
    )
}

/// How a task's call ended, in the store's terms, with its `CallToolResult`.
pub(crate) fn end_of(state: &ServerState, tool: &ToolDescriptor, outcome: Outcome) -> TaskEnd {
    TaskEnd::from_outcome(outcome, |outcome| {
        serde_json::to_value(call_result(state, tool, outcome)).ok()
    })
}

/// Starts the admitted call as a task and answers its `CreateTaskResult`.
pub(crate) async fn launch(
    state: &Arc<ServerState>,
    tasks: &Tasks,
    start: TaskStart,
    tool: buril_core::ToolRef,
    call: impl Future<Output = Outcome> + Send + 'static,
    owner: Option<String>,
) -> Result<CallToolResponse, ErrorData> {
    let ran_by = Arc::clone(state);
    let name = tool.static_name();
    let work = async move { end_of(&ran_by, &tool, call.await) };
    let record = tasks
        .launch(start, name, owner, work)
        .await
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
    Ok(CallToolResponse::Task(CreateTaskResult::new(task_of(
        &record,
    ))))
}

/// The task's base fields, as MCP writes them.
fn task_of(record: &TaskRecord) -> Task {
    let now = now_ms();
    let status = match record.status {
        TaskState::Working => TaskStatus::Working,
        TaskState::InputRequired => TaskStatus::InputRequired,
        TaskState::Completed => TaskStatus::Completed,
        TaskState::Failed => TaskStatus::Failed,
        TaskState::Cancelled => TaskStatus::Cancelled,
        // A state a newer replica sharing the store wrote: still running, as far as this one
        // can tell.
        _ => TaskStatus::Working,
    };
    let mut task = Task::new(
        record.id.clone(),
        status,
        iso(record.created_ms),
        iso(record.updated_ms),
    )
    .with_ttl_ms(record.ttl_from_creation_ms(now))
    .with_poll_interval_ms(record.poll_interval_ms);
    let message = record.message.clone().or_else(|| {
        record
            .progress
            .as_ref()
            .and_then(|progress| progress.get("message"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    if let Some(message) = message {
        task = task.with_status_message(message);
    }
    task
}

/// `tasks/get`'s answer: the task with what its status carries (its questions, its result,
/// its error).
pub(crate) fn detailed(record: &TaskRecord) -> GetTaskResult {
    let task = task_of(record);
    let object = |value: Option<&Value>| -> JsonObject {
        match value {
            Some(Value::Object(object)) => object.clone(),
            _ => JsonObject::new(),
        }
    };
    let payload = match record.status {
        TaskState::Working => TaskPayload::Working,
        TaskState::Cancelled => TaskPayload::Cancelled,
        TaskState::InputRequired => {
            let input_requests: InputRequests = record
                .input_requests
                .iter()
                .filter_map(|(key, request)| {
                    serde_json::from_value(request.clone())
                        .ok()
                        .map(|request| (key.clone(), request))
                })
                .collect();
            TaskPayload::InputRequired { input_requests }
        }
        TaskState::Completed => TaskPayload::Completed {
            result: match &record.result {
                Some(result) => object(Some(result)),
                // Run by a front end that is not an MCP server (a detached CLI call): the
                // envelope as the text of the result.
                None => {
                    let envelope = record.envelope.clone().unwrap_or(Value::Null);
                    let failed = envelope.get("ok") == Some(&Value::Bool(false));
                    let text = serde_json::to_string(&envelope).unwrap_or_default();
                    object(Some(&json!({
                        "content": [{"type": "text", "text": text}],
                        "isError": failed,
                    })))
                }
            },
        },
        TaskState::Failed => TaskPayload::Failed {
            error: object(record.error.as_ref()),
        },
        _ => TaskPayload::Working,
    };
    GetTaskResult::new(DetailedTask::new(task, payload))
}

/// A task error as MCP has it: an unknown or expired handle is invalid params.
pub(crate) fn error_of(error: TaskError) -> ErrorData {
    match error {
        TaskError::Unknown(_) | TaskError::Expired(_) => {
            ErrorData::invalid_params(error.to_string(), None)
        }
        _ => ErrorData::internal_error(error.to_string(), None),
    }
}

/// The caller's answers, by key.
pub(crate) fn responses(input: rmcp::model::InputResponses) -> BTreeMap<String, Value> {
    input.into_iter().collect()
}

/// The questions of a deferred task tool's call (`task = "deferred"`): asked as the call's own
/// (in rounds, or of the client mid-call) until the call becomes a task, then put into the task.
pub(crate) struct Switch {
    before: Arc<dyn InputSource>,
    after: Arc<dyn InputSource>,
    started: AtomicBool,
}

impl Switch {
    pub(crate) fn new(before: Arc<dyn InputSource>, after: Arc<dyn InputSource>) -> Self {
        Switch {
            before,
            after,
            started: AtomicBool::new(false),
        }
    }

    /// Switches to the task's questions: whether this call did (the first one does).
    pub(crate) fn start(&self) -> bool {
        !self.started.swap(true, Ordering::AcqRel)
    }

    /// Whether the call is a task now.
    pub(crate) fn is_started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    fn current(&self) -> &Arc<dyn InputSource> {
        if self.is_started() {
            &self.after
        } else {
            &self.before
        }
    }
}

impl InputSource for Switch {
    fn supports(&self, kind: InputKind) -> bool {
        self.current().supports(kind)
    }

    fn ask(&self, ctx: &Context, key: &str, request: &InputRequest) -> Asked {
        self.current().ask(ctx, key, request)
    }

    fn ask_many(&self, ctx: &Context, requests: &[(&str, &InputRequest)]) -> Vec<Asked> {
        self.current().ask_many(ctx, requests)
    }

    fn why_not(&self, kind: InputKind) -> String {
        self.current().why_not(kind)
    }

    fn lacked(&self, kind: InputKind) {
        self.current().lacked(kind);
    }
}

/// The outcome of a call run as a Tokio task: what it answered, or (it was aborted) an error.
pub(crate) fn joined(result: Result<Outcome, tokio::task::JoinError>) -> Outcome {
    result.unwrap_or_else(|error| {
        Outcome::err(buril_core::ToolError::runtime(format!(
            "the call stopped before it answered: {error}"
        )))
    })
}

/// Gives the calls and tasks in flight at a transport's end up to `drain` to finish:
/// `others` (what else the transport waits for, its connections) and then every task run
/// here. Past `drain`, `on_overrun` runs (the HTTP server cancels its plain calls there) and
/// the tasks still running are handed back, failed with the reason, so that their followers
/// through any server sharing the store learn at once why they cannot finish. Whether
/// everything ended in time.
pub(crate) async fn settle(
    state: &ServerState,
    drain: std::time::Duration,
    others: impl std::future::Future<Output = ()>,
    on_overrun: impl FnOnce(),
) -> bool {
    let tasks = &state.tasks;
    let drained = async {
        others.await;
        while tasks.running_here() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    if tokio::time::timeout(drain, drained).await.is_ok() {
        return true;
    }
    state.say(&format!(
        "buril: calls and tasks still running {:.1} s after the server was asked to stop are \
         cancelled",
        drain.as_secs_f64()
    ));
    on_overrun();
    tasks
        .hand_back("the server running this task stopped before the task ended")
        .await;
    false
}
