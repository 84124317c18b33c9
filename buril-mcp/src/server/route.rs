//! A call's route: how one `tools/call` is answered, decided once, in one type that every
//! transport and the handler read.
//!
//! A [`Route`] says three things of a call:
//!
//! - **its plan** ([`CallPlan`]), from the tool it names and whether its client follows tasks:
//!
//!   | the tool | a client that follows tasks | one that does not |
//!   | --- | --- | --- |
//!   | not a task tool (or no such tool: admission answers) | `Plain` | `Plain` |
//!   | `task` (optional) | `Task` | `Plain`: the call waits for the work |
//!   | `task = "required"` | `Task` | `Refused` (`-32021`, naming the extension); `Plain` when the tool is disabled, so that it answers as unknown |
//!   | `task = "handle"` | `Task` | `Handle`: the task's handle is the call's answer |
//!   | `task = "deferred"` | `Deferred` | `Plain` |
//!
//! - **its client** ([`Client`]: the era, whether it follows tasks, what it can answer), read
//!   from the request once;
//! - **its lane** ([`Lane`]): answered by the transport that read it (stdio's frame reader,
//!   the HTTP connection: `fast_path/`), or through the SDK's service loop. The transport
//!   takes a call only when it is `Plain` and needs nothing of the loop (see
//!   [`Route::of_frame`]); with the fast paths off (`ServerOptions::fast_paths(false)`,
//!   `BURIL_FAST_PATHS=off`) no transport asks for a route and every call takes the loop.
//!
//! A transport that answers a call hands its route to the handler in the request's context;
//! a call that came through the loop gets its route there ([`Route::of_request`]). Where the
//! call then runs (the main thread, the blocking pool, a task) is the dispatcher's placement,
//! read from the tool's attribute alone (`buril_core`'s `dispatch/place.rs`).

use std::sync::atomic::Ordering;

use rmcp::model::{CallToolRequestParams, RequestMetaObject};
use rmcp::service::{RequestContext, RoleServer};

use super::era::{Client, Era, STATELESS_KEYS};
use super::http_sessions::Session;
use super::input::Abilities;
use super::state::ServerState;
use buril_core::TaskSupport;

/// The prefix of the keys MCP reserves in `_meta`.
const PROTOCOL_KEYS: &str = "io.modelcontextprotocol/";

/// How a `tools/call` is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallPlan {
    /// Run now; the call's result when it ends (or an `input_required` round).
    Plain,
    /// A task the client follows (MCP's tasks extension): its `CreateTaskResult` at once.
    Task,
    /// A task the client cannot follow: its handle at once, as the call's result, to follow
    /// with the `task_*` tools.
    Handle,
    /// Refused: the tool is always a task, and the client cannot follow one.
    Refused,
    /// A plain call until the tool starts its task (`Context::start_task`), then a task the
    /// client follows.
    Deferred,
}

impl CallPlan {
    /// The plan of a call of `name` from a client that follows tasks or not.
    fn of(state: &ServerState, name: &str, follows_tasks: bool) -> CallPlan {
        let Some(found) = state.registry.lookup(name) else {
            return CallPlan::Plain;
        };
        match found.tool.meta().task {
            TaskSupport::Never => CallPlan::Plain,
            TaskSupport::Deferred if follows_tasks => CallPlan::Deferred,
            TaskSupport::Deferred => CallPlan::Plain,
            _ if follows_tasks => CallPlan::Task,
            TaskSupport::Handle => CallPlan::Handle,
            TaskSupport::Required if state.dispatcher.allows(&found.tool) => CallPlan::Refused,
            _ => CallPlan::Plain,
        }
    }
}

/// Who answers a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// The transport that read it, on a task of its own (`fast_path/`).
    Transport,
    /// The SDK's service loop.
    ServiceLoop,
}

/// How one `tools/call` is answered (see the module's documentation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route {
    pub(crate) plan: CallPlan,
    pub(crate) client: Client,
    pub(crate) lane: Lane,
}

impl Route {
    /// The route of a call of `name` with `meta`, read by a transport's fast parser for
    /// `session` (`known`: the client the parser read from the lifecycle entries of `meta`).
    ///
    /// The transport answers it ([`Lane::Transport`]) when its plan is [`CallPlan::Plain`] and
    /// it can send its client nothing before its answer: no progress token, no log messages
    /// asked for (by the session or, under 2026-07-28, by the call). A legacy session's call
    /// also needs a client that can answer no questions mid-call (they would go through the
    /// service loop) and no per-request protocol fields. A stateless call needs its complete
    /// lifecycle `_meta` (a version of that era and the client's capabilities), which says
    /// whether its client follows tasks; its questions end it with an `input_required`
    /// result, which is its answer. Anything else takes the service loop, which reads the
    /// call again and routes it with [`Route::of_request`].
    pub(crate) fn of_frame(
        state: &ServerState,
        session: &Session,
        name: &str,
        meta: Option<&RequestMetaObject>,
        known: Option<Client>,
    ) -> Route {
        let loop_route = Route {
            plan: CallPlan::Plain,
            client: Client::new(None, None),
            lane: Lane::ServiceLoop,
        };
        if session.log_level.load(Ordering::Relaxed) != 0
            || meta.is_some_and(|meta| meta.get_progress_token().is_some())
        {
            return loop_route;
        }
        let client = match session.era {
            Era::Sessions => {
                let protocol =
                    meta.is_some_and(|meta| meta.keys().any(|key| key.starts_with(PROTOCOL_KEYS)));
                if protocol || !session.asks_nothing {
                    return loop_route;
                }
                Client {
                    era: Some(Era::Sessions),
                    follows_tasks: session.follows_tasks,
                    abilities: Abilities::default(),
                }
            }
            Era::Stateless => match meta.and_then(|meta| stateless_client(meta, known)) {
                Some(client) => client,
                None => return loop_route,
            },
        };
        let plan = CallPlan::of(state, name, client.follows_tasks);
        Route {
            plan,
            client,
            lane: if plan == CallPlan::Plain {
                Lane::Transport
            } else {
                Lane::ServiceLoop
            },
        }
    }

    /// The route of a call the handler got: the one its transport left in the context when
    /// the transport answers it, else worked out from the request (a call of the service
    /// loop).
    pub(crate) fn of_request(
        state: &ServerState,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Route {
        if let Some(route) = context.extensions.get::<Route>() {
            return *route;
        }
        let client = Client::of(context);
        Route {
            plan: CallPlan::of(state, request.name.as_ref(), client.follows_tasks),
            client,
            lane: Lane::ServiceLoop,
        }
    }

    /// Whether the transport that read the call answers it.
    pub(crate) fn by_transport(&self) -> bool {
        self.lane == Lane::Transport
    }
}

/// A stateless call's client, if its `_meta` is one a transport takes: a complete lifecycle
/// `_meta` of a stateless version, and no other protocol key. `known` is the client the fast
/// parser read from the same entries (`fast_path/parse.rs`): `None` when the version or the
/// capabilities are missing or do not decode.
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
