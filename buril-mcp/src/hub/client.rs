//! The hub's side of one connection, as rmcp's client handler: what it declares it can do, the
//! external server's notifications (its tool list changed, a call's progress, log messages)
//! and questions (elicitation, sampling, roots) sent on to the call in flight they belong to,
//! whose caller answers them.

// Logging, sampling and roots: deprecated by the 2026-07-28 revision, still spoken by servers.
#![allow(deprecated)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ErrorData, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde_json::{Value, json};
use tokio::sync::Notify;

use buril_core::context::{Context, InputRequest, LogLevel};

/// A call in flight on a connection: its number, the progress token rmcp gave its request
/// (once sent), and its context (whose caller answers questions and sees progress).
struct InFlight {
    number: u64,
    token: Option<ProgressToken>,
    ctx: Context,
    /// The latest progress report passed on: how far, out of how much.
    last: Option<(f64, Option<f64>)>,
}

/// How long a call that ended waits for a progress report its server sent before its answer
/// (see [`Calls::settle`]).
const PROGRESS_GRACE: std::time::Duration = std::time::Duration::from_millis(20);

/// How many progress reports whose call is not known yet are kept (a report can come before
/// the hub has read which token its request was given).
const EARLY_REPORTS: usize = 64;

/// What a connection's handler and its calls share.
#[derive(Default)]
pub(crate) struct Calls {
    numbers: AtomicU64,
    calls: Mutex<Vec<InFlight>>,
    early: Mutex<VecDeque<ProgressNotificationParam>>,
    /// Told when the server says its tool list changed.
    pub(crate) tools_changed: Notify,
    /// Told when a call found the connection gone (a request that could not be sent or
    /// answered), so that the connection is made again at once.
    pub(crate) lost: Notify,
}

impl Calls {
    fn calls(&self) -> MutexGuard<'_, Vec<InFlight>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a call about to be sent; answers its number.
    pub(crate) fn begin(&self, ctx: &Context) -> u64 {
        let number = self.numbers.fetch_add(1, Ordering::Relaxed);
        self.calls().push(InFlight {
            number,
            token: None,
            ctx: ctx.clone(),
            last: None,
        });
        number
    }

    /// The progress token rmcp gave call `number`'s request: reports with it go to the call
    /// (those that came first, too).
    pub(crate) fn sent(&self, number: u64, token: ProgressToken) {
        let ctx = {
            let mut calls = self.calls();
            let Some(call) = calls.iter_mut().find(|call| call.number == number) else {
                return;
            };
            call.token = Some(token.clone());
            call.ctx.clone()
        };
        let early: Vec<ProgressNotificationParam> = {
            let mut early = self.early.lock().unwrap_or_else(|e| e.into_inner());
            let (mine, rest): (Vec<_>, Vec<_>) = early
                .drain(..)
                .partition(|report| report.progress_token == token);
            early.extend(rest);
            mine
        };
        for report in early {
            report_to(&ctx, &report);
        }
    }

    /// Waits, briefly, for the progress reports call `number`'s server sent before its
    /// answer. rmcp hands each notification to a task of its own while it answers the request
    /// at once, so the last reports can be behind the answer here though they came before it:
    /// they are let through first (a few yields), and when the latest report said more was to
    /// come (`progress` under `total`), for up to [`PROGRESS_GRACE`].
    pub(crate) async fn settle(&self, number: u64) {
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
        let started = std::time::Instant::now();
        while started.elapsed() < PROGRESS_GRACE && self.expects_more(number) {
            tokio::time::sleep(std::time::Duration::from_micros(500)).await;
        }
    }

    /// Whether call `number`'s latest progress report said more was to come.
    fn expects_more(&self, number: u64) -> bool {
        self.calls().iter().any(|call| {
            call.number == number
                && matches!(call.last, Some((progress, Some(total))) if progress < total)
        })
    }

    pub(crate) fn end(&self, number: u64) {
        self.calls().retain(|call| call.number != number);
    }

    /// How many calls are in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.calls().len()
    }

    /// The context of the call a question or a log message without a token belongs to: the
    /// one call in flight, or the latest of several (MCP 2025-11-25 says no more).
    fn latest(&self) -> Option<Context> {
        self.calls().last().map(|call| call.ctx.clone())
    }

    /// The call whose request has `report`'s token, which now has it as its latest report.
    fn progressed(&self, report: &ProgressNotificationParam) -> Option<Context> {
        let mut calls = self.calls();
        let call = calls
            .iter_mut()
            .find(|call| call.token.as_ref() == Some(&report.progress_token))?;
        call.last = Some((report.progress, report.total));
        Some(call.ctx.clone())
    }
}

fn report_to(ctx: &Context, report: &ProgressNotificationParam) {
    ctx.report_progress(report.progress, report.total, report.message.as_deref());
}

/// rmcp's client handler for one connection.
pub(crate) struct HubClient {
    pub(crate) server: String,
    pub(crate) calls: Arc<Calls>,
}

impl HubClient {
    /// A question the server asked mid-call, asked of the caller of the call in flight, and
    /// its answer read back as `T`.
    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, ErrorData> {
        let Some(ctx) = self.calls.latest() else {
            return Err(ErrorData::invalid_request(
                format!("{method}: no call of this server's tools is in flight to ask"),
                None,
            ));
        };
        let Some(request) = InputRequest::from_mcp(method, params) else {
            return Err(ErrorData::invalid_request(
                format!("{method} is not a question"),
                None,
            ));
        };
        // The caller's answer may block (a terminal, a session's request): off the runtime.
        let answer = tokio::task::spawn_blocking(move || ctx.ask(request))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
            .map_err(|error| ErrorData::internal_error(error.message().to_owned(), None))?;
        serde_json::from_value(answer).map_err(|error| {
            ErrorData::internal_error(format!("the caller's answer to {method}: {error}"), None)
        })
    }
}

impl ClientHandler for HubClient {
    fn get_info(&self) -> ClientConfig {
        // Everything a caller may be able to answer; a question its caller cannot answer is
        // answered with the reason. Tasks: a call the server makes a task is followed.
        let capabilities: ClientCapabilities = serde_json::from_value(json!({
            "elicitation": {"form": {}},
            "sampling": {},
            "roots": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        }))
        .unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("buril-hub", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(&request)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        self.ask("elicitation/create", params).await
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(&params)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        self.ask("sampling/createMessage", params).await
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.ask("roots/list", json!({})).await
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        match self.calls.progressed(&params) {
            Some(ctx) => report_to(&ctx, &params),
            None => {
                let mut early = self.calls.early.lock().unwrap_or_else(|e| e.into_inner());
                if early.len() == EARLY_REPORTS {
                    early.pop_front();
                }
                early.push_back(params);
            }
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|level| level.as_str().and_then(LogLevel::from_name))
            .unwrap_or(LogLevel::Info);
        tracing::debug!(
            target: "buril::hub",
            server = %self.server,
            level = level.as_str(),
            data = %params.data,
            "a log message of the external server"
        );
        if let Some(ctx) = self.calls.latest() {
            ctx.log_data(level, params.data);
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.calls.tools_changed.notify_one();
    }
}
