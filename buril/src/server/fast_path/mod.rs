//! The fast paths: a plain `tools/call` answered without the SDK's machinery around it, which
//! for a quick tool is most of a call's time (profiled: the handler and the dispatcher were
//! about 7% of an HTTP call through the SDK's session worker). Each path does what the SDK
//! would, and hands anything else to the SDK unchanged.
//!
//! - **Parsing** (`parse.rs`): a frame that is a `tools/call` with a name, arguments and
//!   `_meta` only is read straight into rmcp's message type; the generic parser buffers every
//!   message as untyped content first. The bindings' metadata hashes in `_meta` are read as
//!   borrowed text and dropped there when they are this server's.
//! - **Stdio** (`frame.rs`): once the client finished `initialize`, such a call runs on a task
//!   of its own and its answer goes straight to the writer, not through the service loop's
//!   channels (two hand-offs between threads a call).
//! - **HTTP** (`http.rs`): such a call of a legacy session runs on the connection's task with
//!   the session's handler, answered as one `application/json` body, not through the session's
//!   worker and an event stream.
//!
//! A call takes a fast path only when its plan is `CallPlan::Plain` and it needs nothing of
//! the SDK's service loop (`takes`): nothing it could send its client before its answer (no
//! progress token, no log messages asked for, a client that can answer no questions) and no
//! per-request protocol fields in its `_meta`, which the SDK's handler would check.
//!
//! What the fast paths do as rmcp 3.11 does (rmcp is pinned to that version, and every server
//! test runs with the fast paths on and off, `BURIL_FAST_PATHS=off` or
//! `ServerOptions::fast_paths(false)`, so that a difference fails a test):
//!
//! | rmcp's behaviour | mirrored in |
//! | --- | --- |
//! | the message its parser makes of a `tools/call` frame | `parse.rs` (tested against the generic parser) |
//! | a call registered with its session, so that `notifications/cancelled` cancels it; a cancelled call gets no answer over stdio | `call.rs`, `frame.rs` |
//! | a legacy peer's result without `resultType`, and without a non-object `structuredContent` | `call.rs` |
//! | calls in flight given 5 s to answer once the input ends (2 s when the session ends otherwise) | `frame.rs` |
//! | the Streamable HTTP checks: `Host` against the allowed hosts (DNS rebinding), any `Origin` left to rmcp, `Content-Type: application/json`, `Accept` naming JSON and event streams, a known `MCP-Protocol-Version` of the session era, no other `Mcp-*` header, a session rmcp still knows (a closed one answers 404 there) | `http.rs` |

mod call;
mod http;
mod parse;

pub(crate) use self::call::{answer, encode, register, takes};
pub(crate) use self::http::{Fast, Hosts};
pub(crate) use self::parse::FastCall;
