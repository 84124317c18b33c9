//! The callers whose plain calls may be answered outside the SDK's service loop
//! (`fast_path/`): legacy Streamable HTTP sessions, whose calls are answered on their
//! connection; the stateless (2026-07-28) callers of the HTTP endpoint, one record for all of
//! them; and a stdio server's one client, of either era, whose transport (`frame.rs`) answers
//! its calls on a task of their own. A legacy session is registered by the handler when its
//! client says `notifications/initialized`, a stateless stdio client at its first request; the
//! transports read them. Kept apart from both so that the server's state, which holds the HTTP
//! table, names neither.

use std::collections::HashMap;
use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex, RwLock};

use hyper::http::request::Parts;
use rmcp::model::RequestId;
use rmcp::service::{NotificationContext, Peer, RoleServer};
use serde::Deserialize;
use tokio::sync::SetOnce;
use tokio_util::sync::CancellationToken;

use super::era::{Client, Era};

/// The header naming a request's session.
pub(super) const SESSION_HEADER: &str = "mcp-session-id";

/// The sessions whose calls may be answered on their connection, by session id.
#[derive(Default)]
pub(crate) struct Sessions {
    map: RwLock<HashMap<Box<str>, Arc<Session>>>,
}

/// A caller's client and log level, and its calls answered outside the service loop (to
/// cancel them).
pub(super) struct Session {
    /// What the calls' contexts name as their client.
    pub peer: Peer<RoleServer>,
    /// The lifecycle its calls follow: a legacy session's calls rely on what `initialize`
    /// said; a stateless call carries its version and capabilities in its own `_meta`.
    pub era: Era,
    /// The handler's log level (`logging/setLevel`), shared with it.
    pub log_level: Arc<AtomicU8>,
    /// Whether its client can answer nothing the server could ask mid-call (a legacy session;
    /// a stateless call's questions end it with an `input_required` result instead).
    pub asks_nothing: bool,
    /// Whether its client follows tasks (a legacy session that declared MCP's tasks
    /// extension; a stateless call says so in its own `_meta`).
    pub follows_tasks: bool,
    pub calls: Mutex<HashMap<RequestId, CancellationToken>>,
}

impl Session {
    /// The session of a client that finished `initialize`, with its handler's log level, when
    /// its calls may be answered outside the service loop: a session of the lifecycle whose
    /// results the SDK answers in their legacy shape (`fast_path::answer` shapes them so; a
    /// session that said `initialized` was made by `initialize`, which negotiates one of its
    /// versions).
    fn of(log_level: &Arc<AtomicU8>, context: &NotificationContext<RoleServer>) -> Option<Self> {
        let info = context.peer.peer_info()?;
        let client = Client::new(Some(&info.protocol_version), Some(&info.capabilities));
        (client.era == Some(Era::Sessions)).then(|| Session {
            peer: context.peer.clone(),
            era: Era::Sessions,
            log_level: log_level.clone(),
            asks_nothing: !client.abilities.any(),
            follows_tasks: client.follows_tasks,
            calls: Mutex::default(),
        })
    }

    /// The record of stateless (2026-07-28) callers whose calls name `peer` as their client,
    /// with the handler's log level: what each call needs is in its own `_meta`.
    pub(super) fn stateless(peer: Peer<RoleServer>, log_level: Arc<AtomicU8>) -> Self {
        Session {
            peer,
            era: Era::Stateless,
            log_level,
            asks_nothing: false,
            follows_tasks: false,
            calls: Mutex::default(),
        }
    }

    /// Marks the call `id` as running with `token` until the guard is dropped, so that a
    /// `notifications/cancelled` naming it cancels it. Called before the call's task starts, so
    /// that a cancellation read right after the call finds it.
    pub(super) fn register(
        self: &Arc<Self>,
        id: RequestId,
        token: &CancellationToken,
    ) -> Registered {
        let mut table = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        table.insert(id.clone(), token.clone());
        drop(table);
        Registered {
            session: Arc::clone(self),
            id,
        }
    }

    /// Cancels the call a `notifications/cancelled` message (`body`) names, if it is one of
    /// this session's answered outside the service loop.
    pub(super) fn cancel_named_in(&self, body: &[u8]) {
        #[derive(Deserialize)]
        struct Cancelled {
            method: String,
            params: Params,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Params {
            request_id: RequestId,
        }
        let Ok(cancelled) = serde_json::from_slice::<Cancelled>(body) else {
            return;
        };
        if cancelled.method != "notifications/cancelled" {
            return;
        }
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(token) = calls.get(&cancelled.params.request_id) {
            token.cancel();
        }
    }

    /// Cancels every call of this session answered outside the service loop.
    pub(super) fn cancel_all(&self) {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.values().for_each(CancellationToken::cancel);
    }
}

/// A call registered with its session while it runs (see [`Session::register`]).
pub(super) struct Registered {
    session: Arc<Session>,
    id: RequestId,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut table = self.session.calls.lock().unwrap_or_else(|e| e.into_inner());
        table.remove(&self.id);
    }
}

/// Whether `body` may be a `notifications/cancelled` message (a quick look before parsing it).
pub(super) fn may_cancel(body: &[u8]) -> bool {
    const NEEDLE: &[u8] = b"notifications/cancelled";
    body.windows(NEEDLE.len()).any(|window| window == NEEDLE)
}

/// The session of a stdio server's one client: decided once, when the handler sees
/// `notifications/initialized` (a legacy session whose plain calls the transport answers, or
/// none) or the first request of a stateless (2026-07-28) client (whose plain calls the
/// transport answers).
#[derive(Default)]
pub(crate) struct StdioSession(SetOnce<Option<Arc<Session>>>);

impl StdioSession {
    /// Registers the client that finished `initialize` (see [`Session::of`]).
    pub(super) fn set(&self, log_level: &Arc<AtomicU8>, context: &NotificationContext<RoleServer>) {
        let session = Session::of(log_level, context).map(Arc::new);
        let _ = self.0.set(session);
    }

    /// Whether the client was registered (or found to be one whose calls the SDK answers).
    pub(super) fn is_decided(&self) -> bool {
        self.0.initialized()
    }

    /// Registers a stateless client at its first request, whose context names the service
    /// loop's client (unless a client was registered before: the first decision stands).
    pub(super) fn set_stateless(&self, log_level: &Arc<AtomicU8>, peer: &Peer<RoleServer>) {
        let session = Session::stateless(peer.clone(), log_level.clone());
        let _ = self.0.set(Some(Arc::new(session)));
    }

    pub(super) fn get(&self) -> Option<&Arc<Session>> {
        self.0.get().and_then(Option::as_ref)
    }

    /// Waits until the handler has seen `notifications/initialized` and decided.
    pub(super) async fn decided(&self) {
        self.0.wait().await;
    }
}

impl Sessions {
    /// Registers the session of an HTTP client that finished `initialize`, with its handler's
    /// log level (a stdio session, which has no id, is not registered here). Sessions that
    /// ended are dropped as it does.
    ///
    /// Gives the session's id when it was added: its handler then holds a `Leave` (`handler.rs`), which
    /// removes it when the session ends.
    pub(crate) fn add(
        &self,
        log_level: &Arc<AtomicU8>,
        context: &NotificationContext<RoleServer>,
    ) -> Option<Box<str>> {
        let id = context
            .extensions
            .get::<Parts>()
            .and_then(|parts| parts.headers.get(SESSION_HEADER))
            .and_then(|value| value.to_str().ok())?;
        let session = Session::of(log_level, context)?;
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, session| !session.peer.is_transport_closed());
        map.insert(id.into(), Arc::new(session));
        Some(id.into())
    }

    /// How many sessions are in the table.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub(super) fn get(&self, id: &str) -> Option<Arc<Session>> {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        map.get(id).cloned()
    }

    pub(super) fn remove(&self, id: &str) {
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        map.remove(id);
    }
}
