//! An MCP server over a binary's tools, built on the official Rust SDK (`rmcp`).
//!
//! Any binary with tools serves them with its CLI (`buril::cli::main()`, whose `serve` speaks
//! MCP over stdio, and `serve --http 127.0.0.1:8080` over Streamable HTTP):
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     buril::cli::main()
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
//!   limit answers 413 before it is read in full, and a body that is not JSON or not a message
//!   answers 400 with the same JSON-RPC errors. An answer whose request id cannot be read has
//!   `"id": null`.
//! - Over HTTP, a `tools/call` of a session that needs nothing sent before its answer (no
//!   progress token or log level, a client that cannot be asked for input, not a task tool) is
//!   answered as one `application/json` body on its connection; everything else as an event
//!   stream by the SDK's service.
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

mod apps;
mod auth;
mod call;
mod call_notes;
mod config;
#[doc(hidden)]
pub mod config_edit;
mod defaults;
mod era;
mod error;
mod fast_path;
mod frame;
mod handler;
mod handshake;
mod http;
mod http_limits;
mod http_sessions;
mod http_unreadable;
mod input;
mod lines;
mod listing;
mod notify;
mod options;
mod results;
mod route;
mod serve;
mod state;
mod stdio;
#[cfg(feature = "studio")]
mod studio;
mod tasks;
mod trim;
mod watch;

use std::net::SocketAddr;

pub use self::auth::{AuthOptions, JwksSource, StaticToken};
pub use self::defaults::{
    DEFAULT_CONFIG_FILE, DEFAULT_KEEP_RESULTS, DEFAULT_MAX_RESULT_BYTES, DEFAULT_OUTPUT_DIR,
    DEFAULT_PAGE_SIZE, DEFAULT_TIMEOUT,
};
pub use self::error::ServerError;
pub use self::http::HttpServer;
pub use self::http_limits::HttpLimits;
pub use self::options::{MessageSink, ServerOptions};
pub use self::serve::Server;
#[doc(hidden)]
pub use self::serve::{Stop, UntilStopped};
use buril_core::Dispatcher;

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
