//! A server over one dispatcher's tools, and serving one client over a byte stream.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::error::ServerError;
use super::handler::Handler;
use super::http::{self, HttpServer};
use super::http_sessions::StdioSession;
use super::options::ServerOptions;
use super::state::ServerState;
use super::watch::InputWatch;
use super::{frame, stdio};
use buril_core::Dispatcher;
use buril_core::context::CancelToken;

/// A server over one dispatcher's tools. Cheap to clone; clones share everything, so one
/// server can serve stdio and HTTP at once, and every client hears of changes.
#[derive(Clone)]
pub struct Server {
    state: Arc<ServerState>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("enabled_tools", &self.enabled_tools())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server over `dispatcher`'s tools. Fails when a rule names no tool or family, or the
    /// config file is missing (when required) or wrong. Applies the rules to the dispatcher's
    /// policy at once.
    pub fn new(dispatcher: Dispatcher, options: ServerOptions) -> Result<Server, ServerError> {
        Ok(Server {
            state: Arc::new(ServerState::new(dispatcher, options)?),
        })
    }

    /// The names of the tools clients can list and call now, sorted.
    pub fn enabled_tools(&self) -> Vec<&'static str> {
        self.state.enabled_tools()
    }

    /// Reads the config file again and applies it. When the set of enabled tools changed,
    /// tells every connected client (`notifications/tools/list_changed`) and answers `true`.
    pub async fn reload(&self) -> Result<bool, ServerError> {
        self.state.reload_and_notify().await
    }

    /// Serves one client over standard input and output until the input ends.
    ///
    /// When they are pipes (as when an MCP client starts the server), they are read and
    /// written through the runtime's reactor, so the runtime must have IO enabled (as
    /// `#[tokio::main]` and [`Builder::enable_all`](tokio::runtime::Builder::enable_all) give).
    ///
    /// Having written its answers with no call running, the transport watches its input for a
    /// moment before its thread sleeps ([`ServerOptions::input_watch`]).
    ///
    /// When the input ends, the tasks running here have the drain time
    /// ([`HttpLimits::drain`](super::HttpLimits::drain)) to end before this returns; those
    /// still running then are recorded as failed, saying why (a client that started a task
    /// and left, such as an editor reloading its scripts, finds its end through the next
    /// server sharing the store).
    pub async fn serve_stdio(&self) -> Result<(), ServerError> {
        let (stdin, stdout) = stdio::open();
        let watch = stdin.watch(self.state.input_watch);
        self.serve_lines(stdin, stdout, watch).await
    }

    /// Serves standard input and output as [`serve_stdio`](Self::serve_stdio) does, reading
    /// no more requests once `stop` completes (those read are answered).
    #[doc(hidden)]
    pub async fn serve_stdio_until(&self, stop: Stop) -> Result<(), ServerError> {
        let (stdin, stdout) = stdio::open();
        let watch = stdin.watch(self.state.input_watch);
        self.serve_lines(UntilStopped::new(stdin, stop), stdout, watch)
            .await
    }

    /// Serves one client over a byte stream pair (newline-delimited JSON-RPC) until `reader`
    /// ends.
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<(), ServerError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_lines(reader, writer, None).await
    }

    async fn serve_lines<R, W>(
        &self,
        reader: R,
        writer: W,
        watch: Option<InputWatch>,
    ) -> Result<(), ServerError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.state.watch_config();
        self.state.externals_settled().await;
        // A subscription never ends by itself; the end of the input ends it.
        let ended = CancelToken::new();
        let max_frame = self.state.max_frame_bytes();
        let reader = WatchEnd {
            inner: reader,
            ended: ended.clone(),
        };
        // The client, once it finished `initialize`: the transport answers its plain calls
        // itself (`fast_path/`).
        let client = Arc::new(StdioSession::default());
        let mut transport =
            frame::LineTransport::new(reader, writer, max_frame, self.state.registry, watch);
        if self.state.fast_paths {
            transport =
                transport.answering_plain_calls(Arc::clone(&self.state), Arc::clone(&client));
        } else {
            transport = transport.parsing_every_frame_generically();
        }
        let handler = Handler::new(Arc::clone(&self.state))
            .ending_with(ended)
            .recording_in(client);
        let running = match handler.serve(transport).await {
            Ok(running) => running,
            // The client left before choosing a protocol version: nothing to serve.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(error) => {
                return Err(ServerError::Protocol(format!(
                    "the MCP session failed: {error}"
                )));
            }
        };
        let served = running
            .waiting()
            .await
            .map_err(|error| ServerError::Protocol(format!("the MCP session failed: {error}")));
        // The client gone, the tasks it started still run here: they get their time, as over
        // HTTP at a stop, before the process that serves them ends.
        super::tasks::settle(&self.state, self.state.http_limits.drain, async {}, || {}).await;
        served?;
        Ok(())
    }

    /// Binds a Streamable HTTP endpoint (`/mcp`) on `addr`; [`HttpServer::run`] serves it.
    /// Use port 0 for any free port and read it from [`HttpServer::local_addr`].
    pub async fn bind_http(&self, addr: SocketAddr) -> Result<HttpServer, ServerError> {
        http::bind(Arc::clone(&self.state), addr).await
    }

    /// Serves Streamable HTTP on `addr` until the process ends.
    pub async fn serve_http(&self, addr: SocketAddr) -> Result<(), ServerError> {
        self.bind_http(addr).await?.run().await
    }
}

/// An input that ends (reads as end of file) once `stop` completes.
#[doc(hidden)]
pub struct UntilStopped<R> {
    input: R,
    stop: Option<Stop>,
}

/// What ends an input: a signal, say.
#[doc(hidden)]
pub type Stop = Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

impl<R> UntilStopped<R> {
    pub fn new(input: R, stop: Stop) -> Self {
        UntilStopped {
            input,
            stop: Some(stop),
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for UntilStopped<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let Some(stop) = &mut this.stop else {
            return Poll::Ready(Ok(()));
        };
        if stop.as_mut().poll(cx).is_ready() {
            this.stop = None;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.input).poll_read(cx, buf)
    }
}

/// A reader that cancels a token when it reaches its end or fails.
struct WatchEnd<R> {
    inner: R,
    ended: CancelToken,
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchEnd<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &poll {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                self.ended.cancel();
            }
            Poll::Ready(Err(_)) => self.ended.cancel(),
            _ => {}
        }
        poll
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ended legacy session leaves the server's table at once (closed by its client, or
    /// expired), not when the next session comes.
    #[test]
    fn an_ended_http_session_leaves_the_table_at_once() {
        use std::time::{Duration, Instant};

        use super::super::http_limits::HttpLimits;

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let limits = HttpLimits::new().idle_session(Duration::from_millis(400));
        let options = ServerOptions::new().http_limits(limits).messages(|_| {});
        let server = Server::new(Dispatcher::new(), options).unwrap();
        let bound = runtime
            .block_on(server.bind_http("127.0.0.1:0".parse().unwrap()))
            .unwrap();
        let (addr, count) = (bound.local_addr(), bound.session_count());
        runtime.spawn(bound.run());
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let url = format!("http://{addr}/mcp");
        let post = |session: Option<&str>, body: &str| {
            let mut request = agent
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25");
            if let Some(session) = session {
                request = request.header("mcp-session-id", session);
            }
            let response = request.send(body).unwrap();
            let status = response.status().as_u16();
            let id = response
                .headers()
                .get("mcp-session-id")
                .map(|id| id.to_str().unwrap().to_owned());
            (status, id)
        };
        let open = || {
            let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
            let (status, id) = post(None, initialize);
            assert_eq!(status, 200);
            let id = id.unwrap();
            let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
            assert_eq!(post(Some(&id), initialized).0, 202);
            id
        };
        let wait_for = |sessions: usize, what: &str| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while count() != (sessions, sessions) {
                assert!(Instant::now() < deadline, "{what}: {:?} sessions", count());
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        let closed = open();
        let _expiring = open();
        wait_for(2, "both sessions registered");
        let response = agent
            .delete(&url)
            .header("mcp-session-id", &closed)
            .header("mcp-protocol-version", "2025-11-25")
            .call()
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        wait_for(1, "the closed session left");
        // The other one sends nothing: it expires, and leaves.
        wait_for(0, "the idle session left");
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(post(Some(&closed), ping).0, 404);
    }
}
