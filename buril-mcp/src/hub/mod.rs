//! The hub: other MCP servers' tools served as this binary's own (feature `hub`).
//!
//! An external server (a program started over stdio, or a Streamable HTTP endpoint) is added
//! to the hub of a [`Registry`]; the hub connects to it through rmcp's client, lists its tools
//! and provides them to the registry under a prefix (`everything` + `get-sum` is
//! `everything_get_sum`), where every front end sees them as it sees a linked tool: `list`,
//! `describe`, `call`, the MCP server (whose clients get `notifications/tools/list_changed`),
//! agent teams' tool views, policies and layers. A call is validated here against the tool's
//! schema, then forwarded under the tool's own name; its progress, log messages and questions
//! come back to its caller, its cancellation goes on to the server.
//!
//! The hub follows a server that changes its tools (`list_changed`) and one that goes away:
//! its tools answer `{"ok": false, "type": "unavailable", …}` with the reason while it is
//! connected again with backoff. A process the hub started ends when this process ends, however
//! it ends (`process.rs`).
//!
//! A third party's tools are off until enabled: by the server's own `enable` setting, or by a
//! rule (`--enable family:everything`, an `enable` pattern of the policy).
//!
//! ```no_run
//! use buril::hub::{External, Hub};
//!
//! let hub = Hub::of(buril::registry());
//! hub.add(External::command("everything", "npx", ["-y", "@modelcontextprotocol/server-everything"]).enable(true))
//!     .expect("a valid description");
//! hub.wait_settled(std::time::Duration::from_secs(30));
//! let outcome = buril::Dispatcher::global().invoke(
//!     "everything_get_sum",
//!     serde_json::json!({"a": 1, "b": 2}),
//!     buril::CallOptions::default(),
//! );
//! println!("{}", outcome.into_envelope());
//! ```

mod client;
mod connection;
pub mod editor;
mod external;
mod forward;
mod listing;
mod names;
mod process;
pub mod tools;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use self::connection::Connection;
pub use self::connection::{ServerStatus, Status};
pub(crate) use self::external::from_tables;
pub use self::external::{External, ExternalError, ExternalTable, Revision, Transport};
#[doc(hidden)]
pub use self::external::{from_config_file, from_flag};
use buril_core::Registry;

/// The external servers of one registry (see the [module](self)).
pub struct Hub {
    registry: &'static Registry,
    /// The runtime that keeps the connections (IO and timers), started with the first server.
    runtime: OnceLock<tokio::runtime::Runtime>,
    servers: Mutex<BTreeMap<String, Arc<Connection>>>,
}

static HUBS: Mutex<Vec<Arc<Hub>>> = Mutex::new(Vec::new());

impl Hub {
    /// The hub of `registry` (one per registry, made on first use).
    pub fn of(registry: &'static Registry) -> Arc<Hub> {
        let mut hubs = HUBS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hub) = hubs.iter().find(|hub| std::ptr::eq(hub.registry, registry)) {
            return Arc::clone(hub);
        }
        let hub = Arc::new(Hub {
            registry,
            runtime: OnceLock::new(),
            servers: Mutex::new(BTreeMap::new()),
        });
        hubs.push(Arc::clone(&hub));
        hub
    }

    /// The registry whose tools the servers' tools join.
    pub fn registry(&self) -> &'static Registry {
        self.registry
    }

    fn servers(&self) -> MutexGuard<'_, BTreeMap<String, Arc<Connection>>> {
        self.servers.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("buril-hub")
                .enable_all()
                .build()
                .expect("the hub's runtime could not be started")
        })
    }

    /// Adds `external` and starts connecting to it (the call returns at once; see
    /// [`settled`](Self::settled)). Fails when the description is not valid or a server of
    /// that name is here already.
    pub fn add(&self, external: External) -> Result<(), ExternalError> {
        self.add_as(external, false)
    }

    fn add_as(&self, external: External, synced: bool) -> Result<(), ExternalError> {
        external.check()?;
        let mut servers = self.servers();
        if servers.contains_key(external.name()) {
            return Err(ExternalError {
                server: external.name().to_owned(),
                reason: "a server of that name is registered already; unregister it first"
                    .to_owned(),
            });
        }
        if let Some(other) = servers.values().find(|other| {
            !other.external.prefix().is_empty() && other.external.prefix() == external.prefix()
        }) {
            return Err(ExternalError {
                server: external.name().to_owned(),
                reason: format!(
                    "its prefix `{}` is the prefix of `{}` already: give it another",
                    external.prefix(),
                    other.external.name()
                ),
            });
        }
        let connection = Connection::new(external);
        connection
            .synced
            .store(synced, std::sync::atomic::Ordering::Relaxed);
        servers.insert(
            connection.external.name().to_owned(),
            Arc::clone(&connection),
        );
        drop(servers);
        self.runtime().spawn(connection.run(self.registry));
        Ok(())
    }

    /// Stops the server named `name`, withdraws its tools and ends its process; answers whether
    /// there was one.
    pub fn remove(&self, name: &str) -> bool {
        let Some(connection) = self.servers().remove(name) else {
            return false;
        };
        connection.stop.cancel();
        // Its tools leave now, not when its task has wound down.
        self.registry.withdraw(name);
        true
    }

    /// Connects to the server named `name` again at once, as new: its connection (and process)
    /// ended, its tools withdrawn until it has listed them again, its backoff forgotten.
    /// Answers whether there was one.
    pub fn reconnect(&self, name: &str) -> bool {
        let Some((external, synced)) = self.servers().get(name).map(|connection| {
            (
                connection.external.clone(),
                connection.synced.load(std::sync::atomic::Ordering::Relaxed),
            )
        }) else {
            return false;
        };
        self.remove(name);
        // Its name and prefix were free a moment ago; another add in between would have said so.
        self.add_as(external, synced).is_ok()
    }

    /// Makes the servers of a configuration these: adds the new ones, removes the ones it added
    /// before that are not among them, and starts again each whose description changed (a
    /// config file read again). Servers added otherwise ([`add`](Self::add): a host, the
    /// `mcp_register_external` tool) are left as they are, and a name one of them has is not
    /// taken. Answers what could not be added.
    pub fn sync(&self, externals: Vec<External>) -> Vec<ExternalError> {
        let wanted: BTreeMap<String, External> = externals
            .into_iter()
            .map(|external| (external.name().to_owned(), external))
            .collect();
        let current: Vec<(String, External)> = self
            .servers()
            .iter()
            .filter(|(_, connection)| connection.synced.load(std::sync::atomic::Ordering::Relaxed))
            .map(|(name, connection)| (name.clone(), connection.external.clone()))
            .collect();
        for (name, external) in &current {
            if wanted.get(name) != Some(external) {
                self.remove(name);
            }
        }
        let mut errors = Vec::new();
        for (name, external) in wanted {
            if current
                .iter()
                .any(|(had, same)| *had == name && *same == external)
            {
                continue;
            }
            if let Err(error) = self.add_as(external, true) {
                errors.push(error);
            }
        }
        errors
    }

    /// What the hub knows of each server, by name.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers()
            .values()
            .map(|connection| connection.status())
            .collect()
    }

    /// What the hub knows of the server named `name`.
    pub fn status(&self, name: &str) -> Option<ServerStatus> {
        self.servers()
            .get(name)
            .map(|connection| connection.status())
    }

    /// Waits until every server's first attempt to connect has ended (connected, or failed),
    /// or `timeout` has passed: what a one-shot command (`call`, `list`) waits for before it
    /// looks its tools up.
    pub async fn settled(&self, timeout: Duration) {
        let waits: Vec<_> = self
            .servers()
            .values()
            .map(|connection| connection.settled.clone())
            .collect();
        let all = async {
            for settled in waits {
                settled.cancelled().await;
            }
        };
        let _ = tokio::time::timeout(timeout, all).await;
    }

    /// [`settled`](Self::settled), blocking the calling thread (not an async task's).
    pub fn wait_settled(&self, timeout: Duration) {
        let runtime = self.runtime().handle().clone();
        let wait = async { self.settled(timeout).await };
        match tokio::runtime::Handle::try_current() {
            Ok(_) => tokio::task::block_in_place(|| runtime.block_on(wait)),
            Err(_) => runtime.block_on(wait),
        }
    }
}

/// A tool of an external server, as it lists it ([`list_tools`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ListedTool {
    /// Its name on the server.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its input schema, as the server wrote it.
    pub input_schema: serde_json::Value,
    /// Its output schema as the hub serves it: the server's, or, for a tool without one, the
    /// schema of content blocks (`{"content": [block, …]}`), which its data is here.
    pub output_schema: serde_json::Value,
    /// Its annotations and title.
    pub annotations: buril_core::Annotations,
}

/// Connects to `external`, lists every page of its tools and disconnects (a process it started
/// stopped): what bindings for any server are generated from (`codegen --from-server`). Waits
/// at most `timeout`. Blocks the calling thread: not for async code.
pub fn list_tools(
    external: &External,
    timeout: Duration,
) -> Result<Vec<ListedTool>, ExternalError> {
    external.check()?;
    let error = |reason: String| ExternalError {
        server: external.name().to_owned(),
        reason,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| error(e.to_string()))?;
    let listed = runtime
        .block_on(async {
            tokio::time::timeout(timeout, Connection::list_once(external.clone())).await
        })
        .map_err(|_| error(format!("no answer within {} s", timeout.as_secs())))?
        .map_err(error)?;
    Ok(listed
        .into_iter()
        .map(|tool| ListedTool {
            name: tool.name.to_string(),
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            input_schema: serde_json::Value::Object((*tool.input_schema).clone()),
            output_schema: match &tool.output_schema {
                Some(schema) => serde_json::Value::Object((**schema).clone()),
                None => (*buril_core::frontend::blocks_output().0).clone(),
            },
            annotations: listing::annotations(&tool),
        })
        .collect())
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("servers", &self.servers().keys().collect::<Vec<_>>())
            .finish()
    }
}
