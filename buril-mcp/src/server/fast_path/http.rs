//! The HTTP fast path: a `tools/call` over Streamable HTTP, answered on the connection's own
//! task, for both eras of the protocol.
//!
//! The SDK's Streamable HTTP service hands every request of a legacy session to the session's
//! worker task, which hands it to the session's service loop, which spawns the handler; a
//! stateless (2026-07-28) request gets a service loop of its own, started and ended for it,
//! after the whole message was turned into untyped JSON to check its headers. The answer goes
//! back the same way and out as a server-sent event stream. For a plain call that is most of
//! the server's time (profiled: the handler and the dispatcher were about 7% of it). A
//! `tools/call` that needs nothing of that machinery is answered here instead: the SDK's
//! dispatch of a request to the handler runs it on the connection's task, and the answer is
//! one `application/json` body (the transport lets a server answer a request either way, and
//! every client must read both).
//!
//! What is taken here, and only then (anything else goes to the SDK's service unchanged, which
//! answers it as before, errors included):
//!
//! - no `Origin` header, and a `Host` the SDK's DNS-rebinding check allows (a browser always
//!   sends `Origin`, which the SDK's check handles), `Content-Type: application/json`, an
//!   `Accept` naming `application/json` and `text/event-stream` without weights;
//! - either a legacy session (the one `initialize` made for a version before 2026-07-28, known
//!   to the SDK's session manager and registered here when its client said
//!   `notifications/initialized`), whose results are shaped as the SDK shapes them, with a
//!   `MCP-Protocol-Version` header, if any, naming a known version of that lifecycle, and no
//!   other `Mcp-*` header but the session's;
//! - or a stateless request: no session, a `MCP-Protocol-Version` header naming a known
//!   version of the stateless lifecycle and equal to the version in the call's `_meta`,
//!   `Mcp-Method: tools/call` and `Mcp-Name` equal to the tool's name (each once), no other
//!   `Mcp-*` header, and a tool none of whose parameters is mirrored into a header
//!   (`x-mcp-header`, which the SDK checks against the body);
//! - a body of known length within the limit, that is a `tools/call` of a name, arguments and
//!   `_meta` (the stdio transport's fast frame), that its route gives the transport (`route.rs`): nothing the call
//!   could send its client before its answer, and a plain call.
//!
//! `notifications/cancelled` for a legacy session's call answered here cancels it (the
//! notification still goes to the SDK, which answers it). A call whose client goes away is
//! cancelled and dropped with its connection.

use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue, ORIGIN};
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use rmcp::RoleServer;
use rmcp::model::{ErrorCode, ServerJsonRpcMessage};
use rmcp::service::{RunningService, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::call::{answer as run, encode, register};
use super::parse::{CallParts, FastCall};
use crate::server::auth::BoxBody;
use crate::server::era::{Era, STATELESS_VERSION_KEY};
use crate::server::handler::Handler;
use crate::server::http_sessions::{SESSION_HEADER, Session, may_cancel};
use crate::server::route::Route;
use crate::server::state::{ServerState, definition_of};

const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

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
    /// The record every stateless call is answered with.
    pub stateless: &'a Arc<Session>,
}

/// Whose call a request is, by its headers.
enum Caller<'p> {
    /// A legacy session's, by its id.
    Session(&'p str),
    /// A stateless call, of the version its header names, of the tool `Mcp-Name` names.
    Stateless { version: &'p str, name: &'p [u8] },
}

impl Fast<'_> {
    /// The answer to a POST of `body`, when it is a call taken here; `None` hands it to the
    /// SDK (after cancelling a call answered here that a `notifications/cancelled` names).
    pub(crate) async fn answer(&self, parts: &Parts, body: &Bytes) -> Option<Response<BoxBody>> {
        if parts.method != hyper::Method::POST {
            return None;
        }
        let caller = self.caller_of(parts)?;
        let Ok(call) = serde_json::from_slice::<FastCall>(body) else {
            if let Caller::Session(id) = caller
                && may_cancel(body)
                && let Some(session) = self.state.http_sessions.get(id)
            {
                session.cancel_named_in(body);
            }
            return None;
        };
        match caller {
            Caller::Session(id) => {
                let session = self.state.http_sessions.get(id)?;
                if session.peer.is_transport_closed() {
                    self.state.http_sessions.remove(id);
                    return None;
                }
                let call = call.into_parts(self.state.registry);
                let route =
                    Route::of_frame(self.state, &session, &call.1.name, call.2.as_ref(), call.3);
                if !route.by_transport() {
                    return None;
                }
                // The SDK's own word on the session: one that was closed (`DELETE`) answers 404
                // there.
                if !matches!(self.sessions.has_session(&Arc::from(id)).await, Ok(true)) {
                    return None;
                }
                let (token, _registered) = register(&session, &call);
                Some(answer(self.state, &session, call, route, parts.clone(), token).await)
            }
            Caller::Stateless { version, name } => {
                if call.name().as_bytes() != name || mirrors_headers(self.state, call.name()) {
                    return None;
                }
                let call = call.into_parts(self.state.registry);
                let same_version = call.2.as_ref().is_some_and(|meta| {
                    meta.get(STATELESS_VERSION_KEY).and_then(Value::as_str) == Some(version)
                });
                if !same_version {
                    return None;
                }
                let route = Route::of_frame(
                    self.state,
                    self.stateless,
                    &call.1.name,
                    call.2.as_ref(),
                    call.3,
                );
                if !route.by_transport() {
                    return None;
                }
                let token = CancellationToken::new();
                Some(
                    answer(
                        self.state,
                        self.stateless,
                        call,
                        route,
                        parts.clone(),
                        token,
                    )
                    .await,
                )
            }
        }
    }

    /// Whose call a request is, when it passes the checks the SDK's service would make of it,
    /// as this module's documentation lists them.
    fn caller_of<'p>(&self, parts: &'p Parts) -> Option<Caller<'p>> {
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
        let version = match one(headers, VERSION_HEADER) {
            Ok(version) => version.map(|version| version.to_str()).transpose().ok()?,
            Err(()) => return None,
        };
        let era = version.map(Era::of_known);
        if headers.contains_key(SESSION_HEADER) {
            if era.is_some_and(|era| era != Some(Era::Sessions))
                || headers.keys().any(|name| {
                    let name = name.as_str();
                    name.starts_with("mcp-") && name != SESSION_HEADER && name != VERSION_HEADER
                })
            {
                return None;
            }
            return Some(Caller::Session(
                one(headers, SESSION_HEADER).ok()??.to_str().ok()?,
            ));
        }
        let version = version.filter(|_| era == Some(Some(Era::Stateless)))?;
        let method = one(headers, METHOD_HEADER).ok()??;
        let name = one(headers, NAME_HEADER).ok()??;
        if method != "tools/call"
            || headers.keys().any(|header| {
                let header = header.as_str();
                header.starts_with("mcp-")
                    && ![VERSION_HEADER, METHOD_HEADER, NAME_HEADER].contains(&header)
            })
        {
            return None;
        }
        Some(Caller::Stateless {
            version,
            name: name.as_bytes(),
        })
    }
}

/// The value of a header given at most once: `Err` when given more often.
fn one<'h>(headers: &'h hyper::HeaderMap, name: &str) -> Result<Option<&'h HeaderValue>, ()> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    match values.next() {
        None => Ok(first),
        Some(_) => Err(()),
    }
}

/// Whether the tool `name` mirrors a parameter into a header (`x-mcp-header` on a property
/// reached from the root through `properties`, where the SDK looks for them); read from its
/// definition once.
fn mirrors_headers(state: &ServerState, name: &str) -> bool {
    fn any(schema: &serde_json::Map<String, serde_json::Value>) -> bool {
        let Some(serde_json::Value::Object(properties)) = schema.get("properties") else {
            return false;
        };
        properties.values().any(|property| match property {
            serde_json::Value::Object(property) => {
                property.contains_key("x-mcp-header") || any(property)
            }
            _ => false,
        })
    }
    state.registry.get(name).is_some_and(|tool| {
        *crate::server::state::cached(&tool)
            .mirrors_headers
            .get_or_init(|| any(&definition_of(&tool).input_schema))
    })
}

/// Runs the call (see [`run`]) and answers it as one JSON body, with the status the SDK gives
/// it. A call whose connection closes before it ends is cancelled.
async fn answer(
    state: &Arc<ServerState>,
    session: &Arc<Session>,
    call: CallParts,
    route: Route,
    parts: Parts,
    token: CancellationToken,
) -> Response<BoxBody> {
    let stateless = session.era == Era::Stateless;
    let gone = token.clone().drop_guard();
    // A cancelled call is answered all the same: its request waits for a body.
    let (message, _) = run(state, session, call, route, Some(parts), token).await;
    gone.disarm();
    let mut response = Response::new(Full::new(Bytes::from(encode(&message))).boxed());
    *response.status_mut() = if stateless {
        status_of(&message)
    } else {
        StatusCode::OK
    };
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The HTTP status of a stateless call's answer, as the SDK sets it: 400 for an unsupported
/// version, a missing client capability or a header the body contradicts, 404 for an unknown
/// method, 200 for anything else (its `_meta` is complete, or the call would not be here).
fn status_of(message: &ServerJsonRpcMessage) -> StatusCode {
    let ServerJsonRpcMessage::Error(error) = message else {
        return StatusCode::OK;
    };
    match error.error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// The record of the stateless callers, with the service loop its client belongs to (kept as
/// long as the record is used). A stateless call has no client to send anything to before its
/// answer, and this path takes only calls that send nothing: the loop's transport reads nothing
/// and drops what it is given.
pub(crate) fn stateless_callers(
    state: &Arc<ServerState>,
) -> (Arc<Session>, RunningService<RoleServer, Handler>) {
    let service = rmcp::service::serve_directly(Handler::new(Arc::clone(state)), Silent, None);
    let session = Session::stateless(service.peer().clone(), Arc::new(AtomicU8::new(0)));
    (Arc::new(session), service)
}

/// A transport that reads nothing and drops what it is given.
struct Silent;

impl Transport<RoleServer> for Silent {
    type Error = std::io::Error;

    fn send(
        &mut self,
        _message: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        std::future::ready(Ok(()))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> {
        std::future::pending()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
