//! Testing your tools as a client sees them (feature `testing`): an MCP client in memory,
//! connected through the real protocol stack (rmcp's client, buril's server and its stdio
//! transport, over an in-memory pipe) to a dispatcher of your tools.
//!
//! ```
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # async fn main() {
//! use buril::testing::{Protocol, TestClient};
//! use serde_json::json;
//!
//! /// Adds two numbers.
//! #[buril::tool(off_thread)]
//! fn math_add(
//!     /// The first addend.
//!     a: f64,
//!     /// The second addend.
//!     b: f64,
//! ) -> f64 {
//!     a + b
//! }
//!
//! for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
//!     let client = TestClient::builder(buril::Dispatcher::new())
//!         .protocol(protocol)
//!         .connect()
//!         .await
//!         .unwrap();
//!     // Typed: the data, as the tool returned it.
//!     let sum: f64 = client.call_ok("math_add", json!({"a": 1, "b": 2.5})).await.unwrap();
//!     assert_eq!(sum, 3.5);
//!     // Whole: the envelope, the MCP result, and what the call sent before it ended.
//!     let refused = client.call("math_add", json!({"a": "one"})).await.unwrap();
//!     assert_eq!(refused.envelope["type"], "validation");
//!     assert_eq!(refused.result["isError"], true);
//!     client.close().await;
//! }
//! # }
//! ```
//!
//! A call answers with a [`Called`]: the envelope (as every buril front end answers, read back
//! from the MCP result as the generated clients read it), the `CallToolResult` itself, and the
//! progress reports, log messages and questions the call sent before it ended. A tool's
//! questions (`Context::elicit`, `sample`) reach [`TestClientBuilder::answer`]: mid-call under
//! 2025-11-25, as `input_required` rounds under 2026-07-28, and in the task under the tasks
//! extension; the test sees the same answers either way. With
//! [`follow_tasks`](TestClientBuilder::follow_tasks) the client declares MCP's tasks extension,
//! and a task tool's call is followed through `tasks/get` to its end ([`Called::task`] holds
//! its handle).
//!
//! [`TestClient::assert_tools_snapshot`] compares the tool definitions a client lists with a
//! file checked in beside the tests, so that a review shows a changed contract as a changed
//! file (write it with `BURIL_UPDATE_SNAPSHOTS=1`).
//!
//! The client runs on the Tokio runtime of the test that makes it; the server on the same.
//! Use a multi-threaded runtime (`#[tokio::test(flavor = "multi_thread")]`) for tools that
//! block.

// Logging: deprecated by the 2026-07-28 revision, still spoken by tools.
#![allow(deprecated)]

mod envelope;
mod handler;
mod snapshot;
mod tap;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetTaskParams, LoggingLevel, ProgressToken,
    ProtocolVersion, RequestMetaObject, TaskPayload, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, RoleClient, RunningService, serve_client_with_lifecycle};
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use self::envelope::envelope_of;
pub use self::handler::{Answerer, Protocol};
use self::handler::{Kit, Shared};
pub use self::snapshot::SNAPSHOT_VARIABLE;
use crate::server::{Server, ServerOptions};
use buril_core::Dispatcher;

/// Why a test client could not do what it was asked.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TestError {
    /// The client could not connect, or the connection broke.
    Connection(String),
    /// The server answered with a JSON-RPC error (an unknown tool, a protocol error).
    Protocol {
        /// The error's code.
        code: i32,
        /// The error's message.
        message: String,
    },
    /// The call failed: its envelope (`{"ok": false, "type": …, "error": …}`).
    Tool(Value),
    /// The data could not be read as the type asked for.
    Decode(String),
}

impl std::fmt::Display for TestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestError::Connection(why) => write!(f, "the test client's connection: {why}"),
            TestError::Protocol { code, message } => {
                write!(
                    f,
                    "the server answered a JSON-RPC error ({code}): {message}"
                )
            }
            TestError::Tool(envelope) => write!(f, "the call failed: {envelope}"),
            TestError::Decode(why) => write!(f, "the data cannot be read as asked: {why}"),
        }
    }
}

impl std::error::Error for TestError {}

fn protocol_error(error: rmcp::ServiceError) -> TestError {
    match error {
        rmcp::ServiceError::McpError(error) => TestError::Protocol {
            code: error.code.0,
            message: error.message.to_string(),
        },
        other => TestError::Connection(other.to_string()),
    }
}

/// One call, as the client saw it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Called {
    /// The envelope: `{"ok": true, "data": …}` or `{"ok": false, "type": …, "error": …}`.
    pub envelope: Value,
    /// The `CallToolResult`, as the server sent it.
    pub result: Value,
    /// The progress reports the call sent (`{"progress", "total"?, "message"?}`), in order.
    pub progress: Vec<Value>,
    /// The log messages the call sent (`{"level", "logger"?, "data"}`), in order.
    pub logs: Vec<Value>,
    /// The questions the call asked (each as MCP writes the request), in order.
    pub questions: Vec<Value>,
    /// The task's handle, when the call ran as a task the client followed.
    pub task: Option<String>,
}

impl Called {
    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.envelope["ok"] == Value::Bool(true)
    }

    /// The data of a successful call, as `T`; the envelope of a failed one as the error.
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, TestError> {
        if !self.is_ok() {
            return Err(TestError::Tool(self.envelope.clone()));
        }
        serde_json::from_value(self.envelope["data"].clone())
            .map_err(|error| TestError::Decode(error.to_string()))
    }
}

/// Configures a [`TestClient`].
pub struct TestClientBuilder {
    dispatcher: Dispatcher,
    options: ServerOptions,
    protocol: Protocol,
    answer: Option<Answerer>,
    follow_tasks: bool,
}

impl TestClientBuilder {
    /// The revision of MCP to speak. Default: 2026-07-28.
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// The server's options (which tools are on, timeouts, …). Default: the defaults, messages
    /// for people dropped.
    pub fn server_options(mut self, options: ServerOptions) -> Self {
        self.options = options;
        self
    }

    /// Answers the questions tools ask; the client then declares it can answer forms,
    /// sampling and roots. Without it, it declares none, and a tool that asks is told nobody
    /// can answer.
    pub fn answer(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.answer = Some(Arc::new(answer));
        self
    }

    /// Declares MCP's tasks extension: a task tool's call becomes a task, which the client
    /// follows to its end. Default: no, and a task tool's call waits for its work (or answers
    /// with its handle, or is refused, as the tool says).
    pub fn follow_tasks(mut self, follow: bool) -> Self {
        self.follow_tasks = follow;
        self
    }

    /// Starts the server over the dispatcher and connects to it. Must be called within a
    /// Tokio runtime.
    pub async fn connect(self) -> Result<TestClient, TestError> {
        let server = Server::new(self.dispatcher, self.options)
            .map_err(|error| TestError::Connection(error.to_string()))?;
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (their_read, their_write) = tokio::io::split(theirs);
        let serving = tokio::spawn(async move {
            let _ = server.serve_io(their_read, their_write).await;
        });
        let shared = Arc::new(Shared::default());
        let kit = Kit::new(
            Arc::clone(&shared),
            self.answer,
            self.follow_tasks,
            self.protocol,
        );
        let lifecycle = match self.protocol {
            Protocol::V2025_11_25 => ClientLifecycleMode::Initialize,
            Protocol::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        };
        let config = kit.config();
        let (read, write) = tokio::io::split(ours);
        let read = tap::Tap::new(read, Arc::clone(&shared));
        let service = serve_client_with_lifecycle(kit, (read, write), lifecycle)
            .await
            .map_err(|error| TestError::Connection(error.to_string()))?;
        if self.protocol == Protocol::V2025_11_25 {
            // Every log message, so that a call's logs are seen (2026-07-28 asks per request).
            #[allow(deprecated)]
            service
                .peer()
                .set_level(rmcp::model::SetLevelRequestParams::new(LoggingLevel::Debug))
                .await
                .map_err(protocol_error)?;
        }
        Ok(TestClient {
            service,
            subscription: std::sync::Mutex::new(None),
            shared,
            protocol: self.protocol,
            config,
            serving,
        })
    }
}

/// An MCP client in memory, connected to a server of a dispatcher's tools: see the
/// [module](self).
pub struct TestClient {
    service: RunningService<RoleClient, Kit>,
    /// The task draining the `subscriptions/listen` stream of a 2026-07-28 client that listens
    /// for tool list changes.
    subscription: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    shared: Arc<Shared>,
    protocol: Protocol,
    /// What the client declared (sent with every request under 2026-07-28).
    config: rmcp::model::ClientConfig,
    serving: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for TestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestClient")
            .field("protocol", &self.protocol)
            .finish_non_exhaustive()
    }
}

/// How many `input_required` rounds a call may take.
const MAX_ROUNDS: usize = 32;

/// How often a followed task is polled.
const POLL: Duration = Duration::from_millis(10);

impl TestClient {
    /// Configures a client of a server over `dispatcher`.
    pub fn builder(dispatcher: Dispatcher) -> TestClientBuilder {
        TestClientBuilder {
            dispatcher,
            options: ServerOptions::new().messages(|_| {}),
            protocol: Protocol::default(),
            answer: None,
            follow_tasks: false,
        }
    }

    /// A client of a server over `dispatcher`, with the defaults (2026-07-28, no answers, no
    /// tasks followed).
    pub async fn connect(dispatcher: Dispatcher) -> Result<TestClient, TestError> {
        TestClient::builder(dispatcher).connect().await
    }

    /// The revision the client speaks.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Listens for the server's `notifications/tools/list_changed`, which
    /// [`tool_list_changes`](Self::tool_list_changes) counts: a 2026-07-28 client opens a
    /// `subscriptions/listen` stream for them (a 2025-11-25 session hears them anyway).
    pub async fn listen_for_tool_changes(&self) -> Result<(), TestError> {
        if self.protocol == Protocol::V2026_07_28 {
            let filter = rmcp::model::SubscriptionFilter::builder()
                .tools_list_changed()
                .build();
            let mut subscription = self
                .service
                .peer()
                .listen(filter)
                .await
                .map_err(protocol_error)?;
            // Counted as their lines pass (`tap.rs`); drained here, so that the stream never
            // fills.
            let drain =
                tokio::spawn(async move { while let Ok(Some(_)) = subscription.next().await {} });
            if let Some(old) = self
                .subscription
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .replace(drain)
            {
                old.abort();
            }
        }
        Ok(())
    }

    /// How many `notifications/tools/list_changed` the server has sent this client so far
    /// (see [`listen_for_tool_changes`](Self::listen_for_tool_changes)).
    pub fn tool_list_changes(&self) -> u64 {
        self.shared
            .tool_list_changes
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Every tool the client can list (every page), as the server defines it to clients.
    pub async fn tools(&self) -> Result<Vec<Value>, TestError> {
        let tools = self
            .service
            .peer()
            .list_all_tools()
            .await
            .map_err(protocol_error)?;
        tools
            .into_iter()
            .map(|tool| {
                serde_json::to_value(tool).map_err(|error| TestError::Decode(error.to_string()))
            })
            .collect()
    }

    /// Calls `tool` with `input`.
    pub async fn call(&self, tool: &str, input: Value) -> Result<Called, TestError> {
        let arguments = match input {
            Value::Object(arguments) => Some(arguments),
            Value::Null => None,
            other => {
                return Err(TestError::Decode(format!(
                    "a tool's input is a JSON object, not {other}"
                )));
            }
        };
        let token = ProgressToken(rmcp::model::NumberOrString::String(
            format!("test-{}", self.shared.next_token()).into(),
        ));
        let mut meta = match self.protocol {
            // Every request carries the client's context, and asks for every log message.
            Protocol::V2026_07_28 => {
                let mut meta = RequestMetaObject::with_client_context(
                    self.config.protocol_version.clone(),
                    self.config.client_info.clone(),
                    self.config.capabilities.clone(),
                );
                meta.set_log_level(LoggingLevel::Debug);
                meta
            }
            Protocol::V2025_11_25 => RequestMetaObject::new(),
        };
        meta.set_progress_token(token.clone());
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments;
        params.meta = Some(meta);
        self.shared.begin(&token);
        let mut task = None;
        let outcome = self.rounds(params, &mut task).await;
        let captured = self.shared.end(&token);
        let result = outcome?;
        Ok(Called {
            envelope: envelope_of(&result),
            result,
            progress: captured.progress,
            logs: captured.logs,
            questions: captured.questions,
            task,
        })
    }

    /// Sends the call, answering its `input_required` rounds (the questions of a 2026-07-28
    /// call), and follows it when it became a task; answers its `CallToolResult`.
    async fn rounds(
        &self,
        mut params: CallToolRequestParams,
        task: &mut Option<String>,
    ) -> Result<Value, TestError> {
        let to_value = |result: &rmcp::model::CallToolResult| {
            serde_json::to_value(result).map_err(|error| TestError::Decode(error.to_string()))
        };
        for _ in 0..MAX_ROUNDS {
            match self
                .service
                .peer()
                .call_tool_once(params.clone())
                .await
                .map_err(protocol_error)?
            {
                CallToolResponse::Complete(result) => return to_value(&result),
                CallToolResponse::Task(created) => {
                    *task = Some(created.task.task_id.clone());
                    return self.follow(&created.task.task_id).await;
                }
                CallToolResponse::InputRequired(asked) => {
                    let mut responses = rmcp::model::InputResponses::new();
                    for (key, request) in asked.input_requests.unwrap_or_default() {
                        let request = serde_json::to_value(request)
                            .map_err(|error| TestError::Decode(error.to_string()))?;
                        responses.insert(key, self.shared.ask(&request));
                    }
                    params.input_responses = Some(responses);
                    params.request_state = asked.request_state;
                }
                _ => {
                    return Err(TestError::Decode(
                        "the server answered a kind of result this client does not know".into(),
                    ));
                }
            }
        }
        Err(TestError::Decode(format!(
            "the call asked for input more than {MAX_ROUNDS} times"
        )))
    }

    /// Calls `tool` and reads the data of its success as `T` (a tool that returns a value
    /// that is not an object answers `{"result": value}`: `T` may be the value's type); a
    /// failure is [`TestError::Tool`] with its envelope.
    pub async fn call_ok<T: DeserializeOwned>(
        &self,
        tool: &str,
        input: Value,
    ) -> Result<T, TestError> {
        let called = self.call(tool, input).await?;
        let data = called.data::<Value>()?;
        match serde_json::from_value::<T>(data.clone()) {
            Ok(value) => Ok(value),
            Err(error) => match data.as_object() {
                Some(wrapped) if wrapped.len() == 1 && wrapped.contains_key("result") => {
                    serde_json::from_value(wrapped["result"].clone())
                        .map_err(|error| TestError::Decode(error.to_string()))
                }
                _ => Err(TestError::Decode(error.to_string())),
            },
        }
    }

    /// Follows the task `handle` through `tasks/get` to its end, answering its questions;
    /// answers its `CallToolResult`.
    async fn follow(&self, handle: &str) -> Result<Value, TestError> {
        let peer = self.service.peer();
        loop {
            let task = peer
                .get_task(GetTaskParams::new(handle))
                .await
                .map_err(protocol_error)?;
            match task.task.payload {
                TaskPayload::Completed { result } => return Ok(Value::Object(result)),
                TaskPayload::Failed { error } => {
                    return Err(TestError::Protocol {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(0) as i32,
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    });
                }
                TaskPayload::Cancelled => {
                    return Ok(serde_json::json!({
                        "content": [{"type": "text", "text": "the task was cancelled"}],
                        "isError": true,
                        "_meta": {"buril/envelope": {
                            "ok": false, "type": "cancelled", "error": "the task was cancelled"
                        }},
                    }));
                }
                TaskPayload::InputRequired { input_requests } => {
                    let mut responses = serde_json::Map::new();
                    for (key, request) in input_requests {
                        let request = serde_json::to_value(request)
                            .map_err(|error| TestError::Decode(error.to_string()))?;
                        responses.insert(key, self.shared.ask(&request));
                    }
                    let responses = serde_json::from_value(Value::Object(responses))
                        .map_err(|error| TestError::Decode(error.to_string()))?;
                    peer.update_task(UpdateTaskParams::new(handle, responses))
                        .await
                        .map_err(protocol_error)?;
                }
                _ => tokio::time::sleep(POLL).await,
            }
        }
    }

    /// Compares the tool definitions the client lists with the snapshot at `path` (pretty
    /// JSON, sorted by name), and panics with what changed when they differ. With
    /// [`SNAPSHOT_VARIABLE`] set to `1`, writes the snapshot instead.
    pub async fn assert_tools_snapshot(&self, path: impl AsRef<std::path::Path>) {
        let tools = match self.tools().await {
            Ok(tools) => tools,
            Err(error) => panic!("the tools could not be listed: {error}"),
        };
        snapshot::assert_snapshot(path.as_ref(), tools);
    }

    /// Ends the session and stops the server.
    pub async fn close(self) {
        if let Some(drain) = self
            .subscription
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            drain.abort();
        }
        let _ = self.service.cancel().await;
        self.serving.abort();
    }
}
