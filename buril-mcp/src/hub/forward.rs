//! A call of an external tool: its input (validated here already) sent to the server under the
//! tool's own name, its questions asked of this call's caller, a task it becomes followed to
//! its end, its cancellation and timeout passed on, and its answer made the envelope's data.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelTaskParams,
    CancelledNotification, CancelledNotificationParam, ClientNotification, ClientRequest,
    GetTaskParams, InputResponses, RequestId, ServerResult, TaskPayload, UpdateTaskParams,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};
use serde_json::{Map, Value};

use super::client::Calls;
use buril_core::context::{Context, InputRequest};
use buril_core::provided::Args;
use buril_core::provided::BoxFuture;
use buril_core::provided::ToolHandler;
use buril_core::{ErrorKind, Problem, ToolError};

/// How many `input_required` rounds one call may take.
const MAX_ROUNDS: usize = 32;

/// How long the answer of the one call in flight is watched for before its task sleeps.
const WATCH: Duration = Duration::from_micros(150);

/// How often a task the server made of a call is polled.
const POLL: Duration = Duration::from_millis(100);

/// What the tools of one connection share: the peer while connected, the calls in flight, the
/// server's timeout.
pub(crate) struct Link {
    pub(crate) server: String,
    pub(crate) peer: RwLock<Option<Peer<RoleClient>>>,
    pub(crate) calls: Arc<Calls>,
    pub(crate) timeout: Option<Duration>,
    /// How many calls were sent to the server.
    pub(crate) forwarded: std::sync::atomic::AtomicU64,
    /// The runtime the connection runs on (the hub's), where a cancellation sent as a call
    /// ends goes: the caller's may end with the call.
    pub(crate) runtime: std::sync::OnceLock<tokio::runtime::Handle>,
}

impl Link {
    fn peer(&self) -> Option<Peer<RoleClient>> {
        self.peer.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The handler of one external tool.
pub(crate) struct Forward {
    pub(crate) link: Arc<Link>,
    /// The tool's name on the server.
    pub(crate) original: String,
    /// Whether the tool declared an output schema: its data is the `structuredContent`.
    pub(crate) structured: bool,
}

impl ToolHandler for Forward {
    fn call(&self, ctx: Context, args: Args) -> BoxFuture {
        let link = Arc::clone(&self.link);
        let original = self.original.clone();
        let structured = self.structured;
        Box::pin(async move {
            let result = forward(&link, original, args.into_map(), &ctx).await?;
            into_data(&link.server, result, structured)
        })
    }
}

pub(crate) async fn forward(
    link: &Link,
    original: String,
    arguments: Map<String, Value>,
    ctx: &Context,
) -> Result<CallToolResult, ToolError> {
    let Some(peer) = link.peer() else {
        return Err(ToolError::new(
            ErrorKind::Unavailable,
            format!("the external server `{}` is not connected", link.server),
        ));
    };
    link.forwarded
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let number = link.calls.begin(ctx);
    let _end = End(&link.calls, number);
    let work = rounds(link, &peer, number, original, arguments, ctx);
    let result = match link.timeout {
        None => work.await,
        Some(timeout) => match tokio::time::timeout(timeout, work).await {
            Ok(result) => result,
            Err(_) => Err(ToolError::new(
                ErrorKind::Timeout,
                format!(
                    "the external server `{}` did not answer within {:.1} s; the call was \
                     cancelled there",
                    link.server,
                    timeout.as_secs_f64()
                ),
            )),
        },
    };
    if result.is_ok() {
        // The reports the server sent before its answer reach the caller before the answer.
        link.calls.settle(number).await;
    }
    result
}

/// The `_meta` key of a forwarded call saying how long, in milliseconds, its caller waits.
pub(crate) const TIMEOUT_KEY: &str = "buril/timeout-ms";

/// How long, in whole milliseconds (at least 1), the caller of a call with `deadline` waits,
/// and this link's own `timeout`: the shorter, or none when neither is set.
fn time_left(deadline: Option<Instant>, timeout: Option<Duration>) -> Option<u64> {
    let left = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
    let shorter = match (left, timeout) {
        (Some(left), Some(timeout)) => left.min(timeout),
        (left, timeout) => left.or(timeout)?,
    };
    Some(
        u64::try_from(shorter.as_millis())
            .unwrap_or(u64::MAX)
            .max(1),
    )
}

/// Ends a call's registration however its future ends.
struct End<'a>(&'a Calls, u64);

impl Drop for End<'_> {
    fn drop(&mut self) {
        self.0.end(self.1);
    }
}

/// Sends the call, answering its `input_required` rounds through this call's caller, and
/// follows it when the server made it a task.
async fn rounds(
    link: &Link,
    peer: &Peer<RoleClient>,
    number: u64,
    original: String,
    arguments: Map<String, Value>,
    ctx: &Context,
) -> Result<CallToolResult, ToolError> {
    let mut params = CallToolRequestParams::new(original);
    params.arguments = Some(arguments);
    if ctx.logs_to_caller() {
        // Under 2026-07-28 a request says which log messages it wants (the caller's own level
        // is applied here, as to a linked tool's); under 2025-11-25 the session's level is set.
        let mut meta = rmcp::model::RequestMetaObject::new();
        #[allow(deprecated)]
        meta.set_log_level(rmcp::model::LoggingLevel::Debug);
        params.meta = Some(meta);
    }
    if let Some(left) = time_left(ctx.deadline(), link.timeout) {
        // The server may stop the work when no one waits for it any more (the editor's host
        // gives a call this long).
        params
            .meta
            .get_or_insert_with(rmcp::model::RequestMetaObject::new)
            .insert(TIMEOUT_KEY.to_owned(), Value::from(left));
    }
    for _ in 0..MAX_ROUNDS {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
        let handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(error) => {
                link.calls.lost.notify_one();
                return Err(lost(&link.server, &error.to_string()));
            }
        };
        link.calls.sent(number, handle.progress_token.clone());
        let mut guard = CancelOnDrop::new(link, peer, handle.id.clone());
        let mut rx = handle.rx;
        // The one call in flight is watched for a moment before its task sleeps: an answer
        // that comes soon then wakes nobody (a sleeping thread's wake-up is most of a quick
        // server's round trip). With other calls in flight the threads have work, and
        // watching would take their time.
        let watch = if link.calls.in_flight() == 1 {
            WATCH
        } else {
            Duration::ZERO
        };
        let watched = Instant::now();
        let early = loop {
            match rx.try_recv() {
                Ok(answer) => break Some(answer),
                Err(tokio::sync::oneshot::error::TryRecvError::Closed) => {
                    break Some(Err(rmcp::ServiceError::TransportClosed));
                }
                Err(tokio::sync::oneshot::error::TryRecvError::Empty)
                    if watched.elapsed() < watch =>
                {
                    tokio::task::yield_now().await;
                }
                Err(tokio::sync::oneshot::error::TryRecvError::Empty) => break None,
            }
        };
        let response = tokio::select! {
            response = async {
                match early {
                    Some(answer) => answer,
                    None => (&mut rx).await.unwrap_or(Err(rmcp::ServiceError::TransportClosed)),
                }
            } => response,
            () = ctx.cancelled() => {
                return Err(ToolError::new(
                    ErrorKind::Cancelled,
                    format!("the call was cancelled; the cancellation was sent to `{}`", link.server),
                ));
            }
        };
        guard.disarm();
        let response = response.map_err(|error| service_error(link, error))?;
        match response {
            ServerResult::CallToolResult(result) => return Ok(result),
            ServerResult::InputRequiredResult(asked) => {
                let requests = asked.input_requests.unwrap_or_default();
                let answers = ask_caller(ctx, requests)?;
                let mut responses = InputResponses::new();
                for (key, answer) in answers {
                    responses.insert(key, answer);
                }
                params.input_responses = Some(responses);
                params.request_state = asked.request_state;
            }
            ServerResult::CreateTaskResult(created) => {
                // A task there is a task here too, where this call's caller can follow one.
                ctx.start_task();
                return follow(link, peer, &created.task.task_id, ctx).await;
            }
            other => {
                return Err(ToolError::runtime(format!(
                    "the external server `{}` answered a tools/call with {}",
                    link.server,
                    serde_json::to_value(&other)
                        .map(|value| value.to_string())
                        .unwrap_or_else(|_| "something unreadable".to_owned())
                )));
            }
        }
    }
    Err(ToolError::runtime(format!(
        "the external server `{}` asked for input more than {MAX_ROUNDS} times in one call",
        link.server
    )))
}

/// Asks this call's caller the server's questions (each under the server's key, so that a
/// caller answering in rounds of its own answers the same questions when the call runs
/// again); answers them by key.
fn ask_caller(
    ctx: &Context,
    requests: impl IntoIterator<Item = (String, impl serde::Serialize)>,
) -> Result<Vec<(String, Value)>, ToolError> {
    let mut asked = Vec::new();
    for (key, request) in requests {
        let request = serde_json::to_value(&request)
            .map_err(|error| ToolError::runtime(error.to_string()))?;
        let method = request["method"].as_str().unwrap_or_default().to_owned();
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let question = InputRequest::from_mcp(&method, params).ok_or_else(|| {
            ToolError::runtime(format!(
                "the external server asked `{method}`, which is not a question a caller answers"
            ))
        })?;
        asked.push((key, question));
    }
    let keys: Vec<String> = asked.iter().map(|(key, _)| key.clone()).collect();
    let answers = ctx.ask_all(asked)?;
    Ok(keys.into_iter().zip(answers).collect())
}

/// Follows the server's task `id` to its end, answering its questions, cancelling it when this
/// call is cancelled.
async fn follow(
    link: &Link,
    peer: &Peer<RoleClient>,
    id: &str,
    ctx: &Context,
) -> Result<CallToolResult, ToolError> {
    let mut cancel = CancelTaskOnDrop {
        link,
        peer,
        id: Some(id.to_owned()),
    };
    loop {
        let task = tokio::select! {
            task = peer.get_task(GetTaskParams::new(id)) => task,
            () = ctx.cancelled() => {
                return Err(ToolError::new(
                    ErrorKind::Cancelled,
                    format!("the call was cancelled; its task on `{}` was cancelled", link.server),
                ));
            }
        }
        .map_err(|error| service_error(link, error))?;
        match task.task.payload {
            TaskPayload::Completed { result } => {
                cancel.id = None;
                return serde_json::from_value(Value::Object(result)).map_err(|error| {
                    ToolError::runtime(format!(
                        "the result of a task of `{}` cannot be read: {error}",
                        link.server
                    ))
                });
            }
            TaskPayload::Failed { error } => {
                cancel.id = None;
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the task failed")
                    .to_owned();
                return Err(ToolError::new(ErrorKind::Tool, message));
            }
            TaskPayload::Cancelled => {
                cancel.id = None;
                return Err(ToolError::new(
                    ErrorKind::Cancelled,
                    format!("the task was cancelled on `{}`", link.server),
                ));
            }
            TaskPayload::InputRequired { input_requests } => {
                let answers = ask_caller(ctx, input_requests)?;
                let mut responses = Map::new();
                for (key, answer) in answers {
                    responses.insert(key, answer);
                }
                let responses = serde_json::from_value(Value::Object(responses))
                    .map_err(|error| ToolError::runtime(error.to_string()))?;
                peer.update_task(UpdateTaskParams::new(id, responses))
                    .await
                    .map_err(|error| service_error(link, error))?;
            }
            _ => {
                tokio::select! {
                    () = tokio::time::sleep(POLL) => {}
                    () = ctx.cancelled() => {}
                }
            }
        }
    }
}

/// Tells the server a request was cancelled when the call stops waiting for it (cancelled,
/// timed out, its caller gone).
struct CancelOnDrop<'a> {
    link: &'a Link,
    peer: &'a Peer<RoleClient>,
    id: Option<RequestId>,
}

impl<'a> CancelOnDrop<'a> {
    fn new(link: &'a Link, peer: &'a Peer<RoleClient>, id: RequestId) -> Self {
        CancelOnDrop {
            link,
            peer,
            id: Some(id),
        }
    }

    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let notification = ClientNotification::CancelledNotification(CancelledNotification::new(
            CancelledNotificationParam::new(
                Some(id),
                Some("the call was cancelled or timed out where it was made".to_owned()),
            ),
        ));
        self.link.spawn(async move {
            let _ = peer.send_notification(notification).await;
        });
    }
}

impl Link {
    /// Runs `work` on the connection's runtime: it outlives the call (and the caller's runtime).
    fn spawn(&self, work: impl std::future::Future<Output = ()> + Send + 'static) {
        match self.runtime.get() {
            Some(runtime) => {
                runtime.spawn(work);
            }
            None => {
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(work);
                }
            }
        }
    }
}

/// Cancels a task on the server when the call stops following it early.
struct CancelTaskOnDrop<'a> {
    link: &'a Link,
    peer: &'a Peer<RoleClient>,
    id: Option<String>,
}

impl Drop for CancelTaskOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        self.link.spawn(async move {
            let _ = peer.cancel_task(CancelTaskParams::new(id)).await;
        });
    }
}

/// The error of a request that could not be sent or answered; a connection found gone is said
/// to its supervisor, which connects again.
/// The JSON-RPC error code of a call the server says it did not run, and may be sent again
/// once it serves again: the Unity editor's host answers it for the calls queued for its main
/// thread when a domain reload begins.
pub(crate) const NOT_RUN_CODE: i32 = -32050;

/// What the message of such a call's error begins with.
const NOT_RUN: &str = "did not run the call";

/// Whether `error` says the server did not run the call ([`NOT_RUN_CODE`]).
pub(crate) fn did_not_run(error: &ToolError) -> bool {
    error.kind() == ErrorKind::Unavailable && error.message().contains(NOT_RUN)
}

fn service_error(link: &Link, error: rmcp::ServiceError) -> ToolError {
    match error {
        rmcp::ServiceError::McpError(error) if error.code.0 == NOT_RUN_CODE => ToolError::new(
            ErrorKind::Unavailable,
            format!(
                "the external server `{}` {NOT_RUN}: {}",
                link.server, error.message
            ),
        ),
        rmcp::ServiceError::McpError(error) => ToolError::new(
            ErrorKind::Tool,
            format!(
                "the external server `{}` refused the call: {} (code {})",
                link.server, error.message, error.code.0
            ),
        ),
        other => {
            link.calls.lost.notify_one();
            lost(&link.server, &other.to_string())
        }
    }
}

fn lost(server: &str, why: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Unavailable,
        format!("the connection to the external server `{server}` was lost: {why}"),
    )
}

/// The envelope's data of a server's result: its `structuredContent` for a tool with an output
/// schema, its content blocks otherwise; `isError` is a `tool` error with its text.
pub(crate) fn into_data(
    server: &str,
    result: CallToolResult,
    structured: bool,
) -> Result<Value, ToolError> {
    if result.is_error == Some(true) {
        if let Some(error) = envelope_error(&result) {
            return Err(error);
        }
        let text: Vec<String> = result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.clone()))
            .collect();
        let message = if text.is_empty() {
            format!("the tool reported an error on `{server}`, without a message")
        } else {
            text.join("\n")
        };
        return Err(ToolError::new(ErrorKind::Tool, message));
    }
    if structured {
        if let Some(data) = result.structured_content {
            return Ok(data);
        }
        // A server that wrote its data as text only (as older servers do).
        if let Some(data) = result
            .content
            .iter()
            .find_map(|block| block.as_text())
            .and_then(|text| serde_json::from_str::<Value>(&text.text).ok())
            .filter(Value::is_object)
        {
            return Ok(data);
        }
        return Err(ToolError::runtime(format!(
            "`{server}` answered without the structured content its tool's output schema \
             promises"
        )));
    }
    serde_json::to_value(&result.content).map_err(|error| ToolError::runtime(error.to_string()))
}

/// The error of a result that carries its whole envelope (`_meta["buril/envelope"]`, as a buril
/// server and the Unity editor's host answer): its kind, message and problems, as they were.
fn envelope_error(result: &CallToolResult) -> Option<ToolError> {
    let envelope = result.meta.as_ref()?.0.get("buril/envelope")?;
    let kind = ErrorKind::from_wire(envelope.get("type")?.as_str()?)?;
    let message = envelope.get("error")?.as_str()?;
    let problems = envelope
        .get("problems")
        .and_then(Value::as_array)
        .map(|problems| {
            problems
                .iter()
                .filter_map(|problem| {
                    Some(Problem::new(
                        problem.get("path")?.as_str()?,
                        problem.get("message")?.as_str()?,
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    Some(ToolError::new(kind, message).with_problems(problems))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_is_the_shorter_of_the_caller_s_and_the_link_s() {
        let far = Some(Instant::now() + Duration::from_secs(60));
        let near = Some(Instant::now() + Duration::from_millis(200));
        assert_eq!(time_left(None, None), None);
        assert_eq!(time_left(None, Some(Duration::from_secs(5))), Some(5_000));
        assert_eq!(time_left(far, Some(Duration::from_secs(5))), Some(5_000));
        let left = time_left(near, Some(Duration::from_secs(5))).unwrap();
        assert!((1..=200).contains(&left), "{left}");
        let left = time_left(far, None).unwrap();
        assert!((59_000..=60_000).contains(&left), "{left}");
    }

    #[test]
    fn a_deadline_already_passed_leaves_one_millisecond() {
        let past = Some(Instant::now() - Duration::from_secs(1));
        assert_eq!(time_left(past, None), Some(1));
    }
}
