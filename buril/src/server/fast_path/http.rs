//! The HTTP fast path: a `tools/call` over Streamable HTTP, answered on the connection's own
//! task.
//!
//! The SDK's Streamable HTTP service hands every request of a session to the session's worker
//! task, which hands it to the session's service loop, which spawns the handler; the answer
//! goes back the same way and out as a server-sent event stream. For a plain call that is most
//! of the server's time (profiled: the handler and the dispatcher were about 7% of it). A
//! `tools/call` that needs nothing of that machinery is answered here instead: the handler of
//! the request's session runs it on the connection's task, and the answer is one
//! `application/json` body (the transport lets a server answer a request either way, and
//! every client must read both).
//!
//! What is taken here, and only then (anything else goes to the SDK's service unchanged, which
//! answers it as before, errors included):
//!
//! - a legacy session (the one `initialize` made for a version before 2026-07-28, known to the
//!   SDK's session manager and registered here when its client said
//!   `notifications/initialized`), whose results are shaped as the SDK shapes them, and a
//!   `MCP-Protocol-Version` header, if any, naming a known version of that lifecycle (before
//!   2026-07-28, whose standard `Mcp-*` headers the SDK checks against the body);
//! - no `Origin` header, and a `Host` the SDK's DNS-rebinding check allows (a browser always
//!   sends `Origin`, which the SDK's check handles), `Content-Type: application/json`, an
//!   `Accept` naming `application/json` and `text/event-stream` without weights, no `Mcp-*`
//!   header but the session's and the version's;
//! - a body of known length within the limit, that is a `tools/call` of a name, arguments and
//!   `_meta` (the stdio transport's fast frame), whose `_meta` has no progress token and no
//!   per-request protocol fields;
//! - nothing the call could send the client before its answer: the session asked for no log
//!   messages, its client can answer no questions (no elicitation, sampling or roots), and
//!   the tool is not a task tool.
//!
//! `notifications/cancelled` for a call answered here cancels it (the notification still goes
//! to the SDK, which answers it). A call whose client goes away is dropped with its
//! connection.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue, ORIGIN};
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::call::{answer as run, encode, register, takes};
use super::parse::FastCall;
use crate::server::auth::BoxBody;
use crate::server::era::Era;
use crate::server::http_sessions::{SESSION_HEADER, Session, may_cancel};
use crate::server::plan::CallPlan;
use crate::server::state::ServerState;

const VERSION_HEADER: &str = "mcp-protocol-version";

/// The hosts a request's `Host` may name (none to check: every one).
pub(crate) struct Hosts(Option<Vec<Allowed>>);

/// A host, and its port if only that one is allowed.
struct Allowed {
    host: String,
    port: Option<u16>,
}

impl Hosts {
    /// The hosts of the SDK's configuration, read as it reads them (an empty list allows
    /// every host).
    pub(crate) fn new(allowed: &[String]) -> Self {
        if allowed.is_empty() {
            return Hosts(None);
        }
        let parsed = allowed
            .iter()
            .map(|host| host.trim())
            .filter(|host| !host.is_empty())
            .map(|host| match hyper::http::uri::Authority::try_from(host) {
                Ok(authority) => Allowed {
                    host: normalize(authority.host()),
                    port: authority.port_u16(),
                },
                Err(_) => Allowed {
                    host: normalize(host),
                    port: None,
                },
            })
            .collect();
        Hosts(Some(parsed))
    }

    pub(crate) fn allows(&self, host: Option<&HeaderValue>) -> bool {
        let Some(host) = host.and_then(|host| host.to_str().ok()) else {
            return false;
        };
        let Ok(authority) = hyper::http::uri::Authority::try_from(host) else {
            return false;
        };
        let Some(allowed) = &self.0 else {
            return true;
        };
        let (name, port) = (normalize(authority.host()), authority.port_u16());
        allowed
            .iter()
            .any(|allowed| allowed.host == name && allowed.port.is_none_or(|p| port == Some(p)))
    }
}

fn normalize(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

/// What the server needs to answer a call here.
pub(crate) struct Fast<'a> {
    pub state: &'a Arc<ServerState>,
    pub sessions: &'a LocalSessionManager,
    pub hosts: &'a Hosts,
}

impl Fast<'_> {
    /// The answer to a POST of `body`, when it is a call taken here; `None` hands it to the
    /// SDK (after cancelling a call answered here that a `notifications/cancelled` names).
    pub(crate) async fn answer(&self, parts: &Parts, body: &Bytes) -> Option<Response<BoxBody>> {
        if parts.method != hyper::Method::POST {
            return None;
        }
        let id = self.session_of(parts)?;
        let Ok(call) = serde_json::from_slice::<FastCall>(body) else {
            if may_cancel(body)
                && let Some(session) = self.state.http_sessions.get(id)
            {
                session.cancel_named_in(body);
            }
            return None;
        };
        let session = self.state.http_sessions.get(id)?;
        if session.peer.is_transport_closed() {
            self.state.http_sessions.remove(id);
            return None;
        }
        let plan = takes(self.state, &session, &call)?;
        // The SDK's own word on the session: one that was closed (`DELETE`) answers 404 there.
        if !matches!(self.sessions.has_session(&Arc::from(id)).await, Ok(true)) {
            return None;
        }
        Some(answer(self.state, &session, plan, call, parts.clone()).await)
    }

    /// The session id of a request that passes the checks the SDK's service would make of it,
    /// as this module's documentation lists them.
    fn session_of<'p>(&self, parts: &'p Parts) -> Option<&'p str> {
        let headers = &parts.headers;
        if headers.contains_key(ORIGIN) || !self.hosts.allows(headers.get(HOST)) {
            return None;
        }
        fn essence(value: &HeaderValue) -> Option<&str> {
            let text = value.to_str().ok()?;
            Some(
                text.split_once(';')
                    .map_or(text, |(essence, _)| essence)
                    .trim(),
            )
        }
        if !headers
            .get(CONTENT_TYPE)
            .and_then(essence)
            .is_some_and(|essence| essence.eq_ignore_ascii_case("application/json"))
        {
            return None;
        }
        let (mut json, mut sse) = (false, false);
        for value in headers.get_all(ACCEPT) {
            let text = value.to_str().ok()?;
            for range in text.split(',') {
                let (essence, params) = range.split_once(';').unwrap_or((range, ""));
                if !params.trim().is_empty() {
                    return None;
                }
                json |= essence.trim().eq_ignore_ascii_case("application/json");
                sse |= essence.trim().eq_ignore_ascii_case("text/event-stream");
            }
        }
        if !(json && sse) {
            return None;
        }
        if let Some(version) = headers.get(VERSION_HEADER)
            && Era::of_known(version.to_str().ok()?) != Some(Era::Sessions)
        {
            return None;
        }
        if headers.keys().any(|name| {
            let name = name.as_str();
            name.starts_with("mcp-") && name != SESSION_HEADER && name != VERSION_HEADER
        }) {
            return None;
        }
        let mut ids = headers.get_all(SESSION_HEADER).iter();
        let id = ids.next()?.to_str().ok()?;
        ids.next().is_none().then_some(id)
    }
}

/// Runs the call with a handler of the session, as the SDK's service loop would, and answers
/// it as one JSON body.
async fn answer(
    state: &Arc<ServerState>,
    session: &Arc<Session>,
    plan: CallPlan,
    call: FastCall<'_>,
    parts: Parts,
) -> Response<BoxBody> {
    let call = call.into_parts(state.registry);
    let (token, _registered) = register(session, &call);
    // A cancelled call is answered all the same: its request waits for a body.
    let (message, _) = run(state, session, plan, call, Some(parts), token).await;
    let mut response = Response::new(Full::new(Bytes::from(encode(&message))).boxed());
    *response.status_mut() = StatusCode::OK;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
