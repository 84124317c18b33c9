//! An MCP server over a binary's tools, built on the official Rust SDK (`rmcp`).
//!
//! Any binary with tools serves them with one line in its CLI (`serve` speaks MCP over stdio,
//! `serve --http 127.0.0.1:8080` over Streamable HTTP):
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     buril::cli::Cli::new().extend(buril::server::extension()).run()
//! }
//! ```
//!
//! or from code, with a [`Dispatcher`] configured by the host:
//!
//! ```no_run
//! # async fn run() -> Result<(), buril::server::ServerError> {
//! let dispatcher = buril::Dispatcher::new();
//! let options = buril::server::ServerOptions::new().enable("asset_delete");
//! buril::server::serve_stdio(dispatcher, options).await
//! # }
//! ```
//!
//! # What clients see
//!
//! - `tools/list` gives the enabled tools sorted by name, a page at a time
//!   ([`ServerOptions::page_size`]), each with `name`, `title`, `description`, `inputSchema`,
//!   `outputSchema` and `annotations`.
//! - `tools/call` goes through the dispatcher, which validates the input and runs the tool on
//!   the right thread. A success answers `structuredContent` (the envelope's `data`, which
//!   matches the output schema) and a text copy of it. Every failure of the call itself
//!   (invalid input, an error, a panic, a timeout, a cancellation) answers a result with
//!   `isError: true` whose text is the envelope's `error` message; the whole envelope is in
//!   `_meta["buril/envelope"]`. Only a call to a tool that does not exist, or is disabled,
//!   is a protocol error (JSON-RPC `-32602`), and its message never reveals a disabled tool.
//! - Large results: past [`ServerOptions::max_result_bytes`] of JSON, the data is written to
//!   a file under [`ServerOptions::output_dir`]. `structuredContent` still carries the data
//!   (clients check it against the output schema), but the text block, which is what most
//!   clients put in the model's context, becomes a short note with the file's path and size,
//!   followed by a `resource_link` to the file. Writing one removes the result files older
//!   than [`ServerOptions::keep_results`] (a day by default), and no other file.
//! - Cancellation (`notifications/cancelled`) cancels the call's context; progress reports
//!   reach clients that sent a progress token.
//! - Every message gets an answer. Over stdio, a line that is not JSON (or is longer than the
//!   input limit plus 64 KiB, which is never buffered) answers JSON-RPC `-32700` with the
//!   reason; JSON that is not a valid message answers `-32600`. Over HTTP, a body past the same
//!   limit answers 413 before it is read in full.
//!
//! # Which tools are on
//!
//! Dangerous tools are off until enabled. Rules come from the host's policy, the options
//! (the CLI's `--enable`, `--disable` and `--allow-dangerous`) and a TOML config file:
//!
//! ```toml
//! allow_dangerous = false          # turn every dangerous tool on
//! enable = ["asset_delete"]        # names (or aliases), globs (`scene_*`, `*`), families (`family:script`)
//! disable = ["family:console"]     # a disabled tool is neither listed nor callable; disable wins
//! timeout = 30                     # seconds: the timeout of every call without its own
//!
//! [timeouts]                       # seconds, per tool
//! script_check = 120
//! ```
//!
//! The server polls the file and applies an edit at once: when the set of enabled tools
//! changes, connected clients get `notifications/tools/list_changed` (legacy sessions through
//! their peer, 2026-07-28 clients through their `subscriptions/listen` stream). An edit that
//! does not parse is reported and the previous settings stay.
//!
//! A call's timeout is, in order: the config file's `[timeouts]` entry for the tool, the
//! options' per-tool timeout, the options' default (`--timeout`), the config file's `timeout`,
//! the dispatcher's own timeout for the tool, and [`DEFAULT_TIMEOUT`].
//!
//! While it serves, the server owns the dispatcher's policy: it sets it to the host's policy
//! at start plus the options' and the config file's rules.

mod cli;
mod config;
mod frame;
mod handler;
mod http;
mod listing;
mod notify;
mod options;
mod results;
mod state;
mod stdio;

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

pub use cli::{extension, extension_with};
pub use http::HttpServer;
pub use options::{MessageSink, ServerOptions};

use crate::context::CancelToken;
use crate::dispatch::Dispatcher;
use handler::Handler;
use state::Shared;

/// The timeout of a call when nothing sets one: 60 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The default size past which a result is written to a file: 100 000 bytes of JSON.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 100_000;

/// How long results written to files are kept by default: one day.
pub const DEFAULT_KEEP_RESULTS: Duration = Duration::from_secs(24 * 60 * 60);

/// The default folder for large results, relative to the current folder.
pub const DEFAULT_OUTPUT_DIR: &str = ".buril/outputs";

/// The config file the CLI watches when `--config` is not given, relative to the current
/// folder. It may be missing, and may be created later.
pub const DEFAULT_CONFIG_FILE: &str = ".buril/server.toml";

/// The default number of tools on one page of `tools/list`.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Why a server could not start or stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerError {
    /// An option, a rule or the config file is wrong.
    Config(String),
    /// Reading, writing or binding failed.
    Io(io::Error),
    /// The MCP session could not be set up.
    Protocol(String),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Config(message) | ServerError::Protocol(message) => f.write_str(message),
            ServerError::Io(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerError::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for ServerError {
    fn from(error: io::Error) -> Self {
        ServerError::Io(error)
    }
}

/// A server over one dispatcher's tools. Cheap to clone; clones share everything, so one
/// server can serve stdio and HTTP at once, and every client hears of changes.
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
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
            shared: Arc::new(Shared::new(dispatcher, options)?),
        })
    }

    /// The names of the tools clients can list and call now, sorted.
    pub fn enabled_tools(&self) -> Vec<&'static str> {
        self.shared.enabled_tools()
    }

    /// Reads the config file again and applies it. When the set of enabled tools changed,
    /// tells every connected client (`notifications/tools/list_changed`) and answers `true`.
    pub async fn reload(&self) -> Result<bool, ServerError> {
        self.shared.reload_and_notify().await
    }

    /// Serves one client over standard input and output until the input ends.
    ///
    /// When they are pipes (as when an MCP client starts the server), they are read and
    /// written through the runtime's reactor, so the runtime must have IO enabled (as
    /// `#[tokio::main]` and [`Builder::enable_all`](tokio::runtime::Builder::enable_all) give).
    pub async fn serve_stdio(&self) -> Result<(), ServerError> {
        let (stdin, stdout) = stdio::open();
        self.serve_io(stdin, stdout).await
    }

    /// Serves one client over a byte stream pair (newline-delimited JSON-RPC) until `reader`
    /// ends.
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<(), ServerError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.shared.watch_config();
        // A subscription never ends by itself; the end of the input ends it.
        let ended = CancelToken::new();
        let max_frame = self.shared.max_frame_bytes();
        let reader = WatchEnd {
            inner: reader,
            ended: ended.clone(),
        };
        let transport = frame::LineTransport::new(reader, writer, max_frame);
        let handler = Handler::new(Arc::clone(&self.shared)).ending_with(ended);
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
        running
            .waiting()
            .await
            .map_err(|error| ServerError::Protocol(format!("the MCP session failed: {error}")))?;
        Ok(())
    }

    /// Binds a Streamable HTTP endpoint (`/mcp`) on `addr`; [`HttpServer::run`] serves it.
    /// Use port 0 for any free port and read it from [`HttpServer::local_addr`].
    pub async fn bind_http(&self, addr: SocketAddr) -> Result<HttpServer, ServerError> {
        http::bind(self.clone(), addr).await
    }

    /// Serves Streamable HTTP on `addr` until the process ends.
    pub async fn serve_http(&self, addr: SocketAddr) -> Result<(), ServerError> {
        self.bind_http(addr).await?.run().await
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
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

/// Serves `dispatcher`'s tools over standard input and output until the input ends (see
/// [`Server::serve_stdio`]: in a runtime with IO enabled).
pub async fn serve_stdio(
    dispatcher: Dispatcher,
    options: ServerOptions,
) -> Result<(), ServerError> {
    Server::new(dispatcher, options)?.serve_stdio().await
}

/// Serves `dispatcher`'s tools over Streamable HTTP at `http://ADDR/mcp` until the process
/// ends.
pub async fn serve_http(
    dispatcher: Dispatcher,
    addr: SocketAddr,
    options: ServerOptions,
) -> Result<(), ServerError> {
    Server::new(dispatcher, options)?.serve_http(addr).await
}

/// `path` made absolute against the current folder.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
