//! Running a call a transport answers (its route's lane, `route.rs`) as the SDK's service loop
//! would: its registration for `notifications/cancelled`, and its answer, through the SDK's own
//! dispatch of a request to the handler (which checks a stateless call's version and `_meta`
//! and shapes the result for the caller's revision: `resultType` from 2026-07-28 on, the
//! legacy shape before).

use std::sync::Arc;

use hyper::http::request::Parts;
use rmcp::model::{ClientRequest, Request, ServerJsonRpcMessage};
use rmcp::service::{RequestContext, RoleServer, Service};
use tokio_util::sync::CancellationToken;

use super::parse::CallParts;
use crate::server::handler::Handler;
use crate::server::http_sessions::{Registered, Session};
use crate::server::route::Route;
use crate::server::state::ServerState;

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

/// Runs the call with a handler of `session` through the SDK's dispatch of a request to a
/// handler, as its service loop would, cancelled by `token` (see [`register`]), on its
/// `route` (which the handler reads, not working it out again); with whether
/// the client cancelled the call (the SDK's service loop then sends no answer, as the protocol
/// asks). `parts` are the HTTP request's, which the call's context carries as the SDK's does.
pub(crate) async fn answer(
    state: &Arc<ServerState>,
    session: &Session,
    (id, params, meta, _): CallParts,
    route: Route,
    parts: Option<Parts>,
    token: CancellationToken,
) -> (ServerJsonRpcMessage, bool) {
    debug_assert!(route.by_transport(), "a call of the service loop");
    let mut context = RequestContext::new(id.clone(), session.peer.clone());
    context.ct = token;
    context.extensions.insert(route.client);
    context.extensions.insert(route);
    if let Some(meta) = meta {
        context.meta = meta;
    }
    if let Some(parts) = parts {
        context.extensions.insert(parts);
    }
    let cancelled = context.ct.clone();
    let handler = Handler::of_session(state.clone(), session.log_level.clone());
    let request = ClientRequest::CallToolRequest(Request::new(params));
    let message = match Service::<RoleServer>::handle_request(&handler, request, context).await {
        Ok(result) => ServerJsonRpcMessage::response(result, id),
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
