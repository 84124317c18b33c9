//! The test client's side of the protocol: what it declares it can do, its answers to a tool's
//! questions, and the progress, log messages and questions it records for the call in flight.

// Logging, sampling and roots: deprecated by the 2026-07-28 revision, still spoken by tools.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ErrorData, Implementation, ListRootsResult, ProgressToken,
};
use rmcp::service::{RequestContext, RoleClient};
use serde_json::{Value, json};

/// The revision of MCP the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Protocol {
    /// Sessions: `initialize`, questions sent mid-call.
    V2025_11_25,
    /// Stateless requests: `server/discover`, questions in `input_required` rounds.
    #[default]
    V2026_07_28,
}

/// Answers a question a tool asked: gets the request as MCP writes it
/// (`{"method": "elicitation/create", "params": …}`, `sampling/createMessage`,
/// `roots/list`) and returns the result as MCP writes it (`{"action": "accept", "content":
/// …}`, a sampled message, `{"roots": […]}`).
pub type Answerer = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// What the client saw of one call.
#[derive(Default)]
pub(crate) struct Captured {
    pub(crate) progress: Vec<Value>,
    pub(crate) logs: Vec<Value>,
    pub(crate) questions: Vec<Value>,
}

/// What the client and its handler share: the calls in flight and what each saw.
#[derive(Default)]
pub(crate) struct Shared {
    tokens: AtomicU64,
    calls: Mutex<HashMap<ProgressToken, Captured>>,
    /// Notifications and questions go to the call in flight (a test makes one at a time; with
    /// several, to the one begun last).
    current: Mutex<Option<ProgressToken>>,
    answer: Mutex<Option<Answerer>>,
    /// How many `notifications/tools/list_changed` the server sent.
    pub(crate) tool_list_changes: AtomicU64,
}

impl Shared {
    pub(crate) fn next_token(&self) -> u64 {
        self.tokens.fetch_add(1, Ordering::Relaxed)
    }

    fn calls(&self) -> MutexGuard<'_, HashMap<ProgressToken, Captured>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn begin(&self, token: &ProgressToken) {
        self.calls().insert(token.clone(), Captured::default());
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(token.clone());
    }

    pub(crate) fn end(&self, token: &ProgressToken) -> Captured {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if current.as_ref() == Some(token) {
            *current = None;
        }
        self.calls().remove(token).unwrap_or_default()
    }

    /// Records a notification the server sent (`{"method", "params"}`), in the order it came,
    /// for the call in flight: a progress report or a log message. (The client gives each
    /// request a progress token of its own, so a report is not told apart by the token the
    /// test's call chose.)
    pub(crate) fn notified(&self, message: &Value) {
        let params = &message["params"];
        match message["method"].as_str() {
            Some("notifications/tools/list_changed") => {
                self.tool_list_changes.fetch_add(1, Ordering::SeqCst);
            }
            Some("notifications/progress") => {
                let mut report = json!({"progress": params["progress"]});
                for key in ["total", "message"] {
                    if let Some(value) = params.get(key) {
                        report[key] = value.clone();
                    }
                }
                self.record(|captured| captured.progress.push(report));
            }
            Some("notifications/message") => {
                let message = params.clone();
                self.record(|captured| captured.logs.push(message));
            }
            _ => {}
        }
    }

    fn record(&self, add: impl FnOnce(&mut Captured)) {
        let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let Some(token) = current.as_ref() else {
            return;
        };
        if let Some(captured) = self.calls().get_mut(token) {
            add(captured);
        }
    }

    /// Answers a question (`{"method", "params"}`), recording it for the call in flight.
    pub(crate) fn ask(&self, request: &Value) -> Value {
        self.record(|captured| captured.questions.push(request.clone()));
        let answer = self
            .answer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match answer {
            Some(answer) => answer(request),
            None => json!({"action": "decline"}),
        }
    }
}

/// The client's handler.
pub(crate) struct Kit {
    shared: Arc<Shared>,
    answers: bool,
    follow_tasks: bool,
    protocol: Protocol,
}

impl Kit {
    pub(crate) fn new(
        shared: Arc<Shared>,
        answer: Option<Answerer>,
        follow_tasks: bool,
        protocol: Protocol,
    ) -> Self {
        let answers = answer.is_some();
        *shared.answer.lock().unwrap_or_else(|e| e.into_inner()) = answer;
        Kit {
            shared,
            answers,
            follow_tasks,
            protocol,
        }
    }

    /// A question sent mid-call (2025-11-25), answered and read back as `T`.
    fn answered<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &impl serde::Serialize,
    ) -> Result<T, ErrorData> {
        let request = json!({"method": method, "params": params});
        let answer = self.shared.ask(&request);
        serde_json::from_value(answer).map_err(|error| {
            ErrorData::internal_error(format!("the test's answer to {method}: {error}"), None)
        })
    }
}

impl Kit {
    /// What the client declares: its capabilities and the revision it speaks.
    pub(crate) fn config(&self) -> ClientConfig {
        let mut capabilities = json!({});
        if self.answers {
            capabilities["elicitation"] = json!({"form": {}});
            capabilities["sampling"] = json!({});
            capabilities["roots"] = json!({});
        }
        if self.follow_tasks {
            capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
        }
        let capabilities: ClientCapabilities =
            serde_json::from_value(capabilities).unwrap_or_default();
        let version = match self.protocol {
            Protocol::V2025_11_25 => rmcp::model::ProtocolVersion::V_2025_11_25,
            Protocol::V2026_07_28 => rmcp::model::ProtocolVersion::V_2026_07_28,
        };
        ClientConfig::new(capabilities, Implementation::new("buril-test-client", "1"))
            .with_protocol_version(version)
    }
}

impl ClientHandler for Kit {
    fn get_info(&self) -> ClientConfig {
        self.config()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.answered("elicitation/create", &request)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.answered("sampling/createMessage", &params)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.answered("roots/list", &json!({}))
    }
}
