//! One external server's life in the hub: connect (start its process, or reach its URL), list
//! every page of its tools and provide them to the registry, follow its `list_changed`, and
//! when it goes away, make its tools answer `unavailable` with the reason and connect again
//! with backoff, until the hub is told to stop it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{
    ClientLifecycleMode, Peer, RoleClient, RunningService, serve_client_with_lifecycle,
};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::client::{Calls, HubClient};
use super::external::{External, Revision, Transport};
use super::forward::Link;
use super::listing::{self, Implementation};
use super::process;
use buril_core::Registry;
use buril_core::provided::Provider;

/// The first wait before connecting again; it doubles with each failed attempt.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);

/// The longest wait between attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How often a connected server is pinged, so that one that went away while nobody called it
/// (a Streamable HTTP server, which holds no connection open between requests) is noticed.
const HEARTBEAT: Duration = Duration::from_secs(2);

/// How long a ping may take before the server counts as gone.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// Where a server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Status {
    /// The first attempt is under way.
    Connecting,
    /// Connected; its tools are served.
    Connected,
    /// It was connected and went away (its process exited, its connection dropped); attempts
    /// to connect again are under way, and its tools answer `unavailable` meanwhile.
    Reconnecting,
    /// It has never been connected: every attempt so far failed, and attempts go on with
    /// backoff.
    Failed,
}

/// What the hub knows of one external server (`mcp_list_servers`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ServerStatus {
    /// Its name.
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The command line it runs, or its URL.
    pub target: String,
    /// The process the hub started for it, while it runs (stdio).
    pub pid: Option<u32>,
    /// What its tools' names are prefixed with here.
    pub prefix: String,
    /// Where it is in its life.
    pub status: Status,
    /// Attempts to connect that failed since it was last connected.
    pub attempts: u32,
    /// Why the last attempt failed, or why it went away.
    pub last_error: Option<String>,
    /// The revision of MCP it speaks, once connected.
    pub protocol: Option<String>,
    /// How many of its tools are served.
    pub tools: usize,
    /// How many calls were sent on to it (a call refused here, for invalid input say, is not).
    pub forwarded: u64,
    /// Its tools left out, each with why (a name that cannot be mapped or clashes, a schema
    /// that does not compile).
    pub refused: Vec<String>,
    /// When its tools were last listed (ISO 8601).
    pub last_refresh: Option<String>,
    /// Whether its tools are enabled by its own setting (rules may enable them too).
    pub enabled: bool,
}

/// One external server, and the task that keeps it connected.
pub(crate) struct Connection {
    pub(crate) external: External,
    /// Whether it came from [`Hub::sync`](super::Hub::sync) (a config file), which may remove
    /// it again, rather than from `add` (a host, a tool).
    pub(crate) synced: std::sync::atomic::AtomicBool,
    pub(crate) provider: Arc<Provider>,
    pub(crate) link: Arc<Link>,
    state: Mutex<ServerStatus>,
    /// Its tools that implement tools declared here (`#[tool(editor)]`), by name, as last
    /// listed; empty while it is not connected. Only a server that
    /// [`implements`](External::implements) declarations has any.
    pub(crate) implementations: std::sync::RwLock<HashMap<String, Implementation>>,
    /// Counted up each time its tools are listed and each time it goes away, for the calls
    /// that wait for it to come back.
    pub(crate) changes: tokio::sync::watch::Sender<u64>,
    pub(crate) stop: CancellationToken,
    /// Cancelled once the first attempt has ended, connected or not.
    pub(crate) settled: CancellationToken,
}

impl Connection {
    pub(crate) fn new(external: External) -> Arc<Connection> {
        let provider = Provider::new(external.name());
        provider.set_enabled(external.enabled());
        let (transport, target) = match external.transport() {
            Transport::Stdio { command, args, .. } => (
                "stdio",
                std::iter::once(command.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            Transport::Http { url, .. } => ("http", url.clone()),
        };
        let status = ServerStatus {
            name: external.name().to_owned(),
            transport: transport.to_owned(),
            target,
            pid: None,
            prefix: external.prefix(),
            status: Status::Connecting,
            attempts: 0,
            last_error: None,
            protocol: None,
            tools: 0,
            forwarded: 0,
            refused: Vec::new(),
            last_refresh: None,
            enabled: external.enabled(),
        };
        Arc::new(Connection {
            synced: std::sync::atomic::AtomicBool::new(false),
            link: Arc::new(Link {
                server: external.name().to_owned(),
                peer: Default::default(),
                calls: Arc::new(Calls::default()),
                timeout: external.call_timeout(),
                forwarded: Default::default(),
                runtime: Default::default(),
            }),
            external,
            provider,
            state: Mutex::new(status),
            implementations: Default::default(),
            changes: tokio::sync::watch::Sender::new(0),
            stop: CancellationToken::new(),
            settled: CancellationToken::new(),
        })
    }

    fn state(&self) -> MutexGuard<'_, ServerStatus> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn status(&self) -> ServerStatus {
        let mut status = self.state().clone();
        status.enabled = self.provider.is_enabled();
        status.forwarded = self
            .link
            .forwarded
            .load(std::sync::atomic::Ordering::Relaxed);
        status
    }

    /// Keeps the server connected until [`stop`](Self::stop) is cancelled; then withdraws its
    /// tools.
    pub(crate) async fn run(self: Arc<Self>, registry: &'static Registry) {
        let _ = self.link.runtime.set(tokio::runtime::Handle::current());
        let mut ever = false;
        let mut failures: u32 = 0;
        loop {
            let attempt = tokio::select! {
                attempt = self.connect() => attempt,
                () = self.stop.cancelled() => break,
            };
            match attempt {
                Ok(session) => {
                    ever = true;
                    failures = 0;
                    let reason = self.serve(session, registry).await;
                    // Not connected any more before anything it listed goes: a call that reads
                    // the status and then the implementations never sees them empty while
                    // `Connected`.
                    if reason.is_some() {
                        self.state().status = Status::Reconnecting;
                    }
                    *self.link.peer.write().unwrap_or_else(|e| e.into_inner()) = None;
                    self.implementations
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .clear();
                    self.changes.send_modify(|generation| *generation += 1);
                    self.state().pid = None;
                    let Some(reason) = reason else { break };
                    tracing::warn!(target: "buril::hub", server = %self.external.name(), "{reason}");
                    registry.set_unavailable(&self.provider, Some(reason.clone()));
                    let mut state = self.state();
                    state.status = Status::Reconnecting;
                    state.last_error = Some(reason);
                }
                Err(reason) => {
                    self.state().pid = None;
                    failures = failures.saturating_add(1);
                    tracing::warn!(target: "buril::hub", server = %self.external.name(), "{reason}");
                    if ever {
                        registry.set_unavailable(&self.provider, Some(reason.clone()));
                    }
                    let mut state = self.state();
                    state.status = if ever {
                        Status::Reconnecting
                    } else {
                        Status::Failed
                    };
                    state.attempts = failures;
                    state.last_error = Some(reason);
                }
            }
            self.settled.cancel();
            let backoff = FIRST_BACKOFF
                .saturating_mul(1 << failures.min(10))
                .min(MAX_BACKOFF);
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                () = self.stop.cancelled() => break,
            }
        }
        registry.withdraw_exact(&self.provider);
        self.settled.cancel();
    }

    /// Connects: starts the process or reaches the URL, and speaks the handshake.
    async fn connect(&self) -> Result<Session, String> {
        let name = self.external.name();
        let client = HubClient {
            server: name.to_owned(),
            calls: Arc::clone(&self.link.calls),
        };
        let lifecycle = match self.external.protocol() {
            Revision::V2025_11_25 => ClientLifecycleMode::Initialize,
            Revision::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            _ => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        };
        match self.external.transport() {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let started = process::start(name, command, args, env, cwd.as_ref())
                    .map_err(|error| format!("`{command}` could not be started: {error}"))?;
                let words = Words {
                    stderr: Arc::clone(&started.stderr),
                    noise: Arc::clone(&started.noise),
                };
                self.state().pid = started.child.id();
                let handshake = serve_client_with_lifecycle(client, started.transport, lifecycle);
                let failed =
                    match tokio::time::timeout(self.external.handshake_limit(), handshake).await {
                        Ok(Ok(service)) => {
                            return Ok(Session {
                                service,
                                child: Some(started.child),
                                words: Some(words),
                            });
                        }
                        Ok(Err(error)) => error.to_string(),
                        Err(_) => format!(
                            "no answer to the handshake within {} s",
                            self.external.handshake_limit().as_secs_f64()
                        ),
                    };
                // What it said before it went, read to the end first.
                drop(started.child);
                let _ = tokio::time::timeout(Duration::from_secs(1), started.stderr_read).await;
                Err(format!(
                    "`{command}` did not speak MCP: {failed}{}",
                    words.said()
                ))
            }
            Transport::Http {
                url,
                headers,
                bearer_env,
            } => {
                let transport = http_transport(url, headers, bearer_env.as_deref())?;
                let handshake = serve_client_with_lifecycle(client, transport, lifecycle);
                let service = tokio::time::timeout(self.external.handshake_limit(), handshake)
                    .await
                    .map_err(|_| {
                        format!(
                            "{url} did not answer the handshake within {} s",
                            self.external.handshake_limit().as_secs_f64()
                        )
                    })?
                    .map_err(|error| format!("{url} could not be reached: {error}"))?;
                Ok(Session {
                    service,
                    child: None,
                    words: None,
                })
            }
        }
    }

    /// Serves a connected session's tools until it ends; answers why it ended, or `None` when
    /// the hub stopped it.
    async fn serve(&self, session: Session, registry: &'static Registry) -> Option<String> {
        let Session {
            service,
            child,
            words,
        } = session;
        let said = || words.as_ref().map(Words::said).unwrap_or_default();
        let peer = service.peer().clone();
        let info = peer.peer_info();
        let protocol = info.as_ref().map(|info| info.protocol_version.to_string());
        let tasks = info.as_ref().is_some_and(|info| {
            serde_json::to_value(&info.capabilities)
                .ok()
                .and_then(|capabilities| {
                    capabilities
                        .pointer("/extensions/io.modelcontextprotocol~1tasks")
                        .cloned()
                })
                .is_some()
        });
        *self.link.peer.write().unwrap_or_else(|e| e.into_inner()) = Some(peer.clone());
        let stateless = protocol.as_deref() == Some(ProtocolVersion::V_2026_07_28.as_str());
        // Under 2026-07-28 notifications come on a subscription the client opens.
        let mut subscription = if stateless {
            peer.listen(SubscriptionFilter::builder().tools_list_changed().build())
                .await
                .ok()
        } else {
            None
        };
        if !stateless
            && info
                .as_ref()
                .is_some_and(|info| info.capabilities.logging.is_some())
        {
            // Every message: each call's caller has its own level, applied here.
            #[allow(deprecated)]
            let _ = peer
                .set_level(rmcp::model::SetLevelRequestParams::new(
                    rmcp::model::LoggingLevel::Debug,
                ))
                .await;
        }
        self.state().protocol = protocol;
        if let Err(reason) = self.refresh(&peer, registry, tasks).await {
            let _ = service.cancel().await;
            return Some(reason);
        }
        registry.set_unavailable(&self.provider, None);
        {
            let mut state = self.state();
            state.status = Status::Connected;
            state.attempts = 0;
            state.last_error = None;
        }
        self.settled.cancel();
        let cancel = service.cancellation_token();
        let waiting = service.waiting();
        tokio::pin!(waiting);
        let calls = Arc::clone(&self.link.calls);
        let mut heartbeat =
            tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let gone = |why: String| {
            Some(format!(
                "the external server `{}` went away ({why}){}",
                self.external.name(),
                said()
            ))
        };
        loop {
            tokio::select! {
                _ = heartbeat.tick() => {
                    let ping = peer.send_request(rmcp::model::ClientRequest::PingRequest(Default::default()));
                    match tokio::time::timeout(PING_TIMEOUT, ping).await {
                        // An answer, even an error (a server without `ping`), says it is there.
                        Ok(Ok(_)) | Ok(Err(rmcp::ServiceError::McpError(_))) => {}
                        Ok(Err(error)) => {
                            cancel.cancel();
                            return gone(format!("a ping failed: {error}"));
                        }
                        Err(_) => {
                            cancel.cancel();
                            return gone(format!("no answer to a ping within {} s", PING_TIMEOUT.as_secs()));
                        }
                    }
                }
                () = calls.lost.notified() => {
                    // Said by a call; checked, since it may be of a connection before this one.
                    let ping = peer.send_request(rmcp::model::ClientRequest::PingRequest(Default::default()));
                    if !matches!(
                        tokio::time::timeout(PING_TIMEOUT, ping).await,
                        Ok(Ok(_)) | Ok(Err(rmcp::ServiceError::McpError(_)))
                    ) {
                        cancel.cancel();
                        return gone("a call found its connection closed".to_owned());
                    }
                }
                ended = &mut waiting => {
                    let how = match ended {
                        Ok(reason) => format!("{reason:?}").to_lowercase(),
                        Err(error) => error.to_string(),
                    };
                    return Some(format!(
                        "the connection to the external server `{}` ended ({how}){}",
                        self.external.name(),
                        said()
                    ));
                }
                () = calls.tools_changed.notified() => {
                    if let Err(reason) = self.refresh(&peer, registry, tasks).await {
                        tracing::warn!(target: "buril::hub", server = %self.external.name(), "{reason}");
                    }
                }
                notification = next(&mut subscription) => {
                    match notification {
                        Some(ServerNotification::ToolListChangedNotification(_)) => {
                            if let Err(reason) = self.refresh(&peer, registry, tasks).await {
                                tracing::warn!(target: "buril::hub", server = %self.external.name(), "{reason}");
                            }
                        }
                        Some(_) => {}
                        // The subscription ended: follow the session alone.
                        None => subscription = None,
                    }
                }
                () = self.stop.cancelled() => {
                    cancel.cancel();
                    let _ = tokio::time::timeout(Duration::from_secs(5), &mut waiting).await;
                    // The process stops (its group), without the watchdog's signals.
                    drop(child);
                    return None;
                }
            }
        }
    }

    /// Lists every page of the server's tools and provides them.
    async fn refresh(
        &self,
        peer: &Peer<RoleClient>,
        registry: &'static Registry,
        tasks: bool,
    ) -> Result<(), String> {
        let listed = peer.list_all_tools().await.map_err(|error| {
            format!(
                "the tools of the external server `{}` could not be listed: {error}",
                self.external.name()
            )
        })?;
        let (listed, implementations) = if self.external.implements() {
            listing::implementations(listed, registry)
        } else {
            (listed, HashMap::new())
        };
        let (tools, mut refused) =
            listing::provided_tools(listed, &self.external.prefix(), &self.link, tasks);
        if self.stop.is_cancelled() {
            return Ok(());
        }
        *self
            .implementations
            .write()
            .unwrap_or_else(|e| e.into_inner()) = implementations;
        let clashes = registry.provide(&self.provider, tools);
        self.changes.send_modify(|generation| *generation += 1);
        refused.extend(clashes.iter().map(ToString::to_string));
        for reason in &refused {
            tracing::warn!(target: "buril::hub", server = %self.external.name(), "{reason}");
        }
        let served = registry.tools_of(self.external.name()).len();
        let mut state = self.state();
        state.tools = served;
        state.refused = refused;
        state.last_refresh = Some(buril_core::tasks::iso(buril_core::tasks::now_ms()));
        Ok(())
    }

    /// Connects to `external`, lists every page of its tools, and disconnects (its process
    /// stopped).
    pub(crate) async fn list_once(external: External) -> Result<Vec<rmcp::model::Tool>, String> {
        let connection = Connection::new(external);
        let Session { service, child, .. } = connection.connect().await?;
        let listed = service.peer().list_all_tools().await.map_err(|error| {
            format!(
                "the tools of `{}` could not be listed: {error}",
                connection.external.name()
            )
        });
        let _ = service.cancel().await;
        drop(child);
        listed
    }
}

/// The next notification of a subscription, or never when there is none.
async fn next(
    subscription: &mut Option<rmcp::service::Subscription>,
) -> Option<ServerNotification> {
    match subscription {
        Some(subscription) => subscription.next().await.ok().flatten(),
        None => std::future::pending().await,
    }
}

/// A connected session, and what stops its process with this one.
struct Session {
    service: RunningService<RoleClient, HubClient>,
    /// The process the hub started (stdio): stopped when the session is dropped.
    child: Option<process::Child>,
    words: Option<Words>,
}

/// What a process said that explains why it went.
struct Words {
    stderr: Arc<Mutex<VecDeque<String>>>,
    noise: Arc<Mutex<Option<String>>>,
}

impl Words {
    fn said(&self) -> String {
        process::last_words(&self.stderr, &self.noise)
    }
}

/// The Streamable HTTP transport to `url`, with its headers and bearer token.
fn http_transport(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    bearer_env: Option<&str>,
) -> Result<rmcp::transport::StreamableHttpClientTransport<reqwest::Client>, String> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(variable) = bearer_env {
        let token = std::env::var(variable)
            .map_err(|_| format!("the bearer token's variable `{variable}` is not set"))?;
        config = config.auth_header(token);
    }
    let mut custom = std::collections::HashMap::new();
    for (name, value) in headers {
        let name = reqwest::header::HeaderName::try_from(name.as_str())
            .map_err(|error| format!("the header name `{name}`: {error}"))?;
        let value = reqwest::header::HeaderValue::try_from(value.as_str())
            .map_err(|error| format!("the value of the header `{name}`: {error}"))?;
        custom.insert(name, value);
    }
    config = config.custom_headers(custom);
    Ok(rmcp::transport::StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        config,
    ))
}
