//! Running a call taken by a fast path as the SDK's service loop would: which calls are taken,
//! their registration for `notifications/cancelled`, and their answer, through the SDK's own
//! dispatch of a request to the handler (which checks a stateless call's version and `_meta`
//! and shapes the result for the caller's revision: `resultType` from 2026-07-28 on, the
//! legacy shape before).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hyper::http::request::Parts;
use rmcp::model::{ClientRequest, Request, RequestMetaObject, ServerJsonRpcMessage};
use rmcp::service::{RequestContext, RoleServer, Service};
use tokio_util::sync::CancellationToken;

use super::parse::CallParts;
use crate::server::era::{Client, Era, STATELESS_KEYS};
use crate::server::handler::Handler;
use crate::server::http_sessions::{Registered, Session};
use crate::server::input::Abilities;
use crate::server::plan::CallPlan;
use crate::server::state::ServerState;

/// The prefix of the keys MCP reserves in `_meta`.
const PROTOCOL_KEYS: &str = "io.modelcontextprotocol/";

/// Whether `call` of `session` may be answered outside the SDK's service loop (see the
/// module's documentation), and if so what it says of its client (which [`answer`] hands down
/// to the handler); if not, it goes to the SDK.
///
/// Taken: a call that can send its client nothing before its answer (no progress token, no
/// log messages asked for by the session or, under 2026-07-28, by the call) and whose plan is
/// [`CallPlan::Plain`]. A legacy session's call also needs a client that can answer no
/// questions mid-call (they would go through the service loop) and no per-request protocol
/// fields. A stateless call needs its complete lifecycle `_meta` (a version of that era and
/// the client's capabilities), which says whether its client follows tasks; its questions end
/// it with an `input_required` result, which is its answer.
pub(crate) fn takes(state: &ServerState, session: &Session, call: &CallParts) -> Option<Client> {
    let (_, params, meta, known) = call;
    if session.log_level.load(Ordering::Relaxed) != 0
        || meta
            .as_ref()
            .is_some_and(|meta| meta.get_progress_token().is_some())
    {
        return None;
    }
    let client = match session.era {
        Era::Sessions => {
            let protocol = meta
                .as_ref()
                .is_some_and(|meta| meta.keys().any(|key| key.starts_with(PROTOCOL_KEYS)));
            if protocol || !session.asks_nothing {
                return None;
            }
            Client {
                era: Some(Era::Sessions),
                follows_tasks: session.follows_tasks,
                abilities: Abilities::default(),
            }
        }
        Era::Stateless => stateless_client(meta.as_ref()?, *known)?,
    };
    (CallPlan::of(state, params.name.as_ref(), client.follows_tasks) == CallPlan::Plain)
        .then_some(client)
}

/// A stateless call's client, if its `_meta` is one a fast path takes: a complete lifecycle
/// `_meta` of a stateless version, and no other protocol key. `known` is the client the fast
/// parser read from the same entries (`parse.rs`): `None` when the version or the capabilities
/// are missing or do not decode.
fn stateless_client(meta: &RequestMetaObject, known: Option<Client>) -> Option<Client> {
    // The protocol's keys it may hold and still be taken: the lifecycle entries (not a log
    // level, which asks for log messages before the answer, nor any other).
    let other = meta
        .keys()
        .any(|key| key.starts_with(PROTOCOL_KEYS) && !STATELESS_KEYS.contains(&key.as_str()));
    if other {
        return None;
    }
    // What the revision requires (`missing_required_keys`) is that both are there and well
    // formed, which the parser found when it read them.
    let client = known?;
    (client.era == Some(Era::Stateless)).then_some(client)
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

/// Runs the call with a handler of `session` through the SDK's dispatch of a request to a
/// handler, as its service loop would, cancelled by `token` (see [`register`]), its `client`
/// as [`takes`] read it; with whether
/// the client cancelled the call (the SDK's service loop then sends no answer, as the protocol
/// asks). `parts` are the HTTP request's, which the call's context carries as the SDK's does.
pub(crate) async fn answer(
    state: &Arc<ServerState>,
    session: &Session,
    (id, params, meta, _): CallParts,
    client: Client,
    parts: Option<Parts>,
    token: CancellationToken,
) -> (ServerJsonRpcMessage, bool) {
    let mut context = RequestContext::new(id.clone(), session.peer.clone());
    context.ct = token;
    context.extensions.insert(client);
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
