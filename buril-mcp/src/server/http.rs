//! Streamable HTTP: the SDK's service behind a small hyper server, at `/mcp`.
//!
//! `Host` must name a loopback host (or the address the server was bound to), which stops DNS
//! rebinding; a request with an `Origin` header must come from a loopback origin on any port,
//! or from one the options allow.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::http::request::Parts;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::auth::{self, Authorization, BoxBody};
use super::error::ServerError;
use super::fast_path::{Fast, Hosts, stateless_callers};
use super::handler::Handler;
use super::http_limits;
use super::http_sessions::Session;
use super::http_unreadable::{Recorded, Seen, answer_unreadable, is_json};
use super::state::ServerState;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// Browser origins accepted by default: loopback, any port.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

type Service = StreamableHttpService<Handler, LocalSessionManager>;

/// A bound Streamable HTTP endpoint, ready to [`run`](Self::run).
pub struct HttpServer {
    listener: TcpListener,
    addr: SocketAddr,
    endpoint: Arc<Endpoint>,
}

/// What answers a connection's requests.
struct Endpoint {
    service: Service,
    state: Arc<ServerState>,
    /// What authorizes requests, when the server authorizes callers.
    auth: Option<Arc<Authorization>>,
    /// The SDK's sessions, which the service holds too.
    sessions: Arc<LocalSessionManager>,
    /// The hosts the SDK's service allows.
    hosts: Hosts,
    /// The record of stateless callers the fast path answers, and the service loop its client
    /// belongs to.
    stateless: (
        Arc<Session>,
        rmcp::service::RunningService<rmcp::RoleServer, Handler>,
    ),
    /// The studio, when it is served.
    #[cfg(feature = "studio")]
    studio: Option<super::studio::Studio>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

pub(crate) async fn bind(
    state: Arc<ServerState>,
    addr: SocketAddr,
) -> Result<HttpServer, ServerError> {
    // Other machines could reach it, and nobody would need to be authorized.
    if !addr.ip().is_loopback() && state.auth.is_none() {
        if !state.no_auth {
            return Err(ServerError::Config(format!(
                "{addr} can be reached from other machines, and this server authorizes nobody: \
                 anyone who reaches it could call every enabled tool. Serve on a loopback \
                 address (127.0.0.1), or add --no-auth to serve anyway \
                 (ServerOptions::serve_without_authorization)"
            )));
        }
        state.say(&format!(
            "buril: warning: serving {addr} without authorization (--no-auth): anyone who \
             reaches it can call every enabled tool"
        ));
    }
    #[cfg(feature = "studio")]
    if state.studio && !addr.ip().is_loopback() && state.auth.is_none() {
        return Err(ServerError::Config(format!(
            "the studio changes the server's settings and calls its tools: on {addr}, which \
             other machines can reach, it needs the server to authorize its callers (`[auth]`, \
             --auth-issuer); serve it on a loopback address (127.0.0.1) otherwise"
        )));
    }
    state.externals_settled().await;
    let listener = TcpListener::bind(addr).await.map_err(|error| {
        ServerError::Io(std::io::Error::new(
            error.kind(),
            format!("cannot listen on {addr}: {error}"),
        ))
    })?;
    let addr = listener.local_addr()?;
    // The studio of a server given no other authorization gets a token, which its MCP endpoint
    // then needs too.
    #[cfg(feature = "studio")]
    let (options, studio_token) = match (&state.auth, state.studio) {
        (None, true) => {
            let token = super::studio::random_token();
            let options =
                super::auth::AuthOptions::new().token(super::auth::StaticToken::from_token(
                    "studio",
                    &token,
                    [super::studio::SETTINGS_SCOPE],
                ));
            (Some(options), Some(token))
        }
        (options, _) => (options.clone(), None),
    };
    #[cfg(not(feature = "studio"))]
    let options = state.auth.clone();
    let auth = match &options {
        Some(options) => {
            let auth =
                Authorization::new(options.clone(), addr, ENDPOINT).map_err(ServerError::Config)?;
            // An issuer that cannot be reached now may be later: the server starts, and says so.
            if let Err(error) = auth.preload().await {
                state.say(&format!(
                    "buril: warning: {error}; tokens are refused until it can"
                ));
            }
            state.dispatcher.add_layer(auth.layer());
            state.say(&format!(
                "buril: authorizing callers as the resource {}",
                auth.resource()
            ));
            Some(Arc::new(auth))
        }
        None => None,
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(
            LOOPBACK_ORIGINS
                .iter()
                .map(|origin| (*origin).to_owned())
                .chain(state.allowed_origins.iter().cloned()),
        )
        .enforce_origin_validation()
        // One request may carry the largest input the dispatcher accepts, plus the JSON-RPC
        // around it; a larger body answers 413 before it is buffered.
        .with_max_request_body_bytes(state.max_frame_bytes());
    let ip = addr.ip();
    if ip.is_unspecified() {
        // Every interface: the names clients use cannot be known, so Host is not checked.
        state.say(
            "buril: listening on every interface; the Host header is not checked, only Origin",
        );
        config = config.disable_allowed_hosts();
    } else if !ip.is_loopback() {
        let mut hosts = config.allowed_hosts.clone();
        hosts.push(ip.to_string());
        config = config.with_allowed_hosts(hosts);
    }
    let hosts = Hosts::new(&config.allowed_hosts);
    // A handler per session: each keeps its client's log level.
    let for_sessions = Arc::clone(&state);
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(state.http_limits.idle_session);
    let sessions = Arc::new(sessions);
    let service = StreamableHttpService::new(
        move || Ok(Handler::new(Arc::clone(&for_sessions))),
        Arc::clone(&sessions),
        config,
    );
    state.watch_config();
    let stateless = stateless_callers(&state);
    #[cfg(feature = "studio")]
    let studio = state
        .studio
        .then(|| super::studio::Studio::new(studio_token));
    Ok(HttpServer {
        listener,
        addr,
        endpoint: Arc::new(Endpoint {
            service,
            state,
            auth,
            sessions,
            hosts,
            stateless,
            #[cfg(feature = "studio")]
            studio,
        }),
    })
}

impl HttpServer {
    /// How many legacy sessions the server's own tables hold (its fast path's, and those told
    /// when the tools change).
    #[cfg(test)]
    pub(crate) fn session_count(&self) -> impl Fn() -> (usize, usize) + Send + 'static {
        let state = Arc::clone(&self.endpoint.state);
        move || (state.http_sessions.len(), state.listeners.peer_count())
    }

    /// How long the calls in flight have to finish once it is asked to stop
    /// ([`HttpLimits::drain`](super::HttpLimits::drain)).
    pub fn drain(&self) -> std::time::Duration {
        self.endpoint.state.http_limits.drain
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint's URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{ENDPOINT}", self.addr)
    }

    /// The studio's address, when it is served (feature `studio`): with the token made for it
    /// (`?token=…`) when the server had no other authorization; otherwise opening it asks for
    /// an access token the server accepts.
    #[cfg(feature = "studio")]
    pub fn studio_url(&self) -> Option<String> {
        let studio = self.endpoint.studio.as_ref()?;
        let base = format!("http://{}/studio/", self.addr);
        Some(match studio.token() {
            Some(token) => format!("{base}?token={token}"),
            None => base,
        })
    }

    /// Serves connections until the process ends (or the future is dropped), at most
    /// [`HttpLimits`](super::HttpLimits)' connections at once (`http_limits.rs`).
    pub async fn run(self) -> Result<(), ServerError> {
        self.run_until(std::future::pending()).await
    }

    /// Serves connections until `stop` completes, then stops without losing what it was
    /// asked: no connection is accepted any more, idle connections close, a request in flight
    /// is answered and its connection then closed, and the tasks it runs may end. Calls still
    /// running after [`HttpLimits::drain`](super::HttpLimits::drain) are cancelled (a tool that
    /// stops for it answers `cancelled`), tasks are cancelled and recorded as failed with the
    /// reason ([`Tasks::hand_back`](buril_core::tasks::Tasks::hand_back): their followers, through
    /// any server sharing the store, see it at once), and after a moment for the cancelled
    /// calls' answers it returns. `serve --http` stops so at SIGTERM or Ctrl-C.
    pub async fn run_until(
        self,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(), ServerError> {
        let HttpServer {
            listener, endpoint, ..
        } = self;
        let limits = endpoint.state.http_limits;
        let open = Arc::new(Semaphore::new(limits.max_connections));
        let stopping = CancellationToken::new();
        let mut stop = std::pin::pin!(stop);
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut stop => break,
            };
            let (stream, _) = match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: wait a little and go on.
                    endpoint
                        .state
                        .say(&format!("buril: accepting a connection failed: {error}"));
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
                let answer = http_limits::busy_answer(&limits);
                tokio::spawn(async move {
                    http_limits::answer_and_close(stream, answer.as_bytes(), LINGER).await;
                });
                continue;
            };
            // Answers go out as they are written: with Nagle's algorithm on, the second small
            // write of a response (an SSE event after the headers) waits for the client's
            // delayed ACK, about 40 ms a request on a kept-alive connection.
            if let Err(error) = stream.set_nodelay(true) {
                endpoint
                    .state
                    .say(&format!("buril: TCP_NODELAY could not be set: {error}"));
            }
            let (stream, spare) = match http_limits::with_spare(stream) {
                Ok(parts) => parts,
                Err(_) => continue,
            };
            let endpoint = Arc::clone(&endpoint);
            let stopping = stopping.clone();
            tokio::spawn(async move {
                let _permit = permit;
                let route = service_fn(move |request: Request<Incoming>| {
                    let endpoint = Arc::clone(&endpoint);
                    async move { Ok::<_, std::convert::Infallible>(endpoint.route(request).await) }
                });
                let (stream, begun) = http_limits::Watched::new(stream);
                let connection = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_timeout)
                    .serve_connection(TokioIo::new(stream), route);
                let mut connection = std::pin::pin!(connection);
                // A client that goes away mid-request ends its connection; nothing to report.
                let served = tokio::select! {
                    served = connection.as_mut() => served,
                    () = stopping.cancelled() => {
                        // The request in flight answered, then the connection closed.
                        connection.as_mut().graceful_shutdown();
                        connection.await
                    }
                };
                // Headers that did not arrive in time: a request begun is answered 408.
                if let Err(error) = served
                    && error.is_timeout()
                    && begun.load(Ordering::Relaxed)
                    && let Some(spare) = spare
                    && let Ok(spare) = tokio::net::TcpStream::from_std(spare)
                {
                    let answer = http_limits::timeout_answer();
                    http_limits::answer_and_close(spare, answer.as_bytes(), LINGER).await;
                }
                super::trim::ended();
            });
        }
        drop(listener);
        stopping.cancel();
        // Every connection's place back (each has ended), and the tasks run here ended.
        let every = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
        let ended = || Arc::clone(&open).acquire_many_owned(every);
        let state = &endpoint.state;
        let settled = super::tasks::settle(
            state,
            limits.drain,
            async {
                let _ = ended().await;
            },
            || state.stopped.cancel(),
        )
        .await;
        if !settled {
            let _ = tokio::time::timeout(CANCELLED_ANSWERS, ended()).await;
        }
        Ok(())
    }
}

/// How long the calls cancelled at a stop are given to answer `cancelled`.
const CANCELLED_ANSWERS: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a connection refused or timed out is given to read its answer before it is closed.
const LINGER: std::time::Duration = std::time::Duration::from_millis(250);

impl Endpoint {
    /// What answers a call on its connection, unless the fast paths are off.
    fn fast(&self) -> Option<Fast<'_>> {
        self.state.fast_paths.then_some(Fast {
            state: &self.state,
            sessions: &self.sessions,
            hosts: &self.hosts,
            stateless: &self.stateless.0,
        })
    }

    async fn route(&self, request: Request<Incoming>) -> Response<BoxBody> {
        if let Some(auth) = &self.auth
            && auth.is_metadata_path(request.uri().path())
        {
            return auth::metadata_response(auth, request.method());
        }
        #[cfg(feature = "studio")]
        if self.studio.is_some()
            && let Some(auth) = &self.auth
            && super::studio::owns(request.uri().path())
        {
            return super::studio::answer(&self.state, auth, &self.hosts, request).await;
        }
        if request.uri().path() != ENDPOINT {
            return plain(
                StatusCode::NOT_FOUND,
                format!("Not Found: the MCP endpoint is {ENDPOINT}\n"),
            );
        }
        let limit = self.state.max_frame_bytes();
        let body_timeout = self.state.http_limits.body_timeout;
        if let Some(auth) = &self.auth {
            // Authorization reads the body whole, to check the scopes of the tool it calls.
            let gated = auth::gate(auth, &self.state.dispatcher, limit, body_timeout, request);
            return match gated.await {
                Ok((request, body)) => self.answer_read(request.into_parts().0, body).await,
                Err(refusal) => refusal,
            };
        }
        if request.method() != Method::POST {
            return self.service.handle(request).await;
        }
        // A body of known length within the limit is read here, for a call that can be
        // answered without the SDK's session worker (`fast_path/`); a longer one goes to the
        // SDK, which answers 413 before reading it.
        let known = request
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|length| length.to_str().ok()?.parse::<usize>().ok())
            .is_some_and(|length| length <= limit);
        if known {
            let (parts, body) = request.into_parts();
            let Ok(read) = tokio::time::timeout(body_timeout, body.collect()).await else {
                return http_limits::late_body_answer();
            };
            return match read {
                Ok(collected) => self.answer_read(parts, collected.to_bytes()).await,
                Err(error) => plain(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: the body could not be read: {error}\n"),
                ),
            };
        }
        // The body is kept (as the frames the SDK reads, not copied) to answer a message that
        // cannot be read as the stdio transport does.
        let (parts, body) = request.into_parts();
        let (body, late) = http_limits::Timed::new(body, body_timeout);
        let recorded = Recorded::new(body);
        let seen = Arc::clone(&recorded.seen);
        let response = self
            .service
            .handle(Request::from_parts(parts, recorded))
            .await;
        if late.load(std::sync::atomic::Ordering::Relaxed) {
            return http_limits::late_body_answer();
        }
        if response.status().is_client_error() {
            let seen =
                std::mem::take(&mut *seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
            return answer_unreadable(response, &seen).await;
        }
        response
    }

    /// A request whose body was read whole: a call taken by the fast path, or the SDK's answer
    /// (a POST's client error answered as the stdio transport answers a frame it cannot read).
    async fn answer_read(&self, parts: Parts, body: Bytes) -> Response<BoxBody> {
        let post = parts.method == Method::POST;
        if post
            && let Some(fast) = self.fast()
            && let Some(answer) = fast.answer(&parts, &body).await
        {
            return answer;
        }
        let json = is_json(&parts);
        let response = self
            .service
            .handle(Request::from_parts(parts, Full::new(body.clone())))
            .await;
        if post && response.status().is_client_error() {
            return answer_unreadable(response, &Seen::whole(body, json)).await;
        }
        response
    }
}

/// A plain-text answer.
fn plain(status: StatusCode, text: String) -> Response<BoxBody> {
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
}
