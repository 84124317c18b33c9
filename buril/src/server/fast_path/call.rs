//! Running a call taken by a fast path as the SDK's service loop would: which calls are taken,
//! their registration for `notifications/cancelled`, and their answer in the legacy shape.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hyper::http::request::Parts;
use rmcp::model::{ServerJsonRpcMessage, ServerResult};
use rmcp::service::RequestContext;
use tokio_util::sync::CancellationToken;

use super::parse::{CallParts, FastCall};
use crate::server::handler::Handler;
use crate::server::http_sessions::{Registered, Session};
use crate::server::plan::CallPlan;
use crate::server::state::ServerState;

/// The plan of `call` of `session` when it may be answered outside the SDK's service loop
/// (see the module's documentation); `None` hands it to the SDK.
pub(crate) fn takes(
    state: &ServerState,
    session: &Session,
    call: &FastCall<'_>,
) -> Option<CallPlan> {
    let quiet = !call
        .meta_has(|key| key == "progressToken" || key.starts_with("io.modelcontextprotocol/"))
        && session.asks_nothing
        && session.log_level.load(Ordering::Relaxed) == 0;
    if !quiet {
        return None;
    }
    let plan = CallPlan::of(state, call.name(), session.follows_tasks);
    (plan == CallPlan::Plain).then_some(plan)
}

/// Registers the call with `session` (so that `notifications/cancelled` reaches it, through the
/// token) until the guard is dropped. Done before the call's task starts, as the SDK's service
/// loop does, so that a cancellation read right after the call finds it.
pub(crate) fn register(
    session: &Arc<Session>,
    call: &CallParts,
) -> (CancellationToken, Registered) {
    let token = CancellationToken::new();
    let registered = session.register(call.0.clone(), &token);
    (token, registered)
}

/// Runs the call with a handler of `session` the way `plan` says, as the SDK's service loop
/// would, cancelled by `token` (see [`register`]), and answers as the SDK's handler answers a
/// peer before 2026-07-28; with whether the client cancelled the call (the SDK's service loop
/// then sends no answer, as the protocol asks). `parts` are the HTTP request's, which the
/// call's context carries as the SDK's does.
pub(crate) async fn answer(
    state: &Arc<ServerState>,
    session: &Session,
    plan: CallPlan,
    (id, params, meta): CallParts,
    parts: Option<Parts>,
    token: CancellationToken,
) -> (ServerJsonRpcMessage, bool) {
    let mut context = RequestContext::new(id.clone(), session.peer.clone());
    context.ct = token;
    if let Some(meta) = meta {
        context.meta = meta;
    }
    if let Some(parts) = parts {
        context.extensions.insert(parts);
    }
    let cancelled = context.ct.clone();
    let handler = Handler::of_session(state.clone(), session.log_level.clone());
    let message = match handler.call_in_span(plan, params, context).await {
        Ok(response) => {
            let mut result = ServerResult::from(response);
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
            ServerJsonRpcMessage::response(result, id)
        }
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    };
    (message, cancelled.is_cancelled())
}

/// The JSON of an answer (a stdio transport's line, an HTTP answer's body).
pub(crate) fn encode(message: &ServerJsonRpcMessage) -> Vec<u8> {
    serde_json::to_vec(message).unwrap_or_else(|error| {
        // Not reachable with rmcp's message types; an answer the client can read.
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32603, "message": format!("an answer could not be written: {error}")},
        })
        .to_string()
        .into_bytes()
    })
}
