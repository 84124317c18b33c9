//! Streamable HTTP: the SDK's service behind a small hyper server, at `/mcp`.
//!
//! `Host` must name a loopback host (or the address the server was bound to), which stops DNS
//! rebinding; a request with an `Origin` header must come from a loopback origin on any port,
//! or from one the options allow.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use super::error::ServerError;
use super::handler::Handler;
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
    service: Service,
    addr: SocketAddr,
    state: Arc<ServerState>,
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
    let listener = TcpListener::bind(addr).await.map_err(|error| {
        ServerError::Io(std::io::Error::new(
            error.kind(),
            format!("cannot listen on {addr}: {error}"),
        ))
    })?;
    let addr = listener.local_addr()?;
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
    let handler = Handler::new(Arc::clone(&state));
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    state.watch_config();
    Ok(HttpServer {
        listener,
        service,
        addr,
        state,
    })
}

impl HttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint's URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{ENDPOINT}", self.addr)
    }

    /// Serves connections until the process ends (or the future is dropped).
    pub async fn run(self) -> Result<(), ServerError> {
        let HttpServer {
            listener,
            service,
            state,
            ..
        } = self;
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: wait a little and go on.
                    state.say(&format!("buril: accepting a connection failed: {error}"));
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            // Answers go out as they are written: with Nagle's algorithm on, the second small
            // write of a response (an SSE event after the headers) waits for the client's
            // delayed ACK, about 40 ms a request on a kept-alive connection.
            if let Err(error) = stream.set_nodelay(true) {
                state.say(&format!("buril: TCP_NODELAY could not be set: {error}"));
            }
            let service = service.clone();
            tokio::spawn(async move {
                let route = service_fn(move |request: Request<Incoming>| {
                    let service = service.clone();
                    async move { Ok::<_, std::convert::Infallible>(route(&service, request).await) }
                });
                // A client that goes away mid-request ends its connection; nothing to report.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), route)
                    .await;
            });
        }
    }
}

async fn route(
    service: &Service,
    request: Request<Incoming>,
) -> Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>> {
    if request.uri().path() == ENDPOINT {
        return service.handle(request).await;
    }
    let mut response = Response::new(
        Full::new(Bytes::from(format!(
            "Not Found: the MCP endpoint is {ENDPOINT}\n"
        )))
        .boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
