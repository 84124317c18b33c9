//! The Streamable HTTP sessions whose plain calls `http_call.rs` may answer on their
//! connection: registered by the handler when a client says `notifications/initialized`,
//! read by the HTTP endpoint. Kept apart from both so that the server's state, which holds
//! the table, names neither.

use std::collections::HashMap;
use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex, RwLock};

use hyper::http::request::Parts;
use rmcp::model::{ProtocolVersion, RequestId};
use rmcp::service::{NotificationContext, Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use super::input::Abilities;

/// The header naming a request's session.
pub(super) const SESSION_HEADER: &str = "mcp-session-id";

/// The sessions whose calls may be answered on their connection, by session id.
#[derive(Default)]
pub(crate) struct Sessions {
    map: RwLock<HashMap<Box<str>, Arc<Session>>>,
}

/// A session's client and log level, and its calls answered on their connection (to cancel
/// them).
pub(super) struct Session {
    pub peer: Peer<RoleServer>,
    /// The session handler's log level (`logging/setLevel`), shared with it.
    pub log_level: Arc<AtomicU8>,
    /// Whether its client can answer nothing the server could ask mid-call.
    pub asks_nothing: bool,
    pub calls: Mutex<HashMap<RequestId, CancellationToken>>,
}

impl Sessions {
    /// Registers the session of an HTTP client that finished `initialize`, with its handler's
    /// log level (a stdio session, which has no id, is not registered). Sessions that ended
    /// are dropped as it does.
    pub(crate) fn add(&self, log_level: &Arc<AtomicU8>, context: &NotificationContext<RoleServer>) {
        let Some(id) = context
            .extensions
            .get::<Parts>()
            .and_then(|parts| parts.headers.get(SESSION_HEADER))
            .and_then(|value| value.to_str().ok())
        else {
            return;
        };
        let info = context.peer.peer_info();
        let asks_nothing = !Abilities::of(info.as_deref().map(|info| &info.capabilities)).any();
        // The lifecycle whose results the SDK answers in their legacy shape (`http_call.rs`);
        // a session that said `initialized` was made by `initialize`, which negotiates one of
        // its versions.
        let legacy = info.as_deref().is_some_and(|info| {
            info.protocol_version.as_str() < ProtocolVersion::V_2026_07_28.as_str()
        });
        if !legacy {
            return;
        }
        let session = Arc::new(Session {
            peer: context.peer.clone(),
            log_level: log_level.clone(),
            asks_nothing,
            calls: Mutex::default(),
        });
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, session| !session.peer.is_transport_closed());
        map.insert(id.into(), session);
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
